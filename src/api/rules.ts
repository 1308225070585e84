/**
 * The bank's pure rules (docs/bank-api.md), shared by client and emulator so both judge the same way:
 * NZ dates, consent date rules, transaction query rules, redirect whitelist matching,
 * callback URL rules, and which scope and permission each endpoint needs.
 * Over 300 lines on purpose: one table of the bank's rules, read side by side with its tests.
 */
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { DateTime, Duration, IANAZone, type Zone } from 'luxon';
import { commonInstantMs } from './instant-text';
import { DATE_TIME_PATTERN, type BankName, type Permission, type Scope } from './schemas';

export const NZ_ZONE = 'Pacific/Auckland';
/** docs/bank-api.md §4.4: a gateway consent awaiting the customer times out after 15 minutes (BDT013). */
export const GATEWAY_TIMEOUT_MS = 15 * 60 * 1000;
/** docs/bank-api.md §4.1: idempotency-key at most 255 characters (BDT254). */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

export type Environment = 'sandbox' | 'production';

// ---------------------------------------------------------------------------
// NZ dates

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
 * IANA zone works each one out with Intl.DateTimeFormat#formatToParts, the largest single cost of
 * the test suite's CPU (3.6 s) and a real one in a sync and in the emulator. Equal to luxon's own
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

// ---------------------------------------------------------------------------
// Consent date rules (docs/bank-api.md §4.1 date rules, in order)

export type ConsentDateCode = 'BDT252' | 'BDT257' | 'BDT251' | 'BDT240' | 'BDT244' | 'BDT258' | 'BDT014';

export interface ConsentDates {
  start: DateTime;
  end?: DateTime | undefined;
  expiration?: DateTime | undefined;
}

export interface RuleFailure<C extends string = string> {
  code: C;
  message: string;
}

/**
 * The first consent date rule broken, or null. `now` is the creation instant.
 * BDT257 is checked before BDT251: in the other order it could never be answered.
 */
export function checkConsentDates(
  dates: ConsentDates,
  now: Instant,
  bank: BankName,
): RuleFailure<ConsentDateCode> | null {
  const nowDt = toInstant(now);
  const today = nzDateOf(nowDt);
  const { start, end, expiration } = dates;
  if (start > nowDt) {
    return { code: 'BDT252', message: `start_date_time must be now or earlier: ${start.toISO()}` };
  }
  if (end && nzDateOf(start) === nzDateOf(end)) {
    return { code: 'BDT257', message: `start_date_time and end_date_time fall on the same NZ date: ${nzDateOf(end)}` };
  }
  if (end && !(nzDateOf(end) > today)) {
    return { code: 'BDT251', message: `end_date_time must be after today (${today}, NZ date): ${end.toISO()}` };
  }
  if (expiration && expiration < start) {
    return {
      code: 'BDT240',
      message: `expiration_date_time must not be before start_date_time: ${expiration.toISO()}`,
    };
  }
  if (expiration && end && expiration < end) {
    return { code: 'BDT244', message: `expiration_date_time must not be before end_date_time: ${expiration.toISO()}` };
  }
  if (expiration && nzDateOf(expiration) === today) {
    return {
      code: 'BDT258',
      message: `expiration_date_time must not fall on the consent creation date (${today}, NZ date)`,
    };
  }
  if (bank === 'BNZ' && start < bnzEarliestStart(nowDt)) {
    return { code: 'BDT014', message: `BNZ consents must start within the last 2 years: ${start.toISO()}` };
  }
  return null;
}

/** BDT014: now minus 2 calendar years in Pacific/Auckland. */
export function bnzEarliestStart(now: Instant): DateTime {
  return toInstant(now).setZone(NZ).minus({ years: 2 }).toUTC();
}

// ---------------------------------------------------------------------------
// Transaction query rules (docs/bank-api.md §6.0 step 4, then step 10)

export type RangeCode = 'BDT237' | 'BDT239' | 'BDT238';

/** BDT237 (to before from), BDT239 (from after today), BDT238 (to after today), NZ dates. */
export function checkQueryRange(from: DateTime, to: DateTime, now: Instant): RuleFailure<RangeCode> | null {
  const today = nzDateOf(now);
  if (to < from) return { code: 'BDT237', message: 'To date must not be before from date' };
  if (nzDateOf(from) > today)
    return { code: 'BDT239', message: `From date must not be in the future: ${nzDateOf(from)}` };
  if (nzDateOf(to) > today) return { code: 'BDT238', message: `To date must not be after today: ${today}` };
  return null;
}

/** BDT236: the range must lie inside the consent window (instants). */
export function checkInsideConsentWindow(
  from: DateTime,
  to: DateTime,
  window: { start: DateTime; end?: DateTime | undefined },
): RuleFailure<'BDT236'> | null {
  if (from < window.start || (window.end && to > window.end)) {
    return { code: 'BDT236', message: 'Dates must lie inside the consent window' };
  }
  return null;
}

// ---------------------------------------------------------------------------
// Endpoints: scope and consent permission (docs/bank-api.md §3)

export type Endpoint =
  | 'accounts'
  | 'account'
  | 'balances'
  | 'transactions'
  | 'statements'
  | 'statement'
  | 'statement_file'
  | 'party'
  | 'account_party'
  | 'consents'
  | 'meta';

export const ENDPOINT_ACCESS: Record<Endpoint, { scope: Scope; permissions: readonly Permission[] }> = {
  accounts: { scope: 'read:accounts', permissions: ['ReadAccountsBasic', 'ReadAccountsDetail'] },
  account: { scope: 'read:accounts', permissions: ['ReadAccountsBasic', 'ReadAccountsDetail'] },
  balances: { scope: 'read:balances', permissions: ['ReadBalances'] },
  transactions: { scope: 'read:transactions', permissions: ['ReadTransactionsBasic', 'ReadTransactionsDetail'] },
  statements: {
    scope: 'read:transactions',
    permissions: ['ReadStatements', 'ReadStatementsBasic', 'ReadStatementsDetail'],
  },
  statement: {
    scope: 'read:transactions',
    permissions: ['ReadStatements', 'ReadStatementsBasic', 'ReadStatementsDetail'],
  },
  statement_file: { scope: 'read:transactions', permissions: ['ReadStatements', 'ReadStatementsDetail'] },
  party: { scope: 'read:party', permissions: ['ReadPartyAuthUser'] },
  account_party: { scope: 'read:party', permissions: ['ReadParty'] },
  consents: { scope: 'manage:consents', permissions: [] },
  meta: { scope: 'read:meta', permissions: [] },
};

/** The meta `resources` flag that gates each resource endpoint. */
export const ENDPOINT_RESOURCE: Partial<Record<Endpoint, import('./schemas').ResourceFeature>> = {
  accounts: 'accounts',
  account: 'accounts',
  balances: 'balances',
  transactions: 'transactions',
  statements: 'statements',
  statement: 'statements',
  statement_file: 'statement_file',
  party: 'party',
  account_party: 'account_party',
};

/** True when a consent holding `granted` may call `endpoint` (BDT411 otherwise). */
export function hasPermissionFor(endpoint: Endpoint, granted: readonly string[]): boolean {
  const needed = ENDPOINT_ACCESS[endpoint].permissions;
  return needed.length === 0 || needed.some((p) => granted.includes(p));
}

/**
 * ReadTransactionsCredits / ReadTransactionsDebits are filters (docs/bank-api.md §3): Credits alone
 * returns only Credit entries, Debits alone only Debit; both or neither, all.
 */
export function creditDebitFilter(granted: readonly string[]): 'Credit' | 'Debit' | null {
  const credits = granted.includes('ReadTransactionsCredits');
  const debits = granted.includes('ReadTransactionsDebits');
  if (credits && !debits) return 'Credit';
  if (debits && !credits) return 'Debit';
  return null;
}

/** Payload level (docs/bank-api.md §3): Detail wins when both are held. */
export function payloadLevel(granted: readonly string[], basic: Permission, detail: Permission): 'Basic' | 'Detail' {
  return granted.includes(detail) ? 'Detail' : granted.includes(basic) ? 'Basic' : 'Detail';
}

// ---------------------------------------------------------------------------
// Redirect URI whitelist (docs/bank-api.md §4.1 URL rules)

function parseUrl(value: string): URL | null {
  try {
    return new URL(value);
  } catch {
    return null;
  }
}

/** A URL with a host part (custom app schemes included); null when malformed or relative. */
function parseAbsoluteWithHost(value: string): URL | null {
  const url = parseUrl(value);
  if (!url || url.hostname === '') return null;
  return url;
}

/** Does one whitelist entry match a candidate URI? Invalid entries match nothing. */
export function whitelistEntryMatches(entry: string, candidate: string): boolean {
  const e = parseAbsoluteWithHost(entry.trim());
  const c = parseAbsoluteWithHost(candidate);
  if (!e || !c) return false;
  if (e.protocol !== c.protocol || e.port !== c.port) return false;
  // Query strings are ignored on both sides; paths match as a raw string prefix, so a
  // registered trailing slash makes the slash-less form fail.
  if (!c.pathname.startsWith(e.pathname)) return false;
  const entryHost = e.hostname.toLowerCase();
  const host = c.hostname.toLowerCase();
  if (entryHost.includes('*')) {
    // Wildcard: one `*.` at the start; the domain after it has at least two labels.
    if (!entryHost.startsWith('*.')) return false;
    const domain = entryHost.slice(2);
    if (
      domain.includes('*') ||
      domain.split('.').filter(Boolean).length < 2 ||
      domain.split('.').some((l) => l === '')
    ) {
      return false;
    }
    // Any depth of subdomain, never the bare domain.
    return host.endsWith(`.${domain}`) && host.length > domain.length + 1;
  }
  return host === entryHost;
}

export type RedirectCode = 'BDT212' | 'BDT211';

/** BDT212 when malformed, relative or host-less; BDT211 when no whitelist entry matches. */
export function checkRedirectUri(
  uri: string,
  whitelist: readonly string[],
  environment: Environment,
): RuleFailure<RedirectCode> | null {
  const url = parseAbsoluteWithHost(uri);
  if (!url) return { code: 'BDT212', message: `redirect_uri is malformed or not absolute: ${uri}` };
  if (environment === 'production' && (url.protocol === 'http:' || isLocalhostName(url.hostname))) {
    return { code: 'BDT211', message: `redirect_uri not allowed in production (http or localhost): ${uri}` };
  }
  if (!whitelist.some((entry) => whitelistEntryMatches(entry, uri))) {
    return { code: 'BDT211', message: `redirect_uri is not whitelisted: ${uri}` };
  }
  return null;
}

function isLocalhostName(hostname: string): boolean {
  const h = hostname.toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost');
}

// ---------------------------------------------------------------------------
// Callback URL rules (BDT264–268)

const nonPublic = new BlockList();
nonPublic.addSubnet('0.0.0.0', 8, 'ipv4'); // unspecified
nonPublic.addSubnet('127.0.0.0', 8, 'ipv4'); // loopback
nonPublic.addSubnet('10.0.0.0', 8, 'ipv4'); // private
nonPublic.addSubnet('172.16.0.0', 12, 'ipv4');
nonPublic.addSubnet('192.168.0.0', 16, 'ipv4');
nonPublic.addSubnet('169.254.0.0', 16, 'ipv4'); // link-local
nonPublic.addAddress('::', 'ipv6'); // unspecified
nonPublic.addAddress('::1', 'ipv6'); // loopback
nonPublic.addSubnet('fc00::', 7, 'ipv6'); // unique local (private)
nonPublic.addSubnet('fe80::', 10, 'ipv6'); // link-local

/** An IP literal in a loopback, private, link-local or unspecified range. */
export function isNonPublicIp(address: string): boolean {
  if (isIPv4(address)) return nonPublic.check(address, 'ipv4');
  if (isIPv6(address)) {
    const lower = address.toLowerCase();
    // IPv4-mapped (::ffff:a.b.c.d or ::ffff:7f00:1): judge the IPv4 address inside.
    const mapped = /^::ffff:(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/.exec(lower);
    if (mapped) {
      const [, dotted, high = '', low = ''] = mapped;
      const v4 = dotted ?? hexPairToIpv4(high, low);
      return nonPublic.check(v4, 'ipv4');
    }
    return nonPublic.check(lower, 'ipv6');
  }
  return false;
}

function hexPairToIpv4(hi: string, lo: string): string {
  const a = parseInt(hi, 16);
  const b = parseInt(lo, 16);
  return [a >> 8, a & 255, b >> 8, b & 255].join('.');
}

/** "Public" per docs/bank-api.md §4.1: not localhost/.localhost/.local/.internal, not a non-public IP. */
export function isPublicHost(hostname: string): boolean {
  const h = hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  if (h === 'localhost' || h.endsWith('.localhost') || h.endsWith('.local') || h.endsWith('.internal')) return false;
  return !isNonPublicIp(h);
}

/** The emulator's fixed resolver: every name resolves except under the reserved `.invalid`. */
export function resolvesInEmulator(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/\.$/, '');
  return !(h === 'invalid' || h.endsWith('.invalid'));
}

export type CallbackCode = 'BDT264' | 'BDT265' | 'BDT266' | 'BDT267' | 'BDT268';

/**
 * callback_url rules. BDT268 (unresolvable) is judged only when a resolver is given:
 * the client leaves it to the server.
 */
export function checkCallbackUrl(
  value: string,
  environment: Environment,
  resolves?: (hostname: string) => boolean,
): RuleFailure<CallbackCode> | null {
  const url = parseUrl(value);
  if (!url) return { code: 'BDT264', message: `callback_url is malformed: ${value}` };
  // A well-formed URL of another scheme (`mailto:`, host-less) is BDT265, not malformed.
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { code: 'BDT265', message: `callback_url scheme must be http or https: ${url.protocol}` };
  }
  if (environment === 'production' && url.protocol === 'http:') {
    return { code: 'BDT266', message: 'callback_url must use https in production' };
  }
  if (!isPublicHost(url.hostname)) {
    return { code: 'BDT267', message: `callback_url host is not public: ${url.hostname}` };
  }
  if (resolves && !resolves(url.hostname)) {
    return { code: 'BDT268', message: `callback_url host does not resolve: ${url.hostname}` };
  }
  return null;
}

// ---------------------------------------------------------------------------
// Tokens (docs/bank-api.md §1.6, §2)

/** Renew 5 minutes before expiry, or at half the lifetime when it is under 10 minutes. */
export function tokenRenewAfterMs(expiresInSeconds: number): number {
  const lifetimeMs = expiresInSeconds * 1000;
  return lifetimeMs < 10 * 60 * 1000 ? lifetimeMs / 2 : lifetimeMs - 5 * 60 * 1000;
}

/** ISO 8601 duration (meta request_timeout) in milliseconds; null when absent or malformed. */
export function durationMs(iso: string | undefined): number | null {
  if (!iso) return null;
  const d = Duration.fromISO(iso);
  return d.isValid ? d.as('milliseconds') : null;
}
