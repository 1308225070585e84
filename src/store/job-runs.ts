/** Which scheduled job each run of `runs` (v_runs) was (`bankdata schedule`). */
import { eq, sql } from 'drizzle-orm';
import { insertInto, onConflict, rowOf, selectFrom } from './sql-build';
import type { SqlRunner } from './sql-runner';
import { jobRuns } from './sqlite/schema';
import { toStoredInstant, type Instant } from './time';

/** The nightly sync's job name: its runs, and those with no job (a sync from the command line), are the syncs. */
export const NIGHTLY_SYNC = 'nightly-sync';

export type JobRunRow = typeof jobRuns.$inferSelect;

/**
 * Tags a run with its job, once: a run already tagged keeps its row. On PostgreSQL the nightly
 * sync of every `bankdata schedule` host joins one run (cooperating workers, docs/postgres.md),
 * so each host records the same run id; the first row stands (the run's job and the slot it was
 * scheduled for) and the others' inserts do nothing, instead of failing on job_runs' key.
 */
export async function recordJobRun(
  r: SqlRunner,
  runId: string,
  job: string,
  scheduledFor: Instant,
  holder?: { host: string; pid: number },
): Promise<void> {
  const row = {
    runId,
    job,
    scheduledFor: toStoredInstant(scheduledFor),
    ...(holder ? { holderHost: holder.host, holderPid: holder.pid } : {}),
  };
  await r.run(sql`${insertInto(jobRuns, row)} ${onConflict(jobRuns, [jobRuns.runId])}`);
}

export async function getJobRun(r: SqlRunner, runId: string): Promise<JobRunRow | null> {
  const row = await r.get(sql`${selectFrom(jobRuns)} WHERE ${eq(jobRuns.runId, runId)}`);
  return row ? rowOf(jobRuns, row) : null;
}
