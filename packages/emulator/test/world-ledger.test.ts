import { describe, expect, it } from 'vitest';
import { DateTime } from 'luxon';
import { formatNz } from '@bankdata/core/nz-time';
import type { Transaction } from '@bankdata/core/schemas';
import { generateWorld } from '../src/world';
import { NzCalendar } from '../src/generator/nz-calendar';
import { formatWireAmount, fromMinor } from '../src/generator/amount-units';
import { START, accountsOf, instants, ms, rowUnits, sandboxWorld, signedUnits } from './world-fixtures';

const world = sandboxWorld();
const FAR = START.plus({ days: 75 }); // past the horizon: everything booked is visible, nothing pending

/** The balance before the first row: the oldest booked row's Balance minus its own amount. */
function openingOf(rows: Transaction[]): bigint {
  const booked = rows.filter((t) => t.Status === 'Booked');
  const oldest = booked[booked.length - 1]!;
  return signedUnits(oldest.Balance!.Amount.Amount, oldest.Balance!.CreditDebitIndicator) - rowUnits(oldest);
}

describe('transactionsAt: what the bank shows at an instant', () => {
  it('sorts BookingDateTime descending, then TransactionId (docs/bank-api.md §1.4)', () => {
    for (const { bank, account } of accountsOf(world)) {
      const rows = world.transactionsAt(bank, account.AccountId, START);
      for (let i = 1; i < rows.length; i++) {
        const a = rows[i - 1]!;
        const b = rows[i]!;
        const order = ms(b.BookingDateTime) - ms(a.BookingDateTime) || (a.TransactionId < b.TransactionId ? -1 : 1);
        expect(order).toBeLessThan(0);
      }
    }
  });

  it('with a booking range, exactly the rows of the whole answer booked within it, in its order (both ends included)', () => {
    let compared = 0;
    let withPending = 0;
    for (const { bank, account } of accountsOf(world)) {
      for (const at of [START.minus({ days: 200 }), START.minus({ hours: 30 }), START, START.plus({ days: 2 }), FAR]) {
        const all = world.transactionsAt(bank, account.AccountId, at);
        const booked = all.map((t) => Date.parse(t.BookingDateTime));
        // Ranges ending and starting on rows' own instants (pending ones too, all among the newest
        // rows), inside and around the answer.
        const step = Math.max(1, Math.floor(all.length / 12));
        const edges = [
          -Infinity,
          ...booked.slice(0, 8),
          ...booked.filter((_, i) => i % step === 0),
          at.toMillis() - 3_600_000,
          Infinity,
        ];
        for (let i = 0; i < edges.length; i++) {
          for (let j = i; j < edges.length; j += 3) {
            const [fromMs, toMs] = [Math.min(edges[i]!, edges[j]!), Math.max(edges[i]!, edges[j]!)];
            const expected = all.filter((_, k) => booked[k]! >= fromMs && booked[k]! <= toMs);
            const got = world.transactionsAt(bank, account.AccountId, at, { fromMs, toMs });
            if (got.length !== expected.length || got.some((t, k) => t !== expected[k]))
              expect(got.map((t) => t.TransactionId)).toEqual(expected.map((t) => t.TransactionId));
            compared += 1;
            if (expected.some((t) => t.Status === 'Pending')) withPending += 1;
          }
        }
      }
    }
    expect(compared).toBeGreaterThan(1000);
    expect(withPending).toBeGreaterThan(100);
  });

  it('never shows a row booked after `at`, and past the horizon shows no pending rows', () => {
    for (const { bank, account } of accountsOf(world)) {
      const rows = world.transactionsAt(bank, account.AccountId, START);
      expect(rows.every((t) => ms(t.BookingDateTime) <= START.toMillis())).toBe(true);
      expect(world.transactionsAt(bank, account.AccountId, FAR).some((t) => t.Status === 'Pending')).toBe(false);
    }
  });

  it('carries a running Balance on booked rows equal to the previous Balance plus the amount', () => {
    for (const { bank, account } of accountsOf(world)) {
      const newestFirst = world.transactionsAt(bank, account.AccountId, FAR).filter((t) => t.Status === 'Booked');
      // Booking order: BookingDateTime ascending, ids ascending within one instant.
      const booked = newestFirst
        .map((t) => ({ t, at: ms(t.BookingDateTime) }))
        .sort((a, b) => a.at - b.at || (a.t.TransactionId < b.t.TransactionId ? -1 : 1))
        .map(({ t }) => t);
      let balance = openingOf(newestFirst);
      for (const t of booked) {
        balance += rowUnits(t);
        expect(signedUnits(t.Balance!.Amount.Amount, t.Balance!.CreditDebitIndicator)).toBe(balance);
      }
    }
  });

  it('settles pending card rows as the clock moves: most under a new id, some under the same id, some vanish', () => {
    const outcomes = { newId: 0, sameId: 0, vanished: 0 };
    for (const { bank, account } of accountsOf(world)) {
      const later = world.transactionsAt(bank, account.AccountId, FAR);
      const laterById = new Map(later.map((t) => [t.TransactionId, t]));
      for (const at of instants(START.minus({ days: 120 }), 120, 5)) {
        for (const p of world.transactionsAt(bank, account.AccountId, at).filter((t) => t.Status === 'Pending')) {
          expect(ms(p.BookingDateTime)).toBeLessThanOrEqual(at.toMillis());
          expect(p.Balance).toBeUndefined();
          const after = world.transactionsAt(bank, account.AccountId, at.plus({ days: 4 }));
          expect(after.some((t) => t.TransactionId === p.TransactionId && t.Status === 'Pending')).toBe(false);
          const same = laterById.get(p.TransactionId);
          if (same) {
            expect(same.Status).toBe('Booked');
            expect(same.MerchantDetails).toEqual(p.MerchantDetails);
            outcomes.sameId++;
          } else if (
            after.some(
              (t) =>
                t.Status === 'Booked' &&
                t.TransactionId.startsWith('txn-') &&
                t.ValueDateTime?.slice(0, 10) === p.BookingDateTime.slice(0, 10) &&
                t.MerchantDetails?.MerchantName === p.MerchantDetails?.MerchantName &&
                ms(t.BookingDateTime) > at.toMillis(),
            )
          ) {
            outcomes.newId++;
          } else {
            outcomes.vanished++;
          }
        }
      }
    }
    expect(outcomes.newId).toBeGreaterThan(outcomes.sameId);
    expect(outcomes.sameId).toBeGreaterThan(0);
    expect(outcomes.vanished).toBeGreaterThan(0);
  });

  it('shows late rows only a day or two after their BookingDateTime', () => {
    let late = 0;
    for (const { bank, account } of accountsOf(world)) {
      const all = world
        .transactionsAt(bank, account.AccountId, FAR)
        .filter((t) => t.Status === 'Booked')
        .map((t) => ({ id: t.TransactionId, booked: ms(t.BookingDateTime) }));
      for (const at of instants(START.minus({ days: 200 }), 200, 1, 23)) {
        const visible = new Set(world.transactionsAt(bank, account.AccountId, at).map((t) => t.TransactionId));
        for (const { id, booked } of all) {
          if (booked <= at.toMillis() && !visible.has(id)) {
            late++;
            expect(at.toMillis() - booked).toBeLessThan(2 * 86_400_000);
          }
        }
      }
    }
    expect(late).toBeGreaterThan(0);
  });

  it('formats every date-time with the Pacific/Auckland offset of its instant, DST included', () => {
    const offsets = new Set<string>();
    for (const { bank, account } of accountsOf(world)) {
      for (const t of world.transactionsAt(bank, account.AccountId, FAR)) {
        for (const value of [t.BookingDateTime, t.ValueDateTime]) {
          if (!value) continue;
          expect(formatNz(value)).toBe(value);
          offsets.add(value.slice(-6));
        }
      }
    }
    expect([...offsets].sort()).toEqual(['+12:00', '+13:00']);
  });
});

describe('balancesAt', () => {
  it('InterimBooked = opening + booked rows visible at `at`; InterimAvailable adds pending and an included credit line', () => {
    for (const { bank, account } of accountsOf(world)) {
      const opening = openingOf(world.transactionsAt(bank, account.AccountId, FAR));
      for (const at of [START.minus({ days: 200 }), START, START.plus({ hours: 30 })]) {
        const rows = world.transactionsAt(bank, account.AccountId, at);
        const bookedSum = rows.filter((t) => t.Status === 'Booked').reduce((s, t) => s + rowUnits(t), 0n);
        const pendingSum = rows.filter((t) => t.Status === 'Pending').reduce((s, t) => s + rowUnits(t), 0n);
        const [booked, available] = world.balancesAt(bank, account.AccountId, at);
        expect(booked!.Type).toBe('InterimBooked');
        expect(signedUnits(booked!.Amount.Amount, booked!.CreditDebitIndicator)).toBe(opening + bookedSum);
        const line = available!.CreditLine?.[0];
        const limit = line?.Included ? signedUnits(line.Amount!.Amount, 'Credit') : 0n;
        expect(available!.Type).toBe('InterimAvailable');
        expect(signedUnits(available!.Amount.Amount, available!.CreditDebitIndicator)).toBe(
          opening + bookedSum + pendingSum + limit,
        );
        expect(ms(booked!.DateTime)).toBeLessThanOrEqual(at.toMillis());
      }
    }
  });

  it('shows a credit card owing as Debit with its credit limit as a Pre-Agreed CreditLine', () => {
    const card = accountsOf(world).find((a) => a.account.AccountSubType === 'CreditCard')!;
    const balances = world.balancesAt(card.bank, card.account.AccountId, START.minus({ days: 40 }));
    expect(balances[0]!.CreditDebitIndicator).toBe('Debit');
    expect(balances[1]!.CreditLine).toEqual([expect.objectContaining({ Included: true, Type: 'Pre-Agreed' })]);
  });

  it('dates a balance at its latest change, not at `at`: an unchanged balance keeps its DateTime', () => {
    for (const { bank, account } of accountsOf(world)) {
      const [booked] = world.balancesAt(bank, account.AccountId, START);
      const changedAt = DateTime.fromISO(booked!.DateTime, { setZone: true });
      expect(changedAt.toMillis()).toBeLessThan(START.toMillis());
      // One second after the change, and at `at`, the booked balance is the same record.
      expect(world.balancesAt(bank, account.AccountId, changedAt.plus({ seconds: 1 }))[0]).toEqual(booked);
      expect(world.balancesAt(bank, account.AccountId, changedAt.minus({ seconds: 1 }))[0]!.DateTime).not.toBe(
        booked!.DateTime,
      );
    }
  });
});

describe('NzCalendar and money (generator internals)', () => {
  it('formats every hour across two DST changes exactly as formatNz (luxon)', () => {
    const cal = new NzCalendar('2024-03-01', '2025-10-31');
    for (let t = cal.days[0]!.midnightMs; t < cal.days[cal.days.length - 1]!.midnightMs; t += 3_600_000 + 1000) {
      expect(cal.format(t)).toBe(formatNz(t));
    }
    const dstEnd = cal.days.find((d) => d.date === '2024-04-07')!;
    expect(cal.format(cal.wallMs(dstEnd, 12))).toBe('2024-04-07T12:00:00+12:00');
    expect(cal.format(dstEnd.midnightMs)).toBe('2024-04-07T00:00:00+13:00');
    const dstStart = cal.days.find((d) => d.date === '2024-09-29')!;
    expect(cal.format(cal.wallMs(dstStart, 9, 30))).toBe('2024-09-29T09:30:00+13:00');
    expect(cal.format(dstStart.midnightMs)).toBe('2024-09-29T00:00:00+12:00');
  });

  it('formats amounts exactly: fixed minor digits, trimmed, sub-cent, yen', () => {
    expect(formatWireAmount(fromMinor('NZD', 14_250), 'NZD')).toBe('142.50');
    expect(formatWireAmount(fromMinor('NZD', 1_890), 'NZD', 'trimmed')).toBe('18.9');
    expect(formatWireAmount(fromMinor('NZD', 1_800), 'NZD', 'trimmed')).toBe('18');
    expect(formatWireAmount(125n, 'NZD')).toBe('0.00125');
    expect(formatWireAmount(0n, 'NZD')).toBe('0.00');
    expect(formatWireAmount(fromMinor('JPY', 1_250), 'JPY')).toBe('1250');
    expect(formatWireAmount(9_999_999_999_999n * 100_000n + 99_999n, 'NZD')).toBe('9999999999999.99999');
  });
});

describe('generateWorld across a DST change', () => {
  it('books rows before and after 2025-04-06 03:00 NZDT with +13:00 and +12:00', () => {
    const w = generateWorld({
      seed: 2,
      start: DateTime.fromISO('2025-04-10T12:00:00+12:00'),
      banks: ['PNZ'],
      historyDays: 10,
      horizonDays: 0,
    });
    const rows = accountsOf(w).flatMap((a) =>
      w.transactionsAt(a.bank, a.account.AccountId, DateTime.fromISO('2025-04-20T00:00:00+12:00')),
    );
    expect(rows.some((t) => t.BookingDateTime.startsWith('2025-04-05') && t.BookingDateTime.endsWith('+13:00'))).toBe(
      true,
    );
    expect(rows.some((t) => t.BookingDateTime.startsWith('2025-04-07') && t.BookingDateTime.endsWith('+12:00'))).toBe(
      true,
    );
    expect(
      rows
        .filter((t) => t.BookingDateTime.startsWith('2025-04-0'))
        .every((t) => formatNz(t.BookingDateTime) === t.BookingDateTime),
    ).toBe(true);
  });
});
