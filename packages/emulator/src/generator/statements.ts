/**
 * Monthly RegularPeriodic statements: one per account for each calendar month (NZ) that lies
 * wholly inside the generated period, created the 1st of the next month at 06:00 NZ. Amounts
 * come from the ledger's booked rows, so opening + credits − debits = closing, exactly.
 */
import type { Statement } from '@bankdata/core/schemas';
import type { AccountSpec } from './customers';
import { deepFreeze } from './freeze';
import type { AccountLedger, BookedRow } from './ledger';
import { formatWireAmount, toWireBalance, type Units } from './amount-units';
import type { NzCalendar, NzDay } from './nz-calendar';
import { itemAt } from '@bankdata/core/arrays';

export interface WorldStatement {
  record: Statement;
  startMs: number;
  endMs: number;
  createdMs: number;
  opening: Units;
  closing: Units;
  /** The booked rows of the period, oldest first (the statement file's lines). */
  rows: BookedRow[];
}

const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
] as const;

function statementId(spec: AccountSpec, day: NzDay): string {
  const month = String(day.month).padStart(2, '0');
  // One account per bank uses ids with `/`: clients must percent-encode ids (docs/bank-api.md §1.2)
  // and never use them as file paths (6.7).
  return spec.statementIds === 'slashed' ? `${day.year}/${month}` : `stm-${day.year}-${month}`;
}

/** Statements of one account over calendar days [first, last], oldest first. */
export function buildStatements(ledger: AccountLedger, cal: NzCalendar, first: number, last: number): WorldStatement[] {
  const { spec } = ledger;
  const currency = spec.currency;
  const out: WorldStatement[] = [];
  for (let i = first; i <= last; i++) {
    const day = itemAt(cal.days, i);
    const endIndex = i + day.daysInMonth - 1;
    if (day.day !== 1 || endIndex > last) continue;
    const endDay = itemAt(cal.days, endIndex);
    const next = itemAt(cal.days, endIndex + 1);
    const startMs = day.midnightMs;
    const endMs = cal.wallMs(endDay, 23, 59, 59);
    const createdMs = cal.wallMs(next, 6);
    const rows = ledger.bookedBetween(startMs, endMs);
    const opening = ledger.balanceBefore(startMs);
    let credits = 0n;
    let debits = 0n;
    let fees = 0n;
    let interest = 0n;
    for (const row of rows) {
      if (row.signed >= 0n) credits += row.signed;
      else debits -= row.signed;
      if (row.feeType) fees -= row.signed;
      if (row.interest) interest += row.signed;
    }
    const closing = opening + credits - debits;
    const amount = (units: Units) => ({ Amount: formatWireAmount(units, currency), Currency: currency });
    const record: Statement = {
      AccountId: spec.account.AccountId,
      StatementId: statementId(spec, day) as Statement['StatementId'],
      StatementReference: String(out.length + 1).padStart(3, '0'),
      Type: 'RegularPeriodic',
      StartDateTime: cal.format(startMs),
      EndDateTime: cal.format(endMs),
      CreationDateTime: cal.format(createdMs),
      StatementDescription: [
        `${MONTH_NAMES[day.month - 1]} ${day.year}`,
        `${spec.account.Nickname} ${spec.identification}`,
      ],
    };
    if (fees > 0n) record.StatementFee = [{ Amount: amount(fees), CreditDebitIndicator: 'Debit', Type: 'Monthly' }];
    if (interest !== 0n) {
      record.StatementInterest = [
        { ...toWireBalance(interest, currency), Type: spec.kind === 'credit-card' ? 'Purchase' : 'Total' },
      ];
    }
    if (spec.kind === 'credit-card') record.StatementRate = [{ Rate: '20.95', Type: 'AnnualPurchase' }];
    record.StatementValue = [
      { Value: rows.filter((r) => r.signed >= 0n).length, Type: 'Credits' },
      { Value: rows.filter((r) => r.signed < 0n).length, Type: 'Debits' },
    ];
    record.StatementAmount = [
      { ...toWireBalance(opening, currency), Type: 'PreviousClosingBalance' },
      { ...toWireBalance(closing, currency), Type: 'ClosingBalance' },
      { Amount: amount(credits), CreditDebitIndicator: 'Credit', Type: 'TotalCredits' },
      { Amount: amount(debits), CreditDebitIndicator: 'Debit', Type: 'TotalDebits' },
    ];
    if (spec.kind === 'credit-card') {
      record.StatementAmount.push(
        { Amount: amount(spec.limit), CreditDebitIndicator: 'Credit', Type: 'CreditLimit' },
        {
          Amount: amount(minimumPayment(closing < 0n ? -closing : 0n)),
          CreditDebitIndicator: 'Debit',
          Type: 'MinimumPaymentDue',
        },
      );
    }
    // The calendar runs two months past the last generated day, so these days exist.
    const nextEnd = itemAt(cal.days, endIndex + next.daysInMonth);
    record.StatementDateTime = [{ DateTime: cal.format(cal.wallMs(nextEnd, 23, 59, 59)), Type: 'NextStatement' }];
    if (spec.kind === 'credit-card') {
      // Paid from the everyday account on the 22nd (timeline): the due date of the next month.
      const due = itemAt(cal.days, endIndex + 22);
      record.StatementDateTime.push({ DateTime: cal.format(cal.wallMs(due, 23, 59, 59)), Type: 'PaymentDue' });
    }
    out.push({ record: deepFreeze(record), startMs, endMs, createdMs, opening, closing, rows });
  }
  return out;
}

/** 3% of the balance owing in whole cents, at least $10, never more than is owing. */
function minimumPayment(owing: Units): Units {
  const tenDollars = 1_000_000n;
  if (owing <= tenDollars) return owing;
  const threePercent = ((owing * 3n) / 100n / 1000n) * 1000n;
  return threePercent > tenDollars ? threePercent : tenDollars;
}
