/**
 * Movements between two of the customer's own accounts: both sides are generated together, the
 * debit naming the other account as CreditorAccount and the credit naming it as DebtorAccount.
 * Between currencies (wallet top-ups) both rows carry the CurrencyExchange.
 */
import type { Transaction } from '@bankdata/core/schemas';
import type { AccountSpec } from './customers';
import { bookedDraft, pcr, type Draft, type DraftContext, type TransactionDetail } from './drafts';
import { formatWireAmount, rateNumber, type Units } from './amount-units';
import type { NzDay } from './nz-calendar';

export function accountRef(spec: AccountSpec): NonNullable<Transaction['CreditorAccount']> {
  const ref: NonNullable<Transaction['CreditorAccount']> = {
    SchemeName: spec.account.Account?.SchemeName ?? 'BECSElectronicCredit',
    Identification: spec.identification,
  };
  if (spec.account.Account?.Name) ref.Name = spec.account.Account.Name;
  return ref;
}

export interface OwnTransfer {
  from: AccountSpec;
  to: AccountSpec;
  day: NzDay;
  atMs: number;
  /** Amount leaving `from`, in its currency. */
  debitUnits: Units;
  /** Amount arriving in `to` (differs only between currencies). */
  creditUnits: Units;
  /** "TRANSFER", "ROUND UP", "CC PAYMENT"… */
  label: string;
  code?: string;
  fx?: { rateMillionths: number };
}

export function ownTransferDrafts(ctx: DraftContext, t: OwnTransfer): { debit: Draft; credit: Draft } {
  const reference = pcr(t.label, t.code, t.to.holderShortName.split(' ')[0]);
  const names = { CreditorName: t.to.holderShortName, DebtorName: t.from.holderShortName };
  const proprietary = { Code: 'TFR', Issuer: ctx.bank };
  const exchange = t.fx
    ? {
        SourceCurrency: t.from.currency,
        TargetCurrency: t.to.currency,
        UnitCurrency: t.to.currency,
        ExchangeRate: rateNumber(t.fx.rateMillionths),
        InstructedAmount: { Amount: formatWireAmount(t.creditUnits, t.to.currency), Currency: t.to.currency },
      }
    : undefined;
  // Each side names the other account; both carry the same references and exchange.
  const side = (information: string, code: string): TransactionDetail => ({
    TransactionInformation: information,
    TransactionReference: { ...names, CreditorReference: reference, DebtorReference: reference },
    BankTransactionCode: { Code: code, SubCode: 'InternalTransfer' },
    ProprietaryBankTransactionCode: proprietary,
  });
  const debitDetail: TransactionDetail = {
    ...side(`${t.label} TO ${t.to.account.Nickname.toUpperCase()}`, 'IssuedCreditTransfers'),
    CreditorAccount: accountRef(t.to),
  };
  const creditDetail: TransactionDetail = {
    ...side(`${t.label} FROM ${t.from.account.Nickname.toUpperCase()}`, 'ReceivedCreditTransfers'),
    DebtorAccount: accountRef(t.from),
  };
  if (exchange) {
    debitDetail.CurrencyExchange = exchange;
    creditDetail.CurrencyExchange = exchange;
  }
  const debit = bookedDraft(ctx, {
    day: t.day,
    atMs: t.atMs,
    units: t.debitUnits,
    indicator: 'Debit',
    detail: debitDetail,
  });
  const credit = bookedDraft(ctx, {
    day: t.day,
    atMs: t.atMs,
    units: t.creditUnits,
    indicator: 'Credit',
    detail: creditDetail,
  });
  return { debit, credit };
}
