/**
 * `chooseWindowDays` (src/sync/windows.ts; docs/bank-api.md BDT263): the next transaction window
 * is sized from what the bank taught (the fewest rows it refused, the most it accepted) and the
 * account's rows per day, aiming at TARGET_FILL of the limit, the rest spread evenly, always
 * within the configured [minDays, maxDays].
 */
import { describe, expect, it } from 'vitest';
import { chooseWindowDays, expectedWindowCost, TARGET_FILL } from '../../src/sync/windows';

const base = {
  rowsPerDay: null,
  maxAcceptedRows: null,
  minRefusedRows: null,
  remainingDays: 1000,
  minDays: 1,
  maxDays: 366,
};

/**
 * A chosen window whose expected rows pass TARGET_FILL of the limit, as [limit, rate, days, rows,
 * remainingDays, minDays], or null. The two windows allowed past it: the whole rest in one window
 * when it fits under 95% of the limit itself, and a window of minDays (none is smaller).
 */
function pastFill(input: Parameters<typeof chooseWindowDays>[0], days: number): number[] | null {
  const limit = Math.max((input.minRefusedRows ?? 1) - 1, input.maxAcceptedRows ?? 0, 1);
  const rate = input.rowsPerDay ?? 0;
  if (days * rate <= limit * TARGET_FILL) return null;
  const wholeRest = days === input.remainingDays && rate * input.remainingDays <= limit * 0.95;
  if (wholeRest || days === input.minDays) return null;
  return [limit, rate, days, days * rate, input.remainingDays, input.minDays];
}

describe('chooseWindowDays', () => {
  it('asks for the largest window while no limit or no rate is known (BDT263 will teach it)', () => {
    expect(chooseWindowDays(base)).toBe(366);
    expect(chooseWindowDays({ ...base, rowsPerDay: 10 })).toBe(366);
    expect(chooseWindowDays({ ...base, minRefusedRows: 1001 })).toBe(366);
  });

  it("keeps a window under the bank's limit at the account's rate: the largest refused count less one, filled to TARGET_FILL", () => {
    // limit 1000 rows, 10 rows a day: 85 days a window; 1000 days left spread over 12 windows of 84.
    const days = chooseWindowDays({ ...base, rowsPerDay: 10, minRefusedRows: 1001 });
    expect(TARGET_FILL).toBe(0.85);
    expect(days).toBe(Math.ceil(1000 / Math.ceil(1000 / 85)));
    expect(days * 10).toBeLessThanOrEqual(1000 * TARGET_FILL);
  });

  it('uses the most rows the bank accepted when that is above the refused count less one', () => {
    expect(
      chooseWindowDays({ ...base, rowsPerDay: 10, minRefusedRows: 501, maxAcceptedRows: 2000, remainingDays: 5000 }),
    ).toBe(Math.ceil(5000 / Math.ceil(5000 / Math.floor((2000 * TARGET_FILL) / 10))));
  });

  it('takes the whole rest in one window when it fits under the limit, and never less than minDays', () => {
    expect(chooseWindowDays({ ...base, rowsPerDay: 10, minRefusedRows: 1001, remainingDays: 90 })).toBe(90);
    expect(chooseWindowDays({ ...base, rowsPerDay: 10, minRefusedRows: 1001, remainingDays: 2, minDays: 7 })).toBe(7);
  });

  it('stays within [minDays, maxDays] however dense or sparse the account', () => {
    expect(chooseWindowDays({ ...base, rowsPerDay: 100_000, minRefusedRows: 1001, minDays: 3 })).toBe(3);
    expect(chooseWindowDays({ ...base, rowsPerDay: 0.01, minRefusedRows: 1001, maxDays: 31 })).toBe(31);
    expect(chooseWindowDays({ ...base, rowsPerDay: 0, minRefusedRows: 1001, maxDays: 31 })).toBe(31);
  });

  it('ends a window a margin under a whole number of pages, not a few rows past one (the last page nearly empty)', () => {
    // 6 rows a day under a limit of 120: TARGET_FILL alone gave 17 days, 102 rows, a third page
    // for 2 rows; 15 days expect 90 rows, two pages but for a count 11 rows above the expected.
    const at6 = chooseWindowDays({ ...base, rowsPerDay: 6, minRefusedRows: 121, remainingDays: 400, pageSize: 50 });
    expect(at6 * 6).toBeLessThanOrEqual(92);
    expect(at6 * 6).toBeGreaterThanOrEqual(80);
    // 5.4 rows a day under 150: two pages' worth (18 days, 97 rows), not 23 days (124 rows, three pages and a refusal risk).
    const at54 = chooseWindowDays({ ...base, rowsPerDay: 5.4, minRefusedRows: 151, remainingDays: 400, pageSize: 50 });
    expect(at54 * 5.4).toBeLessThanOrEqual(100);
  });

  it('never expects more requests for the rest of the range than windows filled to TARGET_FILL', () => {
    const remaining = 400;
    const worse: number[][] = [];
    for (const limit of [100, 120, 150, 250, 400, 1000])
      for (let rate = 0.5; rate <= 60; rate *= 1.3) {
        const input = { ...base, rowsPerDay: rate, minRefusedRows: limit + 1, remainingDays: remaining, pageSize: 50 };
        // The rest in windows of `days` (evenly spread): their expected requests in all.
        const total = (days: number) => {
          const windows = Math.ceil(remaining / days);
          return windows * expectedWindowCost((rate * remaining) / windows, limit, 50);
        };
        // The sizing before pages were counted: TARGET_FILL of the limit, at most maxDays, evenly spread.
        const fill = Math.min(base.maxDays, Math.max(1, Math.floor((limit * TARGET_FILL) / rate)));
        const filled =
          rate * remaining <= limit * 0.95 && remaining <= base.maxDays
            ? remaining
            : Math.ceil(remaining / Math.ceil(remaining / fill));
        const chosen = chooseWindowDays(input);
        if (total(chosen) > total(filled) * 1.01)
          worse.push([limit, rate, chosen, filled, total(chosen), total(filled)]);
        const past = pastFill(input, chosen);
        if (past) worse.push(past);
      }
    expect(worse).toEqual([]);
  });

  it('never aims a window past TARGET_FILL of the limit: days × rate ≤ limit × TARGET_FILL in every case of a sweep', () => {
    const past: number[][] = [];
    let cases = 0;
    let whole = 0;
    for (const limit of [10, 100, 120, 150, 250, 400, 1000, 5000])
      for (const maxAccepted of [null, 2 * limit])
        for (let rate = 0.05; rate <= 300; rate *= 1.37)
          for (const remainingDays of [1, 5, 30, 90, 200, 400, 1000])
            for (const [minDays, maxDays] of [
              [1, 366],
              [1, 31],
              [3, 366],
            ] as const)
              for (const pageSize of [25, 50, 100]) {
                const input = {
                  rowsPerDay: rate,
                  maxAcceptedRows: maxAccepted,
                  minRefusedRows: limit + 1,
                  remainingDays,
                  minDays,
                  maxDays,
                  pageSize,
                };
                const days = chooseWindowDays(input);
                cases += 1;
                expect(days).toBeGreaterThanOrEqual(minDays);
                expect(days).toBeLessThanOrEqual(maxDays);
                if (days === remainingDays) whole += 1;
                const over = pastFill(input, days);
                if (over) past.push(over);
              }
    expect(past).toEqual([]);
    // The sweep reaches both sides: windows filled to the limit and the whole rest in one.
    expect(cases).toBeGreaterThan(10_000);
    expect(whole).toBeGreaterThan(0);
    expect(whole).toBeLessThan(cases);
  });

  it('expects the pages a count about its rows fills, and a refusal when it may pass the limit', () => {
    expect(expectedWindowCost(0, 400, 50)).toBeCloseTo(1, 5);
    expect(expectedWindowCost(75, 400, 50)).toBeCloseTo(2, 1);
    // Right at a page boundary: the next page about half the time.
    expect(expectedWindowCost(100, 400, 50)).toBeGreaterThan(2.3);
    expect(expectedWindowCost(100, 400, 50)).toBeLessThan(2.7);
    // Near the limit, the refusal's cost shows.
    expect(expectedWindowCost(118, 120, 50)).toBeGreaterThan(3.5);
  });
});
