/**
 * NZ time, as the bank judges it (docs/bank-api.md §1.3): instants, Pacific/Auckland calendar dates
 * (DST included), the wire's date-time forms and the query parameters' date forms. Shared by the
 * client and the emulator so both count days the same way.
 */
import { DateTime, IANAZone, type Zone } from 'luxon';
import { commonInstantMs } from './instant-text';
import { DATE_TIME_PATTERN } from './schemas';

export const NZ_ZONE = 'Pacific/Auckland';

export type Instant = DateTime | Date | string | number;

/** An instant as a luxon DateTime in UTC; strings must carry an offset. */
export function toInstant(value: Instant): DateTime {
  if (DateTime.isDateTime(value)) return value.toUTC();
  if (value instanceof Date) return DateTime.fromJSDate(value, { zone: 'utc' });
  if (typeof value === 'number') return DateTime.fromMillis(value, { zone: 'utc' });
  const dt = DateTime.fromISO(value, { setZone: true });
  if (!dt.isValid) throw new RangeError(`not a date-time: ${value}`);
  return dt.toUTC();
}

/**
 * Milliseconds of an instant between 1970 and 9999 (an epoch-millisecond number, a Date, a
 * DateTime, or a common-shape string) for the paths that skip luxon; null for anything else.
 */
function quickMs(value: Instant): number | null {
  if (typeof value === 'string') return commonInstantMs(value);
  const ms = typeof value === 'number' ? value : value instanceof Date ? value.getTime() : value.toMillis();
  return Number.isSafeInteger(ms) && ms >= 0 && ms < MAX_QUICK_MS ? ms : null;
}
/** 10000-01-01T00:00:00Z: below it `Date#toISOString` writes the same four-digit year as luxon. */
const MAX_QUICK_MS = 253402300800000;

/** UTC ISO with milliseconds of an instant (`2025-03-02T20:15:00.000Z`). */
export function utcIso(value: Instant): string {
  const ms = quickMs(value);
  if (ms !== null) return new Date(ms).toISOString();
  const text = toInstant(value).toISO({ includeOffset: true, suppressMilliseconds: false });
  if (text === null) throw new RangeError(`not an instant: ${String(value)}`);
  return text;
}

/**
 * Pacific/Auckland's offset at an instant, from luxon's zone data, remembered per UTC day: NZ
 * changes its offset at most once a day, so a day whose start and end share an offset has it
 * throughout; a changing day asks the zone each time.
 */
const nzZone = IANAZone.create(NZ_ZONE);
const nzDayOffsets = new Map<number, number | null>();
function nzOffsetMinutes(ms: number): number {
  const day = Math.floor(ms / 86_400_000);
  let known = nzDayOffsets.get(day);
  if (known === undefined) {
    const start = nzZone.offset(day * 86_400_000);
    known = start === nzZone.offset(day * 86_400_000 + 86_399_999) ? start : null;
    nzDayOffsets.set(day, known);
  }
  return known ?? nzZone.offset(ms);
}

/**
 * Pacific/Auckland as a luxon zone whose offsets are remembered (nzOffsetMinutes): luxon asks a
 * zone for its offset at every DateTime it makes in it (setZone, fromISO, plus, startOf), and an
 * IANA zone works each one out with Intl.DateTimeFormat#formatToParts, which is slow, and a sync,
 * the emulator and the tests make many such DateTimes. Equal to luxon's own
 * zone of that name (same type and name), so DateTimes in either compare and format the same.
 */
class NzZone extends IANAZone {
  constructor() {
    super(NZ_ZONE);
  }

  override offset(ts: number): number {
    return nzOffsetMinutes(ts);
  }
}
/** Pass this, not the name, to luxon: `DateTime.fromISO(text, { zone: NZ })`, `dt.setZone(NZ)`. */
export const NZ: Zone = new NzZone();

/** YYYY-MM-DD of a luxon date; luxon gives null only for an invalid one. */
function isoDate(dt: DateTime): string {
  const date = dt.toISODate();
  if (date === null) throw new RangeError(`not a date: ${dt.invalidExplanation ?? dt.invalidReason ?? 'invalid'}`);
  return date;
}

/**
 * The NZ wall time of an instant without luxon (`2025-03-03T09:15:00.000Z`, the Z standing for
 * nothing), with its epoch milliseconds and NZ offset in minutes; null where luxon's path must
 * answer: an instant quickMs leaves to it, or one already in year 10000 in NZ (luxon writes
 * `+010000-…`).
 */
function nzWallTime(value: Instant): { ms: number; offset: number; wall: string } | null {
  const ms = quickMs(value);
  if (ms === null) return null;
  const offset = nzOffsetMinutes(ms);
  const wall = new Date(ms + offset * 60_000).toISOString();
  return /^\d{4}-/.test(wall) ? { ms, offset, wall } : null;
}

/** The NZ calendar date (Pacific/Auckland, DST included) of an instant, as YYYY-MM-DD. */
export function nzDateOf(value: Instant): string {
  const quick = nzWallTime(value);
  if (quick) return quick.wall.slice(0, 10);
  return isoDate(toInstant(value).setZone(NZ));
}

/** 00:00 Pacific/Auckland of an NZ date (YYYY-MM-DD). */
export function nzMidnight(date: string): DateTime {
  const dt = DateTime.fromISO(date, { zone: NZ });
  if (!dt.isValid || !/^\d{4}-\d{2}-\d{2}$/.test(date)) throw new RangeError(`not an NZ date: ${date}`);
  return dt.startOf('day');
}

/**
 * Whether a value is an NZ date as a person writes one (a flag, a setting): `YYYY-MM-DD`, a
 * calendar date, any year from 0000 to 9999, exactly what nzMidnight reads. The one test behind
 * every command's NZ date (src/export/filters.ts `nzDateFlag`) and the `sync.floor` setting.
 */
export function isNzDate(value: string): boolean {
  try {
    nzMidnight(value);
    return true;
  } catch {
    return false;
  }
}

/**
 * 00:00 Pacific/Auckland of the day after an NZ date: where the date ends, for an inclusive
 * `--to`. Counted on the date's own midnight, never through the next date's text: the day after
 * 9999-12-31 has no YYYY-MM-DD (addNzDays writes `+010000-01-01`, which nzMidnight refuses), and
 * 9999-12-31 is a valid end, read as "no end" (docs/exports.md "Filters").
 */
export function nzMidnightAfter(date: string): DateTime {
  return nzMidnight(date).plus({ days: 1 });
}

/**
 * Days since 1970-01-01 of a calendar date (YYYY-MM-DD, years 1000-9999), or null when it is not
 * one (then luxon's path gives the error). NZ calendar days are plain calendar days: midnight
 * always exists in Pacific/Auckland (its clocks change at 02:00 and 03:00), so counting and adding
 * days needs no zone.
 */
function calendarDay(date: string): number | null {
  const m = /^([1-9]\d{3})-(\d{2})-(\d{2})$/.exec(date);
  if (!m) return null;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const ms = Date.UTC(year, month - 1, day);
  const back = new Date(ms);
  if (back.getUTCFullYear() !== year || back.getUTCMonth() !== month - 1 || back.getUTCDate() !== day) return null;
  return ms / 86_400_000;
}

/** The NZ date n days after `date` (calendar days, not 24-hour steps). */
export function addNzDays(date: string, days: number): string {
  const day = Number.isInteger(days) ? calendarDay(date) : null;
  if (day !== null) {
    const text = new Date((day + days) * 86_400_000).toISOString();
    if (/^[1-9]\d{3}-/.test(text)) return text.slice(0, 10);
  }
  return isoDate(nzMidnight(date).plus({ days }));
}

/** Whole NZ calendar days from `from` to `to` (negative when `to` is earlier). */
export function nzDaysBetween(from: string, to: string): number {
  const a = calendarDay(from);
  const b = calendarDay(to);
  if (a !== null && b !== null) return b - a;
  return Math.round(nzMidnight(to).diff(nzMidnight(from), 'days').days);
}

/** An instant formatted with its Pacific/Auckland offset, as the bank sends it. */
export function formatNz(value: Instant): string {
  const quick = nzWallTime(value);
  if (quick) {
    // luxon's toISO({ suppressMilliseconds: true }) without a DateTime: the wall time in NZ, the
    // milliseconds only when there are some, then the offset (+13:00).
    const { ms, offset, wall } = quick;
    const abs = Math.abs(offset);
    const zone = `${offset < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
    return `${ms % 1000 === 0 ? wall.slice(0, 19) : wall.slice(0, 23)}${zone}`;
  }
  const text = toInstant(value).setZone(NZ).toISO({ suppressMilliseconds: true });
  if (text === null) throw new RangeError(`not an instant: ${String(value)}`);
  return text;
}

/** A date-time as the wire requires it: seconds and an explicit offset. Null when malformed. */
export function parseWireDateTime(value: string): DateTime | null {
  if (!DATE_TIME_PATTERN.test(value)) return null;
  const dt = DateTime.fromISO(value, { setZone: true });
  return dt.isValid ? dt : null;
}

/**
 * A date query parameter (docs/bank-api.md §6.4): a date-time with offset, or YYYY-MM-DD meaning
 * 00:00 Pacific/Auckland. A raw space where the offset sign belongs is read as `+` (a `+`
 * that was not percent-encoded). Null when unparsable (400 without code).
 */
export function parseQueryDateTime(value: string): DateTime | null {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    const dt = DateTime.fromISO(value, { zone: NZ });
    return dt.isValid ? dt.startOf('day') : null;
  }
  const repaired = value.replace(/^(.*T\d{2}:\d{2}:\d{2}(?:\.\d+)?) (\d{2}:\d{2})$/, '$1+$2');
  return parseWireDateTime(repaired);
}
