/**
 * Fast Pacific/Auckland wall-clock arithmetic for the generator. Luxon is the authority (it
 * builds the day table and finds every DST transition once); per-transaction conversion and
 * formatting then use plain integer arithmetic, so a row of the world costs no luxon DateTime.
 * Output equals `formatNz` of packages/core/src/nz-time.ts for whole-second instants.
 */
import { DateTime } from 'luxon';
import { NZ, formatNz } from '@bankdata/core/nz-time';
import { itemAt, partitionPoint } from '@bankdata/core/arrays';

export interface NzDay {
  /** YYYY-MM-DD, Pacific/Auckland. */
  date: string;
  year: number;
  month: number;
  day: number;
  /** ISO weekday, 1 = Monday. */
  weekday: number;
  daysInMonth: number;
  /** The instant of 00:00 that day. */
  midnightMs: number;
  /** UTC offset in minutes from 04:00 that day on (DST changes at 02:00/03:00, seed: NZ dates). */
  dayOffsetMin: number;
}

const HOUR_MS = 3_600_000;

export class NzCalendar {
  readonly days: NzDay[] = [];
  private readonly transitionMs: number[] = [];
  private readonly transitionOffsetMin: number[] = [];
  private readonly firstMs: number;
  private readonly lastMs: number;
  private readonly initialOffsetMin: number;
  private readonly datePrefixes = new Map<number, string>();

  /** Days from `firstDate` to `lastDate` inclusive (NZ dates). */
  constructor(firstDate: string, lastDate: string) {
    const first = DateTime.fromISO(firstDate, { zone: NZ }).startOf('day');
    const last = DateTime.fromISO(lastDate, { zone: NZ }).startOf('day');
    if (!first.isValid || !last.isValid || last < first) throw new RangeError(`bad range ${firstDate}..${lastDate}`);
    // Luxon samples the offset once per day (and per hour around a change): one Intl call per
    // day instead of several per transaction.
    const offsetOf = (ms: number) => DateTime.fromMillis(ms, { zone: NZ }).offset;
    const utcDay = (y: number, m: number, d: number) => Date.UTC(y, m - 1, d);
    this.initialOffsetMin = first.offset;
    let previousOffset = first.offset;
    let date: { y: number; m: number; d: number } = { y: first.year, m: first.month, d: first.day };
    const lastUtc = utcDay(last.year, last.month, last.day);
    let probeMs = first.toMillis();
    for (let dayUtc = utcDay(date.y, date.m, date.d); dayUtc <= lastUtc + 86_400_000; dayUtc += 86_400_000) {
      // Probe 24 hours on; on a change, find its whole-hour instant (NZ changes at 02:00/03:00).
      const nextProbe = probeMs + 86_400_000;
      const offset = offsetOf(nextProbe);
      if (offset !== previousOffset) {
        for (let ms = probeMs + HOUR_MS; ms <= nextProbe; ms += HOUR_MS) {
          if (offsetOf(ms) !== previousOffset) {
            this.transitionMs.push(ms);
            this.transitionOffsetMin.push(offset);
            break;
          }
        }
        previousOffset = offset;
      }
      probeMs = nextProbe;
    }
    for (let dayUtc = utcDay(date.y, date.m, date.d); dayUtc <= lastUtc; dayUtc += 86_400_000) {
      const d = new Date(dayUtc);
      date = { y: d.getUTCFullYear(), m: d.getUTCMonth() + 1, d: d.getUTCDate() };
      // No NZ transition happens at midnight or noon, so the offset just before is the day's.
      const midnightMs = dayUtc - this.offsetMinAt(dayUtc - 14 * HOUR_MS) * 60_000;
      const noonMs = dayUtc + 12 * HOUR_MS;
      this.days.push({
        date: `${date.y}-${String(date.m).padStart(2, '0')}-${String(date.d).padStart(2, '0')}`,
        year: date.y,
        month: date.m,
        day: date.d,
        weekday: ((d.getUTCDay() + 6) % 7) + 1,
        daysInMonth: new Date(Date.UTC(date.y, date.m, 0)).getUTCDate(),
        midnightMs,
        dayOffsetMin: this.offsetMinAt(noonMs - 13 * HOUR_MS),
      });
    }
    this.firstMs = itemAt(this.days, 0).midnightMs;
    this.lastMs = itemAt(this.days, this.days.length - 1).midnightMs + 86_400_000 - HOUR_MS;
  }

  /** The instant of wall-clock h:m:s on `day`; h must be 0 (midnight) or 4–23 (clear of DST gaps). */
  wallMs(day: NzDay, hour: number, minute = 0, second = 0): number {
    if (hour === 0 && minute === 0 && second === 0) return day.midnightMs;
    if (hour < 4) throw new RangeError('wall times before 04:00 may fall in a DST gap');
    return Date.UTC(day.year, day.month - 1, day.day, hour, minute, second) - day.dayOffsetMin * 60_000;
  }

  offsetMinAt(ms: number): number {
    const next = partitionPoint(this.transitionMs, (t) => t <= ms);
    return next === 0 ? this.initialOffsetMin : itemAt(this.transitionOffsetMin, next - 1);
  }

  /** ISO 8601 with the Pacific/Auckland offset, as the bank sends it (same as formatNz of @bankdata/core/nz-time). */
  format(ms: number): string {
    if (ms < this.firstMs || ms >= this.lastMs || ms % 1000 !== 0) return formatNz(ms);
    const offset = this.offsetMinAt(ms);
    const localMs = ms + offset * 60_000;
    const dayNumber = Math.floor(localMs / 86_400_000);
    let prefix = this.datePrefixes.get(dayNumber);
    if (prefix === undefined) {
      prefix = `${new Date(dayNumber * 86_400_000).toISOString().slice(0, 10)}T`;
      this.datePrefixes.set(dayNumber, prefix);
    }
    const seconds = (localMs - dayNumber * 86_400_000) / 1000;
    const hh = itemAt(TWO_DIGITS, Math.floor(seconds / 3600));
    const mm = itemAt(TWO_DIGITS, Math.floor(seconds / 60) % 60);
    const ss = itemAt(TWO_DIGITS, seconds % 60);
    const abs = Math.abs(offset);
    return `${prefix}${hh}:${mm}:${ss}${offset < 0 ? '-' : '+'}${TWO_DIGITS[Math.floor(abs / 60)]}:${TWO_DIGITS[abs % 60]}`;
  }
}

const TWO_DIGITS = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, '0'));
