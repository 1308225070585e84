/** A record that failed its schema, or of another account → a rejects row input (sync/answer.ts decides which). Pure. */
import type { AccountId } from '@bankdata/core/schemas';
import type { RejectInput } from '../../store/rows';
import { escapeNul } from './text-rules';
import type { TransformContext } from './transform-context';

/**
 * The reject as both dialects can store it: the payload as JSON text (an object's JSON writes a
 * NUL as `\u0000`; a payload that is text holding a NUL is kept as a JSON string, escaped), and
 * the reason with any NUL escaped.
 */
export function toRejectInput(
  resource: string,
  ctx: Omit<TransformContext, 'fetchedAt'>,
  accountId: AccountId | null,
  rawPayload: unknown,
  reason: string,
): RejectInput {
  const payload =
    typeof rawPayload === 'string' && rawPayload.includes('\u0000') ? JSON.stringify(rawPayload) : rawPayload;
  return {
    resource,
    bank: ctx.bank,
    consentId: ctx.consentId,
    accountId,
    reason: escapeNul(reason),
    rawPayload: payload,
  };
}
