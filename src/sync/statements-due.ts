/**
 * When an account's statement list is asked for (docs/configuration.md "Statements when due"): a
 * bank issues a statement once a period (a month, mostly), so a nightly run lists an account's
 * statements only when a new one can exist, or when the safety interval has passed since the
 * last whole listing; always on `--full` and when this consent never listed the account.
 * `statementListDue` is pure; `statementListing` reads what it needs from the store.
 */
import { DateTime } from 'luxon';
import { NZ } from '@bankdata/core/nz-time';
import type { AccountId, BankName, ConsentId } from '@bankdata/core/schemas';
import type { StatementPeriod, Store } from '../store';

/** `sync.statementSafetyDays` when a caller's settings leave it out (config/default.json holds the same). */
export const DEFAULT_STATEMENT_SAFETY_DAYS = 31;

export type StatementDueReason = 'full' | 'first listing' | 'new statement can exist' | 'safety interval';

/**
 * Whether a listing for `reason` asks for the whole list, not only from the newest statement held
 * on (`fromStatementDateTime` filters by a statement's start): the periodic one a new period
 * brings starts after the newest held, but a statement off the period (an `Annual`, `Interim` or
 * `AccountClosure`, a late one) may start before it, and only a whole listing returns it.
 */
export const listsWhole = (reason: StatementDueReason): boolean => reason !== 'new statement can exist';

export type StatementDue =
  | { due: true; reason: StatementDueReason }
  | { due: false; /** The first instant at which the list is due again. */ nextAt: DateTime };

export interface StatementDueInput {
  /** The bank's now (the earlier of the local clock and the server's Date). */
  now: DateTime;
  /** `--full`: the list is read whole whatever is held. */
  full: boolean;
  /** When this consent last listed the account's statements (stored instant), or null: never. */
  lastListedAt: string | null;
  /**
   * When this consent last listed the whole list (`listsWhole`), or null when not recorded (a
   * database from before it was): then a whole listing is due at once.
   */
  lastWholeAt: string | null;
  /** The newest statement held for the account (any consent), or null. */
  newest: StatementPeriod | null;
  /** Config `sync.statementSafetyDays`: the longest time between two listings, days. */
  safetyDays: number;
}

/**
 * Due when: `--full`; this consent never listed the account; the period after the newest
 * statement held has ended (a new statement can exist) and not more than `safetyDays` ago, so
 * that a statement the bank creates a few hours or days after its period is fetched the first
 * night it is there, while a bank that stopped issuing is not asked every night; or
 * `safetyDays` have passed since the last whole listing (statements off the period, an account
 * that had none): counted from the last listing of the whole list, since the listings a new
 * period brings ask only from the newest statement on and come about as often as the interval.
 */
export function statementListDue(input: StatementDueInput): StatementDue {
  if (input.full) return { due: true, reason: 'full' };
  if (input.lastListedAt === null) return { due: true, reason: 'first listing' };
  // Listed, but no whole listing recorded (a database from before they were): whole once now,
  // since the listings a new period brings would keep moving an interval counted from them.
  if (input.lastWholeAt === null) return { due: true, reason: 'safety interval' };
  const now = input.now.toUTC();
  const safety = { days: input.safetyDays };
  // NZ calendar days, from 00:00 of the day `safetyDays` after the last whole listing: a nightly
  // run that reaches the account a few seconds earlier in the day than the last one lists on that
  // night, not the next (as sync.partyRefreshDays counts).
  const safetyAt = DateTime.fromISO(input.lastWholeAt, { zone: 'utc' }).setZone(NZ).plus(safety).startOf('day').toUTC();
  if (!safetyAt.isValid || now >= safetyAt) return { due: true, reason: 'safety interval' };
  const canExistAt = input.newest === null ? null : nextPeriodEnd(input.newest);
  if (canExistAt !== null) {
    const until = canExistAt.setZone(NZ).plus(safety).toUTC();
    if (now >= canExistAt && now < until) return { due: true, reason: 'new statement can exist' };
    if (now < canExistAt && canExistAt < safetyAt) return { due: false, nextAt: canExistAt };
  }
  return { due: false, nextAt: safetyAt };
}

/**
 * The earliest instant a statement after `statement` can exist: the end of the period after it,
 * plus the delay the bank took to create `statement` after its end (CreationDateTime −
 * EndDateTime, when positive and under a period). The next period starts at the NZ midnight after the statement's end and lasts as long
 * as the statement did, counted in whole calendar months when the statement spans whole months
 * (start and next start on the same day of the month: monthly, quarterly, annual), else in NZ
 * days; a period that is whole months only in UTC's days (a bank that stamps them in UTC) is
 * counted in those. Null when the stored dates cannot be read.
 */
export function nextPeriodEnd(statement: StatementPeriod): DateTime | null {
  // The bank's own days: NZ's, or UTC's for a bank that stamps its periods in UTC (1 January
  // 00:00Z to 31 January 23:59:59Z is a month in UTC, 32 days in NZ).
  const inNz = periodIn(statement, NZ);
  if (inNz === null) return null;
  const inUtc = inNz.months > 0 ? null : periodIn(statement, 'utc');
  const { periodEnd, start, end, nextStart } = inUtc !== null && inUtc.months > 0 ? inUtc : inNz;
  const created = DateTime.fromISO(statement.created, { zone: 'utc' });
  const lagMs = created.isValid ? created.toMillis() - end.toMillis() : 0;
  const periodMs = nextStart.toMillis() - start.toMillis();
  return lagMs > 0 && lagMs < periodMs ? periodEnd.plus({ milliseconds: lagMs }).toUTC() : periodEnd.toUTC();
}

/**
 * The statement's period counted in the days of `zone`: its start's day, the midnight after its
 * end (an end exactly at a midnight is that midnight), and the end of the period after it
 * (`months`: its length in whole calendar months, 0 when it is not).
 */
function periodIn(statement: StatementPeriod, zone: typeof NZ | 'utc') {
  const start = DateTime.fromISO(statement.start, { zone: 'utc' }).setZone(zone).startOf('day');
  const end = DateTime.fromISO(statement.end, { zone: 'utc' }).setZone(zone);
  if (!start.isValid || !end.isValid || end < start) return null;
  const nextStart = end.equals(end.startOf('day')) ? end : end.startOf('day').plus({ days: 1 });
  const months = wholeMonths(start, nextStart);
  const periodEnd =
    months > 0
      ? nextStart.plus({ months })
      : nextStart.plus({ days: Math.max(1, Math.round(nextStart.diff(start, 'days').days)) });
  return { start, end, nextStart, months, periodEnd };
}

/** How many calendar months [start, nextStart) spans when it is whole months (up to 12), else 0. */
function wholeMonths(start: DateTime, nextStart: DateTime): number {
  for (let months = 1; months <= 12; months++) {
    const candidate = start.plus({ months });
    if (candidate.equals(nextStart)) return months;
    if (candidate > nextStart) break;
  }
  return 0;
}

/** What the run needs to judge one account's listing, from the store. */
export async function statementListing(
  store: Pick<Store, 'syncState' | 'newestStatementPeriod'>,
  key: { bank: BankName; accountId: AccountId; consentId: ConsentId },
  input: { now: DateTime; full: boolean; safetyDays: number },
): Promise<StatementDue> {
  if (input.full) return statementListDue({ ...input, lastListedAt: null, lastWholeAt: null, newest: null });
  const lastListedAt = await store.syncState.getWatermark({ ...key, resource: 'statements' });
  if (lastListedAt === null) return statementListDue({ ...input, lastListedAt, lastWholeAt: null, newest: null });
  const lastWholeAt = await store.syncState.getWatermark({ ...key, resource: 'statements_whole' });
  const newest = await store.newestStatementPeriod(key);
  return statementListDue({ ...input, lastListedAt, lastWholeAt, newest });
}
