/** Wire Balance (docs/bank-api.md §6.3) → balances row. Pure. */
import type { Balance } from '@bankdata/core/schemas';
import type { BalanceRow } from '../../store/rows';
import { toStoredInstant } from '../../store/time';
import { amountMinor, signedAmount } from '@bankdata/core/money';
import { ownerColumns, toRawJson, type TransformContext } from './transform-context';

export function toBalanceRow(balance: Balance, ctx: TransformContext, raw: unknown = balance): BalanceRow {
  return {
    type: balance.Type,
    amount: signedAmount(balance.Amount.Amount, balance.CreditDebitIndicator),
    amountMinor: amountMinor(balance.Amount.Amount, balance.CreditDebitIndicator, balance.Amount.Currency),
    currency: balance.Amount.Currency,
    creditDebitIndicator: balance.CreditDebitIndicator,
    dateTime: toStoredInstant(balance.DateTime),
    rawJson: toRawJson(raw),
    fetchedAt: toStoredInstant(ctx.fetchedAt),
    ...ownerColumns(ctx, balance.AccountId),
  };
}
