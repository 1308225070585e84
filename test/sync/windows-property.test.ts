/**
 * Property tests for window planning: random ranges across the DST changes of 2024–2027, random
 * window sizes, and a simulated bank that answers BDT263 when a window holds more than N of a
 * random set of transaction instants.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DateTime } from 'luxon';
import { checkInsideConsentWindow, checkQueryRange } from '@bankdata/core/consent-rules';
import { nzDateOf, nzMidnight } from '@bankdata/core/nz-time';
import {
  isLastWindow,
  planWindows,
  splitWindow,
  syncRange,
  takeWindow,
  windowSpanDays,
  type DateWindow,
} from '../../src/sync/windows';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const FIRST = Date.parse('2024-01-01T00:00:00Z');
const LAST = Date.parse('2027-12-31T00:00:00Z');
/** NZ DST changes: first Sunday of April (ends), last Sunday of September (starts). */
const DST_CHANGES = [
  '2024-04-07',
  '2024-09-29',
  '2025-04-06',
  '2025-09-28',
  '2026-04-05',
  '2026-09-27',
  '2027-04-04',
  '2027-09-26',
].map((d) => nzMidnight(d).toMillis() + 3 * HOUR);

const utc = (ms: number): DateTime => DateTime.fromMillis(ms, { zone: 'utc' });
const isNzMidnight = (dt: DateTime): boolean => dt.equals(nzMidnight(nzDateOf(dt)).toUTC());

/** An instant anywhere in 2024–2027, or within ten days of a DST change (half the time). */
const instantArb = fc.oneof(
  fc.integer({ min: FIRST, max: LAST }),
  fc
    .tuple(fc.constantFrom(...DST_CHANGES), fc.integer({ min: -10 * DAY, max: 10 * DAY }))
    .map(([change, offset]) => change + offset),
);
/** Whole-second ranges of up to ~200 days, often starting or ending exactly on a midnight. */
const rangeArb = fc
  .record({
    start: instantArb,
    lengthMs: fc.oneof(fc.integer({ min: 0, max: 3 * DAY }), fc.integer({ min: 0, max: 200 * DAY })),
    snapStart: fc.boolean(),
  })
  .map(({ start, lengthMs, snapStart }) => {
    const from = snapStart ? nzMidnight(nzDateOf(start)).toMillis() : Math.floor(start / 1000) * 1000;
    return { start: utc(from), ceiling: utc(from + Math.floor(lengthMs / 1000) * 1000) };
  });

interface Fetched {
  accepted: DateWindow[];
  failed: DateWindow[];
  requests: number;
}

/** The caller's loop: lazy windows of at most `windowDays`, split on refusal. */
function fetchAll(
  start: DateTime,
  ceiling: DateTime,
  windowDays: number,
  refuses: (w: DateWindow) => boolean,
): Fetched {
  const out: Fetched = { accepted: [], failed: [], requests: 0 };
  let from = start;
  const maxRequests = 4 * (windowSpanDays({ from: start, to: ceiling }) + 2);
  for (;;) {
    const planned = takeWindow({ from, ceiling, windowDays });
    const queue: DateWindow[] = [planned];
    while (queue.length > 0) {
      const window = queue.shift()!;
      out.requests += 1;
      // Each planned window of n days is a split tree of at most 2n − 1 requests; more means
      // a split that does not shrink its window (which would loop for ever).
      if (out.requests > maxRequests)
        throw new Error(`no progress splitting ${window.from.toISO()}..${window.to.toISO()}`);
      if (!refuses(window)) {
        out.accepted.push(window);
        continue;
      }
      const halves = splitWindow(window);
      if (halves) queue.unshift(...halves);
      else out.failed.push(window);
    }
    if (isLastWindow(planned, ceiling)) return out;
    from = planned.to;
  }
}

const countIn = (instants: number[], w: DateWindow): number =>
  instants.filter((t) => t >= w.from.toMillis() && t <= w.to.toMillis()).length;

describe('window planning properties', () => {
  it('split on BDT263 covers the range with no gap, stays inside it, and accepts only windows under the limit', () => {
    fc.assert(
      fc.property(
        rangeArb,
        fc.integer({ min: 1, max: 62 }),
        fc.integer({ min: 0, max: 12 }),
        fc.array(fc.integer({ min: 0, max: 1_000_000 }), { maxLength: 120 }),
        fc.array(fc.integer({ min: 0, max: 200 }), { maxLength: 4 }),
        ({ start, ceiling }, windowDays, limit, spread, busyDays) => {
          const span = ceiling.toMillis() - start.toMillis();
          // Transactions spread over the range, plus a few busy days a bank can never serve.
          const instants = [
            ...spread.map((u) => start.toMillis() + Math.floor((u / 1_000_000) * span)),
            ...busyDays.flatMap((d) => {
              const day = nzMidnight(nzDateOf(start.plus({ days: d % Math.max(1, Math.ceil(span / DAY)) }))).toMillis();
              return Array.from({ length: limit + 1 }, (_, i) => day + 1000 + i * 60_000);
            }),
          ];
          const refuses = (w: DateWindow) => countIn(instants, w) > limit;
          const { accepted, failed } = fetchAll(start, ceiling, windowDays, refuses);
          const all = [...accepted, ...failed].sort(
            (a, b) => a.from.toMillis() - b.from.toMillis() || a.to.toMillis() - b.to.toMillis(),
          );

          // Covers [start, ceiling]: first at start, last at ceiling, each window starting
          // where the previous ended (shared inclusive boundary), none empty unless the range is.
          expect(all[0]!.from.toMillis()).toBe(start.toMillis());
          expect(all.at(-1)!.to.toMillis()).toBe(ceiling.toMillis());
          all.forEach((w, i) => {
            expect(w.from <= w.to).toBe(true);
            if (span > 0) expect(w.from < w.to).toBe(true);
            if (i > 0) expect(w.from.toMillis()).toBe(all[i - 1]!.to.toMillis());
            // Inside the range, boundaries on NZ midnights except the range's own ends.
            expect(w.from >= start && w.to <= ceiling).toBe(true);
            expect(w.from.equals(start) || isNzMidnight(w.from)).toBe(true);
            expect(w.to.equals(ceiling) || isNzMidnight(w.to)).toBe(true);
            expect(windowSpanDays(w)).toBeLessThanOrEqual(windowDays);
          });
          // Every accepted window is within the bank's limit; every failure is one NZ day
          // (or a partial day) that the bank still refused.
          for (const w of accepted) expect(countIn(instants, w)).toBeLessThanOrEqual(limit);
          for (const w of failed) {
            expect(countIn(instants, w)).toBeGreaterThan(limit);
            expect(splitWindow(w)).toBeNull();
            expect(windowSpanDays(w)).toBe(1);
          }
          // Nothing in the range is left out: every instant is in a fetched or failed window.
          const inRange = instants.filter((t) => t >= start.toMillis() && t <= ceiling.toMillis());
          for (const t of inRange) expect(all.some((w) => t >= w.from.toMillis() && t <= w.to.toMillis())).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('planWindows tiles whole windows of exactly windowDays NZ days between the first and the last', () => {
    fc.assert(
      fc.property(rangeArb, fc.integer({ min: 1, max: 45 }), ({ start, ceiling }, windowDays) => {
        const windows = planWindows({ start, ceiling, windowDays });
        expect(windows[0]!.from.toMillis()).toBe(start.toMillis());
        expect(windows.at(-1)!.to.toMillis()).toBe(ceiling.toMillis());
        windows.forEach((w, i) => {
          if (i > 0) {
            expect(w.from.toMillis()).toBe(windows[i - 1]!.to.toMillis());
            expect(isNzMidnight(w.from)).toBe(true);
          }
          if (i < windows.length - 1) {
            expect(isNzMidnight(w.to)).toBe(true);
            expect(windowSpanDays(w)).toBe(windowDays);
          }
        });
      }),
      { numRuns: 200 },
    );
  });

  it('syncRange never asks outside the consent window, before the history floor, or after today (BDT236/238/239)', () => {
    fc.assert(
      fc.property(
        fc.record({
          now: fc.integer({ min: FIRST + 800 * DAY, max: LAST }),
          startBack: fc.integer({ min: 0, max: 800 * DAY }),
          endAfter: fc.option(fc.integer({ min: -400 * DAY, max: 400 * DAY })),
          maxHistoryDays: fc.option(fc.integer({ min: 1, max: 800 })),
          floorBack: fc.option(fc.integer({ min: 0, max: 900 })),
          watermarkBack: fc.option(fc.integer({ min: 0, max: 400 * DAY })),
          pendingBack: fc.option(fc.integer({ min: -5 * DAY, max: 400 * DAY })),
          sinceBack: fc.option(fc.integer({ min: -5, max: 900 })),
          lookbackDays: fc.integer({ min: 0, max: 60 }),
          full: fc.boolean(),
        }),
        (g) => {
          const now = utc(g.now);
          const consentStart = utc(g.now - g.startBack).startOf('second');
          const consentEnd = g.endAfter === null ? null : utc(g.now + g.endAfter).startOf('second');
          const nzToday = nzMidnight(nzDateOf(now));
          const range = syncRange({
            consentStart,
            consentEnd,
            maxHistoryDays: g.maxHistoryDays,
            configFloor: g.floorBack === null ? null : nzToday.minus({ days: g.floorBack }).toISODate(),
            now,
            watermark: g.watermarkBack === null ? null : utc(g.now - g.watermarkBack),
            lookbackDays: g.lookbackDays,
            oldestOpenPending: g.pendingBack === null ? null : utc(g.now - g.pendingBack),
            since: g.sinceBack === null ? null : nzToday.minus({ days: g.sinceBack }).toISODate(),
            full: g.full,
          });
          if (!range) return;
          const { floor, ceiling, start } = range;
          expect(floor <= start && start <= ceiling).toBe(true);
          expect(checkQueryRange(start, ceiling, now)).toBeNull();
          expect(
            checkInsideConsentWindow(start, ceiling, { start: consentStart, end: consentEnd ?? undefined }),
          ).toBeNull();
          if (g.maxHistoryDays !== null) expect(start >= now.minus({ days: g.maxHistoryDays })).toBe(true);
          if (g.watermarkBack === null || g.full) expect(start.equals(floor)).toBe(true);
          for (const w of planWindows({ start, ceiling, windowDays: 31 })) {
            expect(checkQueryRange(w.from, w.to, now)).toBeNull();
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
