/** Sync runs as v_runs shows them. */
import { randomUUID } from 'node:crypto';
import { desc, eq } from 'drizzle-orm';
import type { BankdataDb } from './sqlite/db';
import { runs, type RunOutcome } from './sqlite/schema';
import { toStoredInstant, type Instant } from './time';

export type RunRow = typeof runs.$inferSelect;

export interface RunSummary {
  outcome: RunOutcome;
  consents: number;
  requests: number;
  rowsWritten: number;
  failedUnits: number;
  /** Short, human; never a secret (messages pass through `redact`, @bankdata/core/secrets, first). */
  errorSummary: string | null;
}

/** Starts a run and returns its id (a new UUID unless one is given). */
export function startRun(db: BankdataDb, options: { runId?: string; now: Instant }): string {
  const runId = options.runId ?? randomUUID();
  db.insert(runs)
    .values({ runId, startedAt: toStoredInstant(options.now) })
    .run();
  return runId;
}

export function finishRun(db: BankdataDb, runId: string, summary: RunSummary, now: Instant): void {
  const result = db
    .update(runs)
    .set({ ...summary, finishedAt: toStoredInstant(now) })
    .where(eq(runs.runId, runId))
    .run();
  if (result.changes !== 1) throw new RangeError(`no run ${runId}`);
}

export function getRun(db: BankdataDb, runId: string): RunRow | null {
  return db.select().from(runs).where(eq(runs.runId, runId)).get() ?? null;
}

/** The latest runs first. */
export function listRuns(db: BankdataDb, limit = 20): RunRow[] {
  return db.select().from(runs).orderBy(desc(runs.startedAt)).limit(limit).all();
}
