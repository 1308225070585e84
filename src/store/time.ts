/**
 * Instants as the store keeps them: UTC ISO 8601 with milliseconds, `2025-03-02T20:15:00.000Z`
 * (the form of `Date#toISOString` and of SQLite's `strftime('%Y-%m-%dT%H:%M:%fZ')`). One fixed
 * width, so comparing the text compares the instants; range queries rely on it.
 */
import { DateTime } from 'luxon';
import { NZ, toInstant, utcIso, type Instant } from '@bankdata/core/nz-time';

export type { Instant };

/** The stored form of an instant. Sub-millisecond digits are dropped (the raw JSON keeps them). */
export function toStoredInstant(value: Instant): string {
  return utcIso(value);
}

/** The stored form, or null for a missing value. */
export function toStoredInstantOrNull(value: Instant | null | undefined): string | null {
  return value === null || value === undefined ? null : toStoredInstant(value);
}

/** The clock (packages/core/src/clock.ts): the store and its callers take `now` from one injectable function. */
export { systemClock, type Clock } from '@bankdata/core/clock';

/**
 * Pacific/Auckland offset transitions between two years, from luxon's zone data: rows of
 * (first UTC instant, offset in minutes). The first row holds the offset in force at the start.
 */
export function nzOffsetTransitions(fromYear: number, toYear: number): { utcFrom: string; offsetMinutes: number }[] {
  const start = DateTime.fromObject({ year: fromYear }, { zone: 'utc' }).toMillis();
  const end = DateTime.fromObject({ year: toYear + 1 }, { zone: 'utc' }).toMillis();
  const offsetAt = (ms: number) => NZ.offset(ms);
  const rows = [{ utcFrom: toStoredInstant(start), offsetMinutes: offsetAt(start) }];
  const step = 30 * 24 * 3600_000; // NZ changes offset twice a year, months apart
  for (let t = start; t < end; t += step) {
    const next = Math.min(t + step, end);
    if (offsetAt(t) === offsetAt(next)) continue;
    // Binary search to the minute: the first instant carrying the new offset.
    let lo = t;
    let hi = next;
    while (hi - lo > 60_000) {
      const mid = lo + Math.floor((hi - lo) / 120_000) * 60_000;
      if (offsetAt(mid) === offsetAt(t)) lo = mid;
      else hi = mid;
    }
    rows.push({ utcFrom: toStoredInstant(hi), offsetMinutes: offsetAt(hi) });
  }
  return rows;
}

/** Milliseconds since the epoch of an instant. */
export function toInstantMs(value: Instant): number {
  return toInstant(value).toMillis();
}
