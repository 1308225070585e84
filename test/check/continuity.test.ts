/** The pure continuity rules and exact units (src/check/continuity.ts, packages/core/src/money.ts). */
import { describe, expect, it } from 'vitest';
import type { TransactionId } from '@bankdata/core/schemas';
import { findSnapshotBreaks, RunningBalanceWalk, type BookedRow, type Snapshot } from '../../src/check/continuity';
import { formatUnits, formatUnitsGrouped, toMinor, toUnits, unitsPerMinor } from '@bankdata/core/money';

const snap = (dateTime: string, units: string, between: string, late = '0'): Snapshot => ({
  dateTime,
  units: toUnits(units),
  betweenUnits: toUnits(between),
  lateUnits: toUnits(late),
});

describe('exact units', () => {
  it('reads signed decimals with up to 5 fraction digits exactly and writes them back per currency', () => {
    expect(toUnits('-142.5')).toBe(-14_250_000n);
    expect(toUnits('0.04166')).toBe(4166n);
    expect(formatUnits(toUnits('-142.5'), 'NZD')).toBe('-142.50');
    expect(formatUnits(toUnits('0.04166'), 'USD')).toBe('0.04166');
    expect(formatUnits(toUnits('1250'), 'JPY')).toBe('1250');
    expect(formatUnits(toUnits('-0.00'), 'NZD')).toBe('0.00');
    expect(formatUnitsGrouped(toUnits('-1234567.5'), 'NZD')).toBe('-1,234,567.50');
    expect(toMinor(toUnits('-12.34'), 'NZD')).toBe(-1234);
    expect(toMinor(toUnits('0.00125'), 'NZD')).toBeNull();
    expect(unitsPerMinor('JPY')).toBe(100_000n);
    expect(() => toUnits('1.234567')).toThrow(RangeError);
    expect(() => toUnits('1e3')).toThrow(RangeError);
  });
});

describe('findSnapshotBreaks', () => {
  it('finds nothing when every balance moves by the rows between', () => {
    expect(
      findSnapshotBreaks([snap('a', '100', '0'), snap('b', '70', '-30'), snap('c', '70.00001', '0.00001')]),
    ).toEqual([]);
  });

  it('names the pair of balances a missing row lies between, with its amount', () => {
    const breaks = findSnapshotBreaks([
      snap('a', '100', '0'),
      snap('b', '70', '-30'),
      snap('c', '50', '0'),
      snap('d', '50', '0'),
    ]);
    expect(breaks).toEqual([{ from: 1, to: 2, units: toUnits('-20') }]);
  });

  it('does not call a row posted late with an earlier booking date a break', () => {
    // b was read before the -30 row was posted; the row (booked before b) was first seen after c was read.
    const breaks = findSnapshotBreaks([snap('a', '100', '0'), snap('b', '100', '-30', '-30'), snap('c', '70', '0')]);
    expect(breaks).toEqual([]);
  });

  it('takes a break at a balance with rows posted late without those rows, and goes on from there', () => {
    // A +20 row booked before b, posted after b and c were read; a +50 row between b and c never served.
    const breaks = findSnapshotBreaks([
      snap('a', '1000', '0'),
      snap('b', '1000', '20', '20'),
      snap('c', '1050', '0', '20'),
      snap('d', '1070', '0'),
    ]);
    expect(breaks).toEqual([{ from: 1, to: 2, units: toUnits('50') }]);
  });

  it('reports both edges of a balance that was off for one reading', () => {
    const breaks = findSnapshotBreaks([snap('a', '100', '0'), snap('b', '105', '0'), snap('c', '100', '0')]);
    expect(breaks).toEqual([
      { from: 0, to: 1, units: toUnits('5') },
      { from: 1, to: 2, units: toUnits('-5') },
    ]);
  });
});

describe('RunningBalanceWalk', () => {
  const row = (id: string, at: string, amount: string, balance: string | null): BookedRow => ({
    transactionId: id as TransactionId,
    bookingDateTime: at,
    bookingDate: at.slice(0, 10),
    units: toUnits(amount),
    balanceAfter: balance === null ? null : toUnits(balance),
  });

  it('chains rows of one instant in the order their balances follow, whatever their ids', () => {
    const walk = new RunningBalanceWalk(null);
    for (const r of [
      row('t1', '2025-01-01', '10', '10'),
      row('t3', '2025-01-02', '-4', '1'),
      row('t2', '2025-01-02', '-5', '5'),
    ])
      walk.push(r);
    expect(walk.finish()).toEqual([]);
  });

  it('finds a gap, a repeated row, and restarts after a row without a balance', () => {
    const walk = new RunningBalanceWalk(null);
    const rows = [
      row('t1', '2025-01-01', '10', '10'),
      row('t2', '2025-01-03', '5', '35'), // a +20 row is missing before it
      row('t2-dup', '2025-01-03', '5', '35'),
      row('t3', '2025-01-04', '1', null),
      row('t4', '2025-01-05', '1', '99'),
    ];
    for (const r of rows) walk.push(r);
    const breaks = walk.finish();
    expect(
      breaks.map((b) => [b.before.transactionId, b.row.transactionId, formatUnits(b.units, 'NZD'), b.repeats]),
    ).toEqual([
      ['t1', 't2', '20.00', false],
      ['t2', 't2-dup', '-5.00', true],
    ]);
  });

  it('does not judge rows booked after the settle horizon', () => {
    const walk = new RunningBalanceWalk('2025-01-02');
    for (const r of [row('t1', '2025-01-01', '10', '10'), row('t2', '2025-01-03', '5', '35')]) walk.push(r);
    expect(walk.finish()).toEqual([]);
  });
});
