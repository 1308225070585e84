/** A record that failed its schema, or of another account → a rejects row input. Pure. */
import type { AccountId } from '../../api/schemas';
import type { RejectInput } from '../../store/rows';
import type { TransformContext } from './context';

export function toRejectInput(
  resource: string,
  ctx: Omit<TransformContext, 'fetchedAt'>,
  accountId: AccountId | null,
  rawPayload: unknown,
  reason: string,
): RejectInput {
  return { resource, bank: ctx.bank, consentId: ctx.consentId, accountId, reason, rawPayload };
}

/**
 * An account's answer split by `AccountId`: its own records become rows; a record of another
 * account is kept aside as a reject (with the reason), never stored under this account.
 */
export function splitByAccount<R extends { AccountId: string }, Row>(
  resource: string,
  ctx: Omit<TransformContext, 'fetchedAt'>,
  accountId: AccountId,
  records: readonly R[],
  toRow: (record: R) => Row,
): { rows: Row[]; strays: RejectInput[] } {
  const rows: Row[] = [];
  const strays: RejectInput[] = [];
  for (const record of records) {
    if (record.AccountId === accountId) rows.push(toRow(record));
    else strays.push(toRejectInput(resource, ctx, accountId, record, `AccountId ${record.AccountId} in the answer for ${accountId}`));
  }
  return { rows, strays };
}
