/** Which scheduled job each run of `runs` (v_runs) was (`bankdata schedule`). */
import { eq, sql } from 'drizzle-orm';
import { insertInto, rowOf, selectFrom } from './sql-build';
import type { SqlRunner } from './sql-runner';
import { jobRuns } from './sqlite/schema';
import { toStoredInstant, type Instant } from './time';

export type JobRunRow = typeof jobRuns.$inferSelect;

export async function recordJobRun(r: SqlRunner, runId: string, job: string, scheduledFor: Instant): Promise<void> {
  await r.run(insertInto(jobRuns, { runId, job, scheduledFor: toStoredInstant(scheduledFor) }));
}

export async function getJobRun(r: SqlRunner, runId: string): Promise<JobRunRow | null> {
  const row = await r.get(sql`${selectFrom(jobRuns)} WHERE ${eq(jobRuns.runId, runId)}`);
  return row ? rowOf(jobRuns, row) : null;
}
