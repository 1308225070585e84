/** Rejects: records kept aside with the reason, in the same transaction as their unit. */
import { desc, eq } from 'drizzle-orm';
import type { BankdataDb, Conn } from './sqlite/db';
import type { RejectInput, RejectRow } from './rows';
import { rejects } from './sqlite/schema';

export function insertRejectRows(tx: Conn, inputs: readonly RejectInput[], runId: string | null, now: string): number {
  for (const reject of inputs) {
    tx.insert(rejects)
      .values(rejectValues(reject, runId, now))
      .run();
  }
  return inputs.length;
}

/** A reject's columns. Shared with the PostgreSQL store. */
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

export function listRejects(db: BankdataDb, filter: { runId?: string } = {}): RejectRow[] {
  const query = db.select().from(rejects);
  return (filter.runId ? query.where(eq(rejects.runId, filter.runId)) : query).orderBy(desc(rejects.id)).all();
}
