/** Which scheduled job each run of `runs` (v_runs) was (`bankdata schedule`). */
import { eq } from 'drizzle-orm';
import type { BankdataDb } from './sqlite/db';
import { jobRuns } from './sqlite/schema';
import { toStoredInstant, type Instant } from './time';

export type JobRunRow = typeof jobRuns.$inferSelect;

export function recordJobRun(db: BankdataDb, runId: string, job: string, scheduledFor: Instant): void {
  db.insert(jobRuns)
    .values({ runId, job, scheduledFor: toStoredInstant(scheduledFor) })
    .run();
}

export function getJobRun(db: BankdataDb, runId: string): JobRunRow | null {
  return db.select().from(jobRuns).where(eq(jobRuns.runId, runId)).get() ?? null;
}
