/**
 * One account's transactions as the bank shows them over time. Drafts become frozen wire
 * records (full Detail payload) with ids and running balances; sorted arrays and change lists
 * answer "what is visible at `at`" and "what is the balance at `at`" by binary search.
 */
import type { Balance, Transaction } from '@bankdata/core/schemas';
import type { AccountSpec } from './customers';
import { signedUnits, type Draft } from './drafts';
import { formatWireAmount, toWireBalance, type Units } from './amount-units';
import type { NzCalendar } from './nz-calendar';
import type { Prng } from './world-random';
import { itemAt, partitionPoint } from '@bankdata/core/arrays';

export interface BookedRow {
  id: string;
  bookingMs: number;
  visibleMs: number;
  signed: Units;
  /** Balance after this row, in booking order (the row's `Balance`). */
  balanceAfter: Units;
  record: Transaction;
  feeType?: 'Monthly';
  interest?: boolean;
}

interface PendingRow {
  fromMs: number;
  untilMs: number;
  record: Transaction;
}

/** A balance's value from `ms` on; only instants where the amount changes are kept. */
interface BalanceStep {
  ms: number;
  value: Units;
}

/** docs/bank-api.md §1.4's order: BookingDateTime descending, then TransactionId. */
function newestFirst(a: { bookingMs: number; id: string }, b: { bookingMs: number; id: string }): number {
  return b.bookingMs - a.bookingMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

export class AccountLedger {
  /** Booked rows in booking order (oldest first). */
  readonly booked: BookedRow[];
  private readonly newest: BookedRow[];
  private readonly pendings: PendingRow[];
  /** No row stays pending, or becomes visible after its booking, longer than this. */
  private readonly settleWindowMs: number;
  private readonly bookedSteps: BalanceStep[];
  private readonly availableSteps: BalanceStep[];

  constructor(
    readonly spec: AccountSpec,
    drafts: readonly Draft[],
    private readonly cal: NzCalendar,
    /** The instant the history starts (DateTime of a balance nothing has changed yet). */
    readonly openedMs: number,
    prng: Prng,
  ) {
    const ordered = drafts.map((d, i) => ({ d, i })).sort((a, b) => a.d.bookingMs - b.d.bookingMs || a.i - b.i);
    const perDate = new Map<string, number>();
    const usedPendingIds = new Set<string>();
    const pendingId = () => {
      let id: string;
      do id = `pnd-${prng.hex(12)}`;
      while (usedPendingIds.has(id));
      usedPendingIds.add(id);
      return id;
    };
    this.booked = [];
    this.pendings = [];
    let balance = spec.opening;
    let window = 1;
    for (const { d } of ordered) {
      window = Math.max(window, d.visibleMs - d.bookingMs + 1);
      if (d.pending) window = Math.max(window, d.pending.untilMs - d.pending.fromMs + 1);
      let id: string | null = null;
      if (d.pending?.outcome !== 'vanish') {
        const date = cal.format(d.bookingMs).slice(0, 10).replaceAll('-', '');
        const seq = (perDate.get(date) ?? 0) + 1;
        perDate.set(date, seq);
        id = `txn-${date}-${String(seq).padStart(4, '0')}`;
        const signed = signedUnits(d);
        balance += signed;
        const row: BookedRow = {
          id,
          bookingMs: d.bookingMs,
          visibleMs: d.visibleMs,
          signed,
          balanceAfter: balance,
          record: this.bookedRecord(d, id, balance),
        };
        if (d.feeType) row.feeType = d.feeType;
        if (d.interest) row.interest = true;
        this.booked.push(row);
      }
      if (d.pending) {
        const pid = d.pending.outcome === 'same-id' && id ? id : pendingId();
        this.pendings.push({
          fromMs: d.pending.fromMs,
          untilMs: d.pending.untilMs,
          record: this.pendingRecord(d, d.pending, pid),
        });
      }
    }
    this.settleWindowMs = window;
    this.newest = [...this.booked].sort(newestFirst);
    this.pendings.sort((a, b) => a.fromMs - b.fromMs);
    this.bookedSteps = toSteps(
      spec.opening,
      this.booked.map((r) => ({ ms: r.visibleMs, delta: r.signed })),
    );
    this.availableSteps = toSteps(spec.opening, [
      ...this.booked.map((r) => ({ ms: r.visibleMs, delta: r.signed })),
      ...drafts.flatMap((d) => {
        if (!d.pending) return [];
        const delta = signedUnits({ units: d.pending.units, indicator: d.indicator });
        return [
          { ms: d.pending.fromMs, delta },
          { ms: d.pending.untilMs, delta: -delta },
        ];
      }),
    ]);
  }

  /**
   * Rows visible at `atMs`: booked rows already visible, pending rows still open; newest first.
   * Only those booked from `fromMs` to `toMs` (both included) when given: a windowed query reads
   * its window by binary search instead of filtering the whole history on every request.
   */
  transactionsAt(atMs: number, fromMs = -Infinity, toMs = Infinity): Transaction[] {
    const horizon = atMs - this.settleWindowMs;
    // `newest` is booking-descending: [last, end) holds the rows booked before `fromMs`.
    const firstDue = partitionPoint(this.newest, (r) => r.bookingMs > Math.min(atMs, toMs));
    const last = partitionPoint(this.newest, (r) => r.bookingMs >= fromMs);
    // Rows booked at or before `horizon` are visible for sure: one slice, no per-row test.
    const firstSettled = Math.max(
      firstDue,
      partitionPoint(this.newest, (r) => r.bookingMs > horizon),
    );
    const recent: Array<{ bookingMs: number; id: string; record: Transaction }> = [];
    for (let i = firstDue; i < Math.min(firstSettled, last); i++) {
      const row = itemAt(this.newest, i);
      if (row.visibleMs <= atMs) recent.push(row);
    }
    const from = partitionPoint(this.pendings, (p) => p.fromMs <= horizon || p.fromMs < fromMs);
    const to = partitionPoint(this.pendings, (p) => p.fromMs <= Math.min(atMs, toMs));
    for (let i = from; i < to; i++) {
      const p = itemAt(this.pendings, i);
      if (p.untilMs > atMs) recent.push({ bookingMs: p.fromMs, id: p.record.TransactionId, record: p.record });
    }
    recent.sort(newestFirst);
    const out = recent.map((r) => r.record);
    for (let i = firstSettled; i < last; i++) out.push(itemAt(this.newest, i).record);
    return out;
  }

  /** InterimBooked and InterimAvailable at `atMs`; DateTime is when each last changed. */
  balancesAt(atMs: number): Balance[] {
    const { AccountId } = this.spec.account;
    const currency = this.spec.currency;
    const stepAt = (steps: BalanceStep[]) => steps[partitionPoint(steps, (s) => s.ms <= atMs) - 1];
    const booked = stepAt(this.bookedSteps) ?? { ms: this.openedMs, value: this.spec.opening };
    const available = stepAt(this.availableSteps) ?? { ms: this.openedMs, value: this.spec.opening };
    const interimBooked: Balance = {
      AccountId,
      ...toWireBalance(booked.value, currency),
      Type: 'InterimBooked',
      DateTime: this.cal.format(booked.ms),
    };
    const interimAvailable: Balance = {
      AccountId,
      ...toWireBalance(available.value + this.spec.limit, currency),
      Type: 'InterimAvailable',
      DateTime: this.cal.format(available.ms),
    };
    if (this.spec.limit > 0n) {
      interimAvailable.CreditLine = [
        {
          Included: true,
          Type: 'Pre-Agreed',
          Amount: { Amount: formatWireAmount(this.spec.limit, currency), Currency: currency },
        },
      ];
    }
    return [interimBooked, interimAvailable];
  }

  /** The booked balance just before `ms`, in booking order (a statement's opening). */
  balanceBefore(ms: number): Units {
    const index = partitionPoint(this.booked, (r) => r.bookingMs < ms);
    return index === 0 ? this.spec.opening : itemAt(this.booked, index - 1).balanceAfter;
  }

  /** Booked rows with startMs ≤ BookingDateTime ≤ endMs, oldest first. */
  bookedBetween(startMs: number, endMs: number): BookedRow[] {
    return this.booked.slice(
      partitionPoint(this.booked, (r) => r.bookingMs < startMs),
      partitionPoint(this.booked, (r) => r.bookingMs <= endMs),
    );
  }

  /** The fields every served row starts with, in the order the bank sends them. */
  private recordHead(
    d: Draft,
    id: string,
    status: Transaction['Status'],
    amount: Pick<Draft, 'units' | 'style'>,
    bookingMs: number,
  ): Transaction {
    const currency = this.spec.currency;
    return {
      AccountId: this.spec.account.AccountId,
      TransactionId: id as Transaction['TransactionId'],
      Amount: { Amount: formatWireAmount(amount.units, currency, amount.style), Currency: currency },
      CreditDebitIndicator: d.indicator,
      Status: status,
      BookingDateTime: this.cal.format(bookingMs),
    };
  }

  private bookedRecord(d: Draft, id: string, balance: Units): Transaction {
    const record = this.recordHead(d, id, 'Booked', d, d.bookingMs);
    record.ValueDateTime = this.cal.format(d.valueMs);
    record.Balance = { ...toWireBalance(balance, this.spec.currency), Type: 'InterimBooked' };
    return freezeRecord(Object.assign(record, d.detail));
  }

  private pendingRecord(d: Draft, pending: NonNullable<Draft['pending']>, id: string): Transaction {
    const { detail } = d;
    const record = this.recordHead(d, id, 'Pending', pending, pending.fromMs);
    // A pending card row carries the card and merchant, not yet the booked-only fields.
    for (const key of PENDING_FIELDS) if (detail[key] !== undefined) Object.assign(record, { [key]: detail[key] });
    return freezeRecord(record);
  }
}

const PENDING_FIELDS = [
  'TransactionInformation',
  'BankTransactionCode',
  'ProprietaryBankTransactionCode',
  'CurrencyExchange',
  'CardInstrument',
  'MerchantDetails',
] as const;

/**
 * Records are shared by every call (no copy per request), so they are frozen with their member
 * objects: a caller trimming a payload (Basic permissions) must build a new object instead of
 * changing the world for every later request.
 */
function freezeRecord(record: Transaction): Transaction {
  for (const key in record) {
    const value = record[key as keyof Transaction];
    if (typeof value === 'object') Object.freeze(value);
  }
  return Object.freeze(record);
}

/** Cumulative balance after each instant, keeping only instants where the amount changes. */
function toSteps(opening: Units, events: Array<{ ms: number; delta: Units }>): BalanceStep[] {
  events.sort((a, b) => a.ms - b.ms);
  const steps: BalanceStep[] = [];
  let value = opening;
  let lastValue = opening;
  for (let i = 0; i < events.length; i++) {
    const event = itemAt(events, i);
    value += event.delta;
    const nextMs = events[i + 1]?.ms;
    if (nextMs === event.ms) continue; // settle all events of one instant first
    if (value !== lastValue) steps.push({ ms: event.ms, value });
    lastValue = value;
  }
  return steps;
}
