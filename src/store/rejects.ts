/** Rejects: records kept aside with the reason, in the same transaction as their unit. */
import { eq, sql } from 'drizzle-orm';
import type { RejectInput, RejectRow } from './rows';
import { insertInto, rowsOf, selectFrom } from './sql-build';
import type { SqlRunner } from './sql-runner';
import { rejects } from './sqlite/schema';

/** The unit's rejects, one statement each (their ids follow their order), in the runner's transaction. */
export async function insertRejects(
  r: SqlRunner,
  inputs: readonly RejectInput[],
  runId: string | null,
  now: string,
): Promise<number> {
  for (const reject of inputs) await r.run(insertInto(rejects, rejectValues(reject, runId, now)));
  return inputs.length;
}

/** A reject's columns. */
export function rejectValues(reject: RejectInput, runId: string | null, now: string) {
  return {
    resource: reject.resource,
    bank: reject.bank,
    consentId: reject.consentId,
    accountId: reject.accountId,
    reason: reject.reason,
    rawPayload: toPayloadText(reject.rawPayload),
    runId,
    createdAt: now,
  };
}

/** The payload as JSON text; a payload that is already text (an unparsable body) is kept as is. */
export function toPayloadText(payload: unknown): string {
  if (typeof payload === 'string') return payload;
  return JSON.stringify(payload) ?? 'null';
}

export async function listRejects(r: SqlRunner, filter: { runId?: string } = {}): Promise<RejectRow[]> {
  const where = filter.runId ? sql` WHERE ${eq(rejects.runId, filter.runId)}` : sql``;
  return rowsOf(rejects, await r.all(sql`${selectFrom(rejects)}${where} ORDER BY id DESC`));
}
