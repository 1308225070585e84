/** Sync runs as v_runs shows them. */
import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { insertInto, rowOf, rowsOf, selectFrom, updateSet } from './sql-build';
import type { SqlRunner } from './sql-runner';
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
export async function startRun(r: SqlRunner, options: { runId?: string; now: Instant }): Promise<string> {
  const runId = options.runId ?? randomUUID();
  await r.run(insertInto(runs, { runId, startedAt: toStoredInstant(options.now) }));
  return runId;
}

export async function finishRun(r: SqlRunner, runId: string, summary: RunSummary, now: Instant): Promise<void> {
  const done = await r.all(
    sql`${updateSet(runs, { ...summary, finishedAt: toStoredInstant(now) })} WHERE ${eq(runs.runId, runId)} RETURNING run_id`,
  );
  if (done.length !== 1) throw new RangeError(`no run ${runId}`);
}

export async function getRun(r: SqlRunner, runId: string): Promise<RunRow | null> {
  const row = await r.get(sql`${selectFrom(runs)} WHERE ${eq(runs.runId, runId)}`);
  return row ? rowOf(runs, row) : null;
}

/** The latest runs first. */
export async function listRuns(r: SqlRunner, limit = 20): Promise<RunRow[]> {
  return rowsOf(runs, await r.all(sql`${selectFrom(runs)} ORDER BY started_at DESC LIMIT ${limit}`));
}
