/**
 * `addNzDays` and `nzDaysBetween` count plain calendar days without luxon for valid dates
 * (packages/core/src/nz-time.ts `calendarDay`): every answer equals luxon's over NZ midnights, across
 * daylight-saving changes, month and year ends and leap days; invalid dates still throw.
 */
import fc from 'fast-check';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { addNzDays, nzDaysBetween } from '../src/nz-time';

const NZ = 'Pacific/Auckland';
const luxonAdd = (date: string, days: number) =>
  DateTime.fromISO(date, { zone: NZ }).startOf('day').plus({ days }).toISODate();
const luxonBetween = (from: string, to: string) =>
  Math.round(
    DateTime.fromISO(to, { zone: NZ })
      .startOf('day')
      .diff(DateTime.fromISO(from, { zone: NZ }).startOf('day'), 'days').days,
  );

const dates = fc
  .date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2300-12-31T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));

describe('NZ calendar days without luxon', () => {
  it('adds days as luxon does, DST changes, month ends and leap days included', () => {
    fc.assert(
      fc.property(dates, fc.integer({ min: -1000, max: 1000 }), (date, days) => {
        expect(addNzDays(date, days)).toBe(luxonAdd(date, days));
      }),
      { numRuns: 2000 },
    );
    for (const [date, days, want] of [
      ['2024-02-28', 1, '2024-02-29'],
      ['2023-02-28', 1, '2023-03-01'],
      ['2025-04-05', 1, '2025-04-06'], // NZ daylight saving ends on 6 April 2025
      ['2025-09-27', 1, '2025-09-28'], // and starts on 28 September 2025
      ['2025-12-31', 1, '2026-01-01'],
      ['2026-03-01', -1, '2026-02-28'],
    ] as const) {
      expect(addNzDays(date, days)).toBe(want);
    }
  });

  it('counts the days between two dates as luxon does', () => {
    fc.assert(
      fc.property(dates, dates, (from, to) => {
        expect(nzDaysBetween(from, to)).toBe(luxonBetween(from, to));
      }),
      { numRuns: 2000 },
    );
    expect(nzDaysBetween('2025-04-05', '2025-04-07')).toBe(2);
    expect(nzDaysBetween('2025-09-28', '2025-09-27')).toBe(-1);
  });

  it('still refuses what is not a date', () => {
    for (const bad of ['2025-02-30', '2025-13-01', '2025-1-01', '20250101', 'not a date', '']) {
      expect(() => addNzDays(bad, 1), bad).toThrow(RangeError);
      expect(() => nzDaysBetween(bad, '2025-01-01'), bad).toThrow(RangeError);
    }
  });
});
