/** Wire Transaction (docs/bank-api.md §6.4) → transactions row. Pure. */
import { nzDateOf } from '@bankdata/core/nz-time';
import type { Transaction } from '@bankdata/core/schemas';
import type { TransactionRow } from '../../store/rows';
import { toStoredInstant, toStoredInstantOrNull } from '../../store/time';
import { amountMinor, signedAmount } from '@bankdata/core/money';
import { ownerColumns, toRawJson, type TransformContext } from './transform-context';

export function toTransactionRow(tx: Transaction, ctx: TransformContext, raw: unknown = tx): TransactionRow {
  const ref = tx.TransactionReference;
  // The other side of the entry: who was paid on a debit, who paid on a credit.
  const counterparty = tx.CreditDebitIndicator === 'Debit' ? tx.CreditorAccount : tx.DebtorAccount;
  return {
    transactionId: tx.TransactionId,
    status: tx.Status,
    bookingDateTime: toStoredInstant(tx.BookingDateTime),
    bookingDate: nzDateOf(tx.BookingDateTime),
    valueDateTime: toStoredInstantOrNull(tx.ValueDateTime),
    amount: signedAmount(tx.Amount.Amount, tx.CreditDebitIndicator),
    amountMinor: amountMinor(tx.Amount.Amount, tx.CreditDebitIndicator, tx.Amount.Currency),
    currency: tx.Amount.Currency,
    creditDebitIndicator: tx.CreditDebitIndicator,
    description: tx.TransactionInformation ?? null,
    merchantName: tx.MerchantDetails?.MerchantName ?? null,
    merchantCategoryCode: tx.MerchantDetails?.MerchantCategoryCode ?? null,
    creditorName: ref?.CreditorName ?? null,
    debtorName: ref?.DebtorName ?? null,
    creditorParticulars: ref?.CreditorReference?.Particulars ?? null,
    creditorCode: ref?.CreditorReference?.Code ?? null,
    creditorReference: ref?.CreditorReference?.Reference ?? null,
    debtorParticulars: ref?.DebtorReference?.Particulars ?? null,
    debtorCode: ref?.DebtorReference?.Code ?? null,
    debtorReference: ref?.DebtorReference?.Reference ?? null,
    bankTransactionCode: tx.BankTransactionCode?.Code ?? null,
    bankTransactionSubcode: tx.BankTransactionCode?.SubCode ?? null,
    proprietaryCode: tx.ProprietaryBankTransactionCode?.Code ?? null,
    balanceAfter: tx.Balance ? signedAmount(tx.Balance.Amount.Amount, tx.Balance.CreditDebitIndicator) : null,
    counterpartyAccount: counterparty?.Identification ?? null,
    rawJson: toRawJson(raw),
    ...ownerColumns(ctx, tx.AccountId),
  };
}
