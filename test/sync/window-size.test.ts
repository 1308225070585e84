/**
 * `chooseWindowDays` (src/sync/windows.ts; docs/bank-api.md BDT263): the next transaction window
 * is sized from what the bank taught (the fewest rows it refused, the most it accepted) and the
 * account's rows per day, aiming at TARGET_FILL of the limit, the rest spread evenly, always
 * within the configured [minDays, maxDays].
 */
import { describe, expect, it } from 'vitest';
import { chooseWindowDays, TARGET_FILL } from '../../src/sync/windows';

const base = {
  rowsPerDay: null,
  maxAcceptedRows: null,
  minRefusedRows: null,
  remainingDays: 1000,
  minDays: 1,
  maxDays: 366,
};

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
});
