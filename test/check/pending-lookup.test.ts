/**
 * The check's pending-row rule (docs/continuity.md, cause `pending_row`): a break is explained by a
 * pending row of exactly its amount booked from three days before the break's start to its end,
 * both ends included. The edges, one millisecond either side.
 */
import { describe, expect, it } from 'vitest';
import { pendingLookup } from '../../src/check/check-accounts';

const FROM = '2026-03-10T00:00:00.000Z';
const TO = '2026-03-12T00:00:00.000Z';
const range = { from: FROM, to: TO, scale: 1000n, units: -4_250_000n };

const at = (bookingDateTime: string, units = range.units) => pendingLookup([{ bookingDateTime, units }]);

describe('the pending-row rule', () => {
  it('holds a pending row booked exactly three days before the start, and not one millisecond earlier', () => {
    expect(at('2026-03-07T00:00:00.000Z')(range)).toBe(true);
    expect(at('2026-03-06T23:59:59.999Z')(range)).toBe(false);
  });

  it('holds a pending row booked at the end, and not one millisecond after', () => {
    expect(at(TO)(range)).toBe(true);
    expect(at('2026-03-12T00:00:00.001Z')(range)).toBe(false);
  });

  it('wants the exact amount: a unit more or the opposite sign is another amount', () => {
    expect(at('2026-03-11T00:00:00.000Z', range.units + 1n)(range)).toBe(false);
    expect(at('2026-03-11T00:00:00.000Z', -range.units)(range)).toBe(false);
  });

  it('finds the one row in range among many of that amount outside it, whatever order they come in', () => {
    const rows = ['2026-04-01T00:00:00.000Z', '2026-03-11T12:00:00.000Z', '2026-01-01T00:00:00.000Z'].map(
      (bookingDateTime) => ({ bookingDateTime, units: range.units }),
    );
    expect(pendingLookup(rows)(range)).toBe(true);
    expect(pendingLookup(rows.filter((r) => !r.bookingDateTime.startsWith('2026-03')))(range)).toBe(false);
    expect(pendingLookup([])(range)).toBe(false);
  });
});
