/**
 * A draft is one money movement on one account before ids and running balances are known: the
 * narrative fields of the wire record, its amount, and its visibility lifecycle (pending, late).
 * Builders here turn a business event (card purchase, bill, salary, transfer…) into drafts.
 */
import type { BankName, CreditDebitIndicator, Transaction } from '@bankdata/core/schemas';
import type { Merchant } from './catalog';
import type { AccountSpec } from './customers';
import { formatWireAmount, rateNumber, unitsPerMinor, type Units } from './amount-units';
import type { NzCalendar, NzDay } from './nz-calendar';
import type { Prng } from './world-random';

/** Card purchases appear Pending first, then book under a new id, under the same id, or vanish. */
export type PendingOutcome = 'new-id' | 'same-id' | 'vanish';

export type TransactionDetail = Pick<
  Transaction,
  | 'TransactionReference'
  | 'TransactionInformation'
  | 'BankTransactionCode'
  | 'ProprietaryBankTransactionCode'
  | 'CurrencyExchange'
  | 'CreditorAccount'
  | 'DebtorAccount'
  | 'CardInstrument'
  | 'MerchantDetails'
>;

export interface Draft {
  /** Booking instant of the booked row (for `vanish`, when the pending row disappears). */
  bookingMs: number;
  valueMs: number;
  /** When the booked row becomes visible: its booking, or a day or two later (late rows). */
  visibleMs: number;
  /** Unsigned booked amount. */
  units: Units;
  indicator: CreditDebitIndicator;
  style: 'fixed' | 'trimmed';
  detail: TransactionDetail;
  pending?: { outcome: PendingOutcome; fromMs: number; untilMs: number; units: Units; style: 'fixed' | 'trimmed' };
  /** Statement fee and interest entries are built from these rows (docs/bank-api.md §6.5). */
  feeType?: 'Monthly';
  interest?: boolean;
}

export function signedUnits(draft: Pick<Draft, 'units' | 'indicator'>): Units {
  return draft.indicator === 'Credit' ? draft.units : -draft.units;
}

const DAY_MS = 86_400_000;

export interface DraftContext {
  cal: NzCalendar;
  bank: BankName;
  prng: Prng;
}

/** A random wall-clock instant between `fromHour` and `toHour` (exclusive) on `day`. */
export function randomTime(ctx: DraftContext, day: NzDay, fromHour: number, toHour: number): number {
  return ctx.cal.wallMs(day, ctx.prng.int(fromHour, toHour - 1), ctx.prng.int(0, 59), ctx.prng.int(0, 59));
}

export interface CardPurchase {
  account: AccountSpec;
  day: NzDay;
  /** Calendar days after the purchase (1–3) on which it books. */
  settleDay: NzDay;
  merchant: Merchant;
  narrative: string;
  units: Units;
  /** Foreign spend on an NZD card: the instructed amount and its rate (NZD per unit, millionths). */
  foreign?: { currency: string; units: Units; rateMillionths: number };
}

export function cardPurchaseDraft(ctx: DraftContext, p: CardPurchase): Draft {
  const { prng } = ctx;
  const fromMs = randomTime(ctx, p.day, 7, 22);
  const settleMs = randomTime(ctx, p.settleDay, 4, 8);
  const roll = prng.next();
  const outcome: PendingOutcome = roll < 0.7 ? 'new-id' : roll < 0.9 ? 'same-id' : 'vanish';
  // A tip or a fuel pre-authorisation: the booked amount differs from the pending one.
  const adjusted = outcome === 'new-id' && prng.chance(0.1);
  const step = unitsPerMinor(p.account.currency);
  const bookedUnits = adjusted ? p.units + (p.units / 10n / step) * step : p.units;
  const detail: TransactionDetail = {
    TransactionInformation: p.narrative,
    BankTransactionCode: { Code: 'CustomerCardTransactions', SubCode: 'PointOfSale' },
    ProprietaryBankTransactionCode: { Code: p.account.kind === 'credit-card' ? 'CC' : 'POS', Issuer: ctx.bank },
    CardInstrument: {
      CardSchemeName: p.account.cardScheme,
      AuthorisationType: p.foreign ? 'None' : prng.chance(0.75) ? 'Contactless' : 'PIN',
      Name: p.account.holderShortName,
      Identification: p.account.cardMasked,
    },
    MerchantDetails: { MerchantName: p.merchant.name, MerchantCategoryCode: p.merchant.mcc },
  };
  if (p.foreign) {
    detail.CurrencyExchange = {
      SourceCurrency: p.foreign.currency,
      TargetCurrency: p.account.currency,
      UnitCurrency: p.foreign.currency,
      ExchangeRate: rateNumber(p.foreign.rateMillionths),
      InstructedAmount: { Amount: formatWireAmount(p.foreign.units, p.foreign.currency), Currency: p.foreign.currency },
    };
  }
  return {
    bookingMs: settleMs,
    valueMs: p.day.midnightMs,
    visibleMs: settleMs,
    units: bookedUnits,
    indicator: 'Debit',
    style: prng.chance(0.05) ? 'trimmed' : 'fixed',
    detail,
    pending: { outcome, fromMs, untilMs: settleMs, units: p.units, style: prng.chance(0.5) ? 'trimmed' : 'fixed' },
  };
}

export interface BookedEntry {
  day: NzDay;
  atMs: number;
  units: Units;
  indicator: CreditDebitIndicator;
  detail: TransactionDetail;
  /** A late row: visible one or two days after its booking (never across a month end). */
  mayBeLate?: boolean;
  feeType?: 'Monthly';
  interest?: boolean;
}

export function bookedDraft(ctx: DraftContext, e: BookedEntry): Draft {
  const late = e.mayBeLate === true && e.day.day <= e.day.daysInMonth - 2 && ctx.prng.chance(0.06);
  const draft: Draft = {
    bookingMs: e.atMs,
    valueMs: e.day.midnightMs,
    visibleMs: late ? e.atMs + ctx.prng.int(1, 2) * DAY_MS - ctx.prng.int(0, 3) * 3_600_000 : e.atMs,
    units: e.units,
    indicator: e.indicator,
    style: ctx.prng.chance(0.03) ? 'trimmed' : 'fixed',
    detail: e.detail,
  };
  if (e.feeType) draft.feeType = e.feeType;
  if (e.interest) draft.interest = true;
  return draft;
}

/** The BECS account object of a counterparty (CreditorAccount on debits, DebtorAccount on credits). */
export function becsAccount(identification: string, name: string): NonNullable<Transaction['CreditorAccount']> {
  return { SchemeName: 'BECSElectronicCredit', Identification: identification, Name: name };
}

/** BECS PCR fields are at most 12 characters (docs/bank-api.md §6.4). */
export function pcr(particulars?: string, code?: string, reference?: string) {
  const out: { Particulars?: string; Code?: string; Reference?: string } = {};
  if (particulars) out.Particulars = particulars.slice(0, 12);
  if (code) out.Code = code.slice(0, 12);
  if (reference) out.Reference = reference.slice(0, 12);
  return out;
}

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'] as const;
export function monthTag(day: NzDay): string {
  return `${MONTHS[day.month - 1]}${String(day.year % 100).padStart(2, '0')}`;
}
