/** A record that failed its schema → a rejects row input. Pure. */
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
