/**
 * Instant text without luxon, for the per-row hot paths (the wire schemas' date-time check, the
 * stored form of an instant, NZ dates: packages/core/src/nz-time.ts). No imports, so both the schemas and the
 * rules can use it.
 */
/**
 * The common instant shape `YYYY-MM-DDTHH:MM:SS[.fff…](Z|±HH:MM)`, 1970 to 9999: milliseconds since
 * the epoch, computed exactly as luxon computes them (fraction digits past the millisecond dropped),
 * without building a DateTime (this is per row, on the sync's hot path: docs/benchmarks.md). Null
 * for any other shape or an out-of-range field, which luxon then judges (and may refuse).
 */
const COMMON_INSTANT = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d{1,30}))?(?:Z|([+-])(\d\d):(\d\d))$/;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;

export function commonInstantMs(value: string): number | null {
  const m = COMMON_INSTANT.exec(value);
  if (!m) return null;
  // Number() of each group, without an array per call (this runs several times per row synced).
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = Number(m[4]);
  const minute = Number(m[5]);
  const second = Number(m[6]);
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const monthDays = month === 2 && leap ? 29 : (DAYS_IN_MONTH[month - 1] ?? 0);
  if (year < 1970 || day < 1 || day > monthDays || hour > 23 || minute > 59 || second > 59) return null;
  const offsetHours = Number(m[9] ?? 0);
  const offsetMinutes = Number(m[10] ?? 0);
  if (offsetHours > 18 || offsetMinutes > 59) return null;
  const offset = (m[8] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes);
  // luxon's parseMillis: floor(0.fraction × 1000).
  const millis = m[7] === undefined ? 0 : Math.floor(parseFloat(`0.${m[7]}`) * 1000);
  // Seventeen or more 9s round to a whole second: luxon refuses that millisecond (1000).
  if (millis > 999) return null;
  return Date.UTC(year, month - 1, day, hour, minute, second, millis) - offset * 60_000;
}
