import type { AccountId, BankName, ConsentId } from '@bankdata/core/schemas';
import type { Instant } from '../../store/time';

/** Where a wire record came from: the bank, the consent it was read through, and when. */
export interface TransformContext {
  bank: BankName;
  consentId: ConsentId;
  fetchedAt: Instant;
}

/**
 * The columns that say whose a row is: the bank, its account, the consent that read it (the store
 * checks them). Spread it last in a row's literal: Node 20's V8 adds each property written after
 * a leading spread through a slow runtime path, and a row's literal has dozens of them, built once
 * per row synced (docs/benchmarks.md "Object spreads").
 */
export function ownerColumns<A extends AccountId | null>(
  ctx: TransformContext,
  accountId: A,
): { bank: BankName; accountId: A; consentId: ConsentId } {
  return { bank: ctx.bank, accountId, consentId: ctx.consentId };
}

/**
 * The raw JSON a row keeps. Pass the payload as received (before zod dropped unknown fields)
 * when there is one; otherwise the parsed record is kept.
 */
export function toRawJson(raw: unknown): string {
  return JSON.stringify(raw);
}
