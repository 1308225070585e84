/** A record that failed its schema, or of another account → a rejects row input (sync/answer.ts decides which). Pure. */
import type { AccountId } from '@bankdata/core/schemas';
import type { RejectInput } from '../../store/rows';
import type { TransformContext } from './transform-context';

export function toRejectInput(
  resource: string,
  ctx: Omit<TransformContext, 'fetchedAt'>,
  accountId: AccountId | null,
  rawPayload: unknown,
  reason: string,
): RejectInput {
  return { resource, bank: ctx.bank, consentId: ctx.consentId, accountId, reason, rawPayload };
}
