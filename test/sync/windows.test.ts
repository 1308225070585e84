import { describe, expect, it } from 'vitest';
import { DateTime } from 'luxon';
import { formatNz, toInstant } from '@bankdata/core/nz-time';
import {
  planWindows,
  readRanges,
  splitWindow,
  syncRange,
  takeWindow,
  windowSpanDays,
  type DateWindow,
} from '../../src/sync/windows';

const at = (iso: string): DateTime => toInstant(iso);
const show = (w: DateWindow): [string, string] => [formatNz(w.from), formatNz(w.to)];
const hours = (w: DateWindow): number => w.to.diff(w.from, 'hours').hours;

describe('syncRange', () => {
  const base = {
    consentStart: '2024-06-01T10:00:00+12:00',
    maxHistoryDays: null,
    now: '2025-03-04T12:00:00+13:00',
    lookbackDays: 14,
  };

  it('first run starts at the floor, the latest of consent start, now − max_history_days and sync.floor', () => {
    expect(syncRange(base)).toEqual({
      floor: at('2024-06-01T10:00:00+12:00'),
      ceiling: at('2025-03-04T12:00:00+13:00'),
      start: at('2024-06-01T10:00:00+12:00'),
      backfill: null,
    });
    const history = syncRange({ ...base, maxHistoryDays: 90 })!;
    expect(formatNz(history.floor)).toBe('2024-12-04T12:00:00+13:00');
    expect(history.start).toEqual(history.floor);
    const configured = syncRange({ ...base, maxHistoryDays: 365, configFloor: '2025-01-15' })!;
    expect(formatNz(configured.floor)).toBe('2025-01-15T00:00:00+13:00');
  });

  it('max_history_days across a DST change never reaches the hour the bank dropped', () => {
    // 30 days before 2025-04-10 12:00 NZST crosses the April change: calendar days give
    // 2025-03-11 12:00+13:00 (23:00Z), 24-hour days give 2025-03-11 13:00+13:00 (00:00Z). Later wins.
    const r = syncRange({ ...base, now: '2025-04-10T12:00:00+12:00', maxHistoryDays: 30 })!;
    expect(formatNz(r.floor)).toBe('2025-03-11T13:00:00+13:00');
  });

  it('ceiling is the earlier of the consent end and now, so to is never after today (BDT238)', () => {
    const ended = syncRange({ ...base, consentEnd: '2025-02-01T00:00:00+13:00' })!;
    expect(formatNz(ended.ceiling)).toBe('2025-02-01T00:00:00+13:00');
    const open = syncRange({ ...base, consentEnd: '2026-01-01T00:00:00+13:00' })!;
    expect(formatNz(open.ceiling)).toBe('2025-03-04T12:00:00+13:00');
  });

  it('rounds to whole seconds inward: floor up, ceiling down', () => {
    const r = syncRange({ ...base, now: '2025-03-04T12:00:00.700+13:00', maxHistoryDays: 10 })!;
    expect(formatNz(r.ceiling)).toBe('2025-03-04T12:00:00+13:00');
    expect(formatNz(r.floor)).toBe('2025-02-22T12:00:01+13:00');
  });

  it('later runs start at the watermark minus lookbackDays, in NZ calendar days', () => {
    const r = syncRange({ ...base, now: '2025-04-12T09:00:00+12:00', watermark: '2025-04-10T00:00:00+12:00' })!;
    // 14 NZ days back crosses the end of DST: same wall clock, other offset.
    expect(formatNz(r.start)).toBe('2025-03-27T00:00:00+13:00');
  });

  it("later runs start at 00:00 NZ of the oldest open pending row's day when it is earlier than the lookback (its booked row may be dated by that day, docs/bank-api.md §6.4)", () => {
    const r = syncRange({
      ...base,
      watermark: '2025-03-04T00:00:00+13:00',
      oldestOpenPending: '2025-01-20T08:31:12+13:00',
    })!;
    expect(formatNz(r.start)).toBe('2025-01-20T00:00:00+13:00');
    // An instant late in the UTC day: the NZ day is the next one.
    const utcLate = syncRange({
      ...base,
      watermark: '2025-03-04T00:00:00+13:00',
      oldestOpenPending: '2025-01-20T20:31:12Z',
    })!;
    expect(formatNz(utcLate.start)).toBe('2025-01-21T00:00:00+13:00');
    const later = syncRange({
      ...base,
      watermark: '2025-03-04T00:00:00+13:00',
      oldestOpenPending: '2025-03-03T08:31:12+13:00',
    })!;
    expect(formatNz(later.start)).toBe('2025-02-18T00:00:00+13:00');
  });

  it('passes over an open pending row before the floor: no fetch reaches it, and it would hold the start there', () => {
    // sync.floor set after the row was stored: each night would read again from the floor.
    const r = syncRange({
      ...base,
      configFloor: '2025-02-01',
      watermark: '2025-03-04T00:00:00+13:00',
      oldestOpenPending: '2025-01-20T08:31:12+13:00',
    })!;
    expect(formatNz(r.start)).toBe('2025-02-18T00:00:00+13:00');
  });

  it('--since moves the start earlier, clamped to the floor, never later', () => {
    const watermark = '2025-03-04T00:00:00+13:00';
    expect(formatNz(syncRange({ ...base, watermark, since: '2025-01-02' })!.start)).toBe('2025-01-02T00:00:00+13:00');
    expect(syncRange({ ...base, watermark, since: '2020-01-01' })!.start).toEqual(at(base.consentStart));
    expect(formatNz(syncRange({ ...base, watermark, since: '2025-03-01' })!.start)).toBe('2025-02-18T00:00:00+13:00');
  });

  it('--full starts at the floor whatever the watermark', () => {
    const r = syncRange({ ...base, watermark: '2025-03-04T00:00:00+13:00', full: true })!;
    expect(r.start).toEqual(r.floor);
  });

  it('never starts before the floor, even when the lookback reaches past it', () => {
    const r = syncRange({
      ...base,
      consentStart: '2025-03-01T15:00:00+13:00',
      watermark: '2025-03-02T00:00:00+13:00',
    })!;
    expect(formatNz(r.start)).toBe('2025-03-01T15:00:00+13:00');
  });

  it('is null when the consent ended before its history floor (nothing to fetch)', () => {
    expect(syncRange({ ...base, consentEnd: '2024-10-01T00:00:00+13:00', maxHistoryDays: 90 })).toBeNull();
    expect(syncRange({ ...base, consentEnd: '2024-10-01T00:00:00+13:00', configFloor: '2024-11-01' })).toBeNull();
  });

  it('rejects a negative lookback or a zero max_history_days', () => {
    expect(() => syncRange({ ...base, watermark: base.now, lookbackDays: -1 })).toThrow(RangeError);
    expect(() => syncRange({ ...base, maxHistoryDays: 0 })).toThrow(RangeError);
  });
});

describe('syncRange: the floor moved earlier than the one reached (backfill)', () => {
  const base = {
    consentStart: '2024-06-01T10:00:00+12:00',
    maxHistoryDays: null,
    now: '2025-03-04T12:00:00+13:00',
    lookbackDays: 14,
    watermark: '2025-03-03T02:00:00+13:00',
  };
  const shown = (ranges: ReturnType<typeof readRanges>) =>
    ranges.map((r) => [formatNz(r.from), formatNz(r.to), r.usual ? 'usual' : 'backfill']);

  it('reads [floor, floor reached] before the usual range when max_history_days became null', () => {
    const r = syncRange({ ...base, floorReached: '2025-02-02T12:00:00+13:00' })!;
    expect(formatNz(r.floor)).toBe('2024-06-01T10:00:00+12:00');
    expect(shown(readRanges(r))).toEqual([
      ['2024-06-01T10:00:00+12:00', '2025-02-02T12:00:00+13:00', 'backfill'],
      ['2025-02-17T02:00:00+13:00', '2025-03-04T12:00:00+13:00', 'usual'],
    ]);
  });

  it('reads from a lowered sync.floor; nothing more when the floor did not move earlier', () => {
    const lowered = syncRange({ ...base, configFloor: '2025-01-01', floorReached: '2025-02-01T00:00:00+13:00' })!;
    expect(shown(readRanges(lowered))[0]).toEqual([
      '2025-01-01T00:00:00+13:00',
      '2025-02-01T00:00:00+13:00',
      'backfill',
    ]);
    // The floor reached is the floor (a nightly), or earlier (max_history_days slides the floor later).
    for (const floorReached of ['2025-01-01T00:00:00+13:00', '2024-12-01T00:00:00+13:00']) {
      const r = syncRange({ ...base, configFloor: '2025-01-01', floorReached })!;
      expect(r.backfill).toBeNull();
      expect(shown(readRanges(r))).toEqual([['2025-02-17T02:00:00+13:00', '2025-03-04T12:00:00+13:00', 'usual']]);
    }
    expect(syncRange({ ...base, maxHistoryDays: 30, floorReached: '2024-06-01T10:00:00+12:00' })!.backfill).toBeNull();
  });

  it('one range from the floor when the backfill meets the usual range', () => {
    const r = syncRange({ ...base, configFloor: '2025-01-01', floorReached: '2025-02-20T00:00:00+13:00' })!;
    expect(shown(readRanges(r))).toEqual([['2025-01-01T00:00:00+13:00', '2025-03-04T12:00:00+13:00', 'usual']]);
  });

  it('an ended consent read no more (settled) reads only the backfill, never past its end', () => {
    const ended = { ...base, consentEnd: '2025-02-10T00:00:00+13:00', watermark: '2025-02-10T00:00:00+13:00' };
    const r = syncRange({ ...ended, configFloor: '2025-01-01', floorReached: '2025-03-01T00:00:00+13:00' })!;
    expect(shown(readRanges(r, true))).toEqual([
      ['2025-01-01T00:00:00+13:00', '2025-02-10T00:00:00+13:00', 'backfill'],
    ]);
    expect(readRanges(syncRange({ ...ended, floorReached: '2024-06-01T10:00:00+12:00' })!, true)).toEqual([]);
  });
});

describe('planWindows', () => {
  it('tiles the range on NZ midnights, first from the start instant, last to the ceiling', () => {
    const windows = planWindows({
      start: at('2025-03-10T14:30:00+13:00'),
      ceiling: at('2025-05-02T09:00:00+12:00'),
      windowDays: 31,
    });
    expect(windows.map(show)).toEqual([
      ['2025-03-10T14:30:00+13:00', '2025-04-10T00:00:00+12:00'],
      ['2025-04-10T00:00:00+12:00', '2025-05-02T09:00:00+12:00'],
    ]);
  });

  it('gives the last Sunday of September (DST starts) a 23-hour window', () => {
    const windows = planWindows({
      start: at('2025-09-27T00:00:00+12:00'),
      ceiling: at('2025-09-30T00:00:00+13:00'),
      windowDays: 1,
    });
    expect(windows.map(show)).toEqual([
      ['2025-09-27T00:00:00+12:00', '2025-09-28T00:00:00+12:00'],
      ['2025-09-28T00:00:00+12:00', '2025-09-29T00:00:00+13:00'],
      ['2025-09-29T00:00:00+13:00', '2025-09-30T00:00:00+13:00'],
    ]);
    expect(windows.map(hours)).toEqual([24, 23, 24]);
  });

  it('gives the first Sunday of April (DST ends) a 25-hour window', () => {
    const windows = planWindows({
      start: at('2025-04-05T00:00:00+13:00'),
      ceiling: at('2025-04-08T00:00:00+12:00'),
      windowDays: 1,
    });
    expect(windows.map(hours)).toEqual([24, 25, 24]);
    expect(show(windows[1]!)).toEqual(['2025-04-06T00:00:00+13:00', '2025-04-07T00:00:00+12:00']);
  });

  it('a multi-day window spanning a DST change still ends on an NZ midnight', () => {
    const [first] = planWindows({
      start: at('2026-09-20T00:00:00+12:00'),
      ceiling: at('2026-10-30T00:00:00+13:00'),
      windowDays: 14,
    });
    expect(show(first!)).toEqual(['2026-09-20T00:00:00+12:00', '2026-10-04T00:00:00+13:00']);
  });

  it('a range of one instant is one window; a start after the ceiling plans nothing', () => {
    const t = at('2025-03-04T12:00:00+13:00');
    expect(planWindows({ start: t, ceiling: t, windowDays: 31 })).toEqual([{ from: t, to: t }]);
    expect(planWindows({ start: t.plus({ seconds: 1 }), ceiling: t, windowDays: 31 })).toEqual([]);
  });

  it('does not add an empty window when the ceiling falls on a boundary', () => {
    const windows = planWindows({
      start: at('2025-03-01T00:00:00+13:00'),
      ceiling: at('2025-03-03T00:00:00+13:00'),
      windowDays: 1,
    });
    expect(windows).toHaveLength(2);
  });

  it('takeWindow refuses a window size below one day', () => {
    const t = at('2025-03-04T12:00:00+13:00');
    expect(() => takeWindow({ from: t, ceiling: t, windowDays: 0 })).toThrow(RangeError);
    expect(() => takeWindow({ from: t, ceiling: t, windowDays: 1.5 })).toThrow(RangeError);
  });
});

describe('splitWindow (BDT263)', () => {
  it('halves a window on the NZ midnight nearest its middle', () => {
    const split = splitWindow({ from: at('2025-01-01T00:00:00+13:00'), to: at('2025-02-01T00:00:00+13:00') })!;
    expect(split.map(show)).toEqual([
      ['2025-01-01T00:00:00+13:00', '2025-01-16T00:00:00+13:00'],
      ['2025-01-16T00:00:00+13:00', '2025-02-01T00:00:00+13:00'],
    ]);
  });

  it('splits a partial day at each end on the midnight between them', () => {
    const split = splitWindow({ from: at('2025-03-03T10:00:00+13:00'), to: at('2025-03-04T05:00:00+13:00') })!;
    expect(split.map(show)).toEqual([
      ['2025-03-03T10:00:00+13:00', '2025-03-04T00:00:00+13:00'],
      ['2025-03-04T00:00:00+13:00', '2025-03-04T05:00:00+13:00'],
    ]);
  });

  it('cannot split one NZ day, even the 25-hour first Sunday of April: a failed unit', () => {
    expect(splitWindow({ from: at('2025-04-06T00:00:00+13:00'), to: at('2025-04-07T00:00:00+12:00') })).toBeNull();
    expect(splitWindow({ from: at('2025-09-28T00:00:00+12:00'), to: at('2025-09-29T00:00:00+13:00') })).toBeNull();
  });

  it('cannot split a partial day at either end', () => {
    expect(splitWindow({ from: at('2025-03-03T10:00:00+13:00'), to: at('2025-03-04T00:00:00+13:00') })).toBeNull();
    expect(splitWindow({ from: at('2025-03-04T00:00:00+13:00'), to: at('2025-03-04T12:00:00+13:00') })).toBeNull();
    expect(splitWindow({ from: at('2025-03-04T09:00:00+13:00'), to: at('2025-03-04T12:00:00+13:00') })).toBeNull();
  });

  it('splits the weekend of the last Sunday of September on its Sunday midnight', () => {
    const split = splitWindow({ from: at('2025-09-27T00:00:00+12:00'), to: at('2025-09-29T00:00:00+13:00') })!;
    expect(split.map(show)).toEqual([
      ['2025-09-27T00:00:00+12:00', '2025-09-28T00:00:00+12:00'],
      ['2025-09-28T00:00:00+12:00', '2025-09-29T00:00:00+13:00'],
    ]);
  });
});

describe('windowSpanDays', () => {
  it('counts the NZ days a window touches; a midnight end is the shared boundary', () => {
    expect(windowSpanDays({ from: at('2025-01-01T00:00:00+13:00'), to: at('2025-02-01T00:00:00+13:00') })).toBe(31);
    expect(windowSpanDays({ from: at('2025-01-01T10:00:00+13:00'), to: at('2025-01-02T05:00:00+13:00') })).toBe(2);
    expect(windowSpanDays({ from: at('2025-04-06T00:00:00+13:00'), to: at('2025-04-07T00:00:00+12:00') })).toBe(1);
  });
});
