/**
 * The pure rules of src/sync/statements-due.ts and windows.ts `lookbackDaysFor`: when a statement
 * after the newest held can exist (its period in calendar months or days, the bank's creation
 * delay), when the list is due, and the look-back a dense account is given.
 */
import { describe, expect, it } from 'vitest';
import { DateTime } from 'luxon';
import { listsWhole, nextPeriodEnd, statementListDue } from '../../src/sync/statements-due';
import { lookbackDaysFor } from '../../src/sync/windows';

const nz = (iso: string) => DateTime.fromISO(iso, { zone: 'Pacific/Auckland' }).toUTC();
const stored = (iso: string) => nz(iso).toISO()!;
/** February 2026 as the emulator issues it: 1 Feb 00:00 to 28 Feb 23:59:59, created 1 March 06:00 NZ. */
const FEBRUARY = {
  type: 'RegularPeriodic',
  start: stored('2026-02-01T00:00:00'),
  end: stored('2026-02-28T23:59:59'),
  created: stored('2026-03-01T06:00:00'),
};

describe('nextPeriodEnd', () => {
  it('a monthly statement: the next month ends, plus the bank’s creation delay (1 April 06:00:01 NZ)', () => {
    expect(nextPeriodEnd(FEBRUARY)!.toMillis()).toBe(nz('2026-04-01T06:00:01').toMillis());
  });

  it('a month a bank stamps in UTC (1 Jan 00:00Z to 31 Jan 23:59:59Z): the next month in UTC ends, plus its delay', () => {
    // In NZ's days that is 1 January to 1 February, 32 days: February's statement would wait
    // until 6 March, though the bank creates it on 1 March at 06:00Z.
    const january = {
      type: 'RegularPeriodic',
      start: '2026-01-01T00:00:00.000Z',
      end: '2026-01-31T23:59:59.000Z',
      created: '2026-02-01T06:00:00.000Z',
    };
    expect(nextPeriodEnd(january)!.toISO()).toBe('2026-03-01T06:00:01.000Z');
  });

  it('a quarter: three calendar months on; a 14-day period: 14 days on; no delay when created at the end', () => {
    const quarter = {
      type: 'RegularPeriodic',
      start: stored('2026-01-01T00:00:00'),
      end: stored('2026-03-31T23:59:59'),
      created: stored('2026-03-31T23:59:59'),
    };
    expect(nextPeriodEnd(quarter)!.toMillis()).toBe(nz('2026-07-01T00:00:00').toMillis());
    const fortnight = {
      type: 'Interim',
      start: stored('2026-03-02T00:00:00'),
      end: stored('2026-03-16T00:00:00'),
      created: stored('2026-03-15T12:00:00'),
    };
    expect(nextPeriodEnd(fortnight)!.toMillis()).toBe(nz('2026-03-30T00:00:00').toMillis());
  });
});

describe('statementListDue', () => {
  const base = {
    full: false,
    newest: FEBRUARY,
    safetyDays: 31,
    lastListedAt: stored('2026-03-10T10:00:00'),
    lastWholeAt: stored('2026-03-10T10:00:00'),
  };

  it('is due with --full and on the first listing', () => {
    expect(statementListDue({ ...base, now: nz('2026-03-11T10:00:00'), full: true })).toEqual({
      due: true,
      reason: 'full',
    });
    expect(statementListDue({ ...base, now: nz('2026-03-11T10:00:00'), lastListedAt: null })).toEqual({
      due: true,
      reason: 'first listing',
    });
  });

  it('is not due before the next statement can exist, and due from then until it is held', () => {
    const before = statementListDue({ ...base, now: nz('2026-04-01T02:00:00') });
    expect(before.due).toBe(false);
    expect(statementListDue({ ...base, now: nz('2026-04-01T10:00:00') })).toEqual({
      due: true,
      reason: 'new statement can exist',
    });
    // Listed on 1 April and still not there: asked again the next night.
    expect(
      statementListDue({ ...base, lastListedAt: stored('2026-04-01T10:00:00'), now: nz('2026-04-02T10:00:00') }),
    ).toEqual({ due: true, reason: 'new statement can exist' });
  });

  it('counts the safety interval from the last whole listing, not from the listings a new period brings', () => {
    // Listed whole on 10 March; on 1 April from the newest on (March's statement then held): whole
    // again from 00:00 NZ on 10 April, though the next statement cannot exist before 1 May.
    const march = {
      type: 'RegularPeriodic',
      start: stored('2026-03-01T00:00:00'),
      end: stored('2026-03-31T23:59:59'),
      created: stored('2026-04-01T06:00:00'),
    };
    const since = { ...base, newest: march, lastListedAt: stored('2026-04-01T10:00:00') };
    expect(statementListDue({ ...since, now: nz('2026-04-09T23:59:59') })).toEqual({
      due: false,
      nextAt: nz('2026-04-10T00:00:00').toUTC(),
    });
    const due = statementListDue({ ...since, now: nz('2026-04-10T00:00:00') });
    expect(due).toEqual({ due: true, reason: 'safety interval' });
    // A nightly run that reaches the account a few seconds earlier in the day than the last whole
    // listing lists it that night, not the next.
    expect(statementListDue({ ...since, now: nz('2026-04-10T09:59:55') })).toEqual(due);
    // A database from before the whole listing was recorded: whole once at once (an interval
    // counted from the listings a new period brings would keep moving: months without one).
    expect(statementListDue({ ...since, lastWholeAt: null, now: nz('2026-04-02T10:00:00') })).toEqual({
      due: true,
      reason: 'safety interval',
    });
  });

  it('lists the whole list but when a new statement can exist (that one starts after the newest held)', () => {
    expect(
      (['full', 'first listing', 'safety interval', 'new statement can exist'] as const).map((r) => listsWhole(r)),
    ).toEqual([true, true, true, false]);
  });

  it('an account without statements: listed again only after the safety interval', () => {
    const none = { ...base, newest: null };
    expect(statementListDue({ ...none, now: nz('2026-04-09T10:00:00') }).due).toBe(false);
    expect(statementListDue({ ...none, now: nz('2026-04-10T10:00:00') })).toEqual({
      due: true,
      reason: 'safety interval',
    });
  });
});

describe('lookbackDaysFor', () => {
  const watermark = nz('2026-03-10T10:00:00');
  const now = nz('2026-03-11T10:00:00');
  const base = { lookbackDays: 14, minLookbackDays: 3, pageSize: 50, watermark, now };
  /** `perDay` rows at noon of each of the 14 NZ days before the watermark. */
  const held = (perDay: number) =>
    Array.from({ length: 14 * perDay }, (_, i) =>
      watermark
        .setZone('Pacific/Auckland')
        .minus({ days: 14 - Math.floor(i / perDay) })
        .set({ hour: 12 })
        .toMillis(),
    ).sort((a, b) => a - b);

  it('keeps the full look-back where one page holds the night, and for an account of unknown density', () => {
    expect(lookbackDaysFor({ ...base, rowsPerDay: 1, heldRows: held(1) })).toBe(14);
    expect(lookbackDaysFor({ ...base, rowsPerDay: null, heldRows: held(10) })).toBe(14);
  });

  it('shortens it for a dense account to what 85% of a page holds, never below the minimum', () => {
    // 5 rows a day: 5 expected since the watermark, so at most 37 held: 7 days.
    expect(lookbackDaysFor({ ...base, rowsPerDay: 5, heldRows: held(5) })).toBe(7);
    expect(lookbackDaysFor({ ...base, rowsPerDay: 40, heldRows: held(40).slice(-51) })).toBe(3);
  });
});
