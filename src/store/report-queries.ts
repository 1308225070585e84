/**
 * The SQL of the HTML report (src/report): aggregates only, so that a database of millions of
 * rows never comes into memory. Per account: booked movement per NZ day and per month (exact
 * integer units, see unitsSql), and the anchor that turns daily movement into a balance. Async,
 * so callers do not depend on the driver being synchronous.
 */
import type { BankName } from '../api/schemas';
import { amountUnitsSql, BOOKED_BALANCE_TYPES, unitsSql, type AccountKey } from './continuity';
import { sqliteOf } from './sqlite-store';
import type { Store } from './store';

export interface ReportAccount extends AccountKey {
  currency: string;
  nickname: string | null;
  accountType: string | null;
  accountSubtype: string | null;
  consentId: string;
}

export async function listReportAccounts(store: Store, filter: { accountId?: string } = {}): Promise<ReportAccount[]> {
  return sqliteOf(store)
    .prepare(
      `SELECT bank, account_id AS accountId, currency, nickname, account_type AS accountType,
              account_subtype AS accountSubtype, consent_id AS consentId
       FROM v_accounts WHERE (:account IS NULL OR account_id = :account) ORDER BY bank, account_id`,
    )
    .all({ account: filter.accountId ?? null }) as ReportAccount[];
}

export interface DailyFlow {
  /** NZ date. */
  date: string;
  inUnits: bigint;
  outUnits: bigint;
}

const BOOKED = `t.bank = :bank AND t.account_id = :account AND t.status = 'Booked' AND t.removed_at IS NULL`;

/**
 * Booked money in and out per NZ booking date, oldest first: one pass over the account's rows
 * (every date: the balance line needs them all; months are summed from days).
 */
export async function dailyFlows(store: Store, key: AccountKey, scale: bigint): Promise<DailyFlow[]> {
  const units = amountUnitsSql('t');
  return sqliteOf(store)
    .prepare(
      `SELECT t.booking_date AS date,
              coalesce(sum(CASE WHEN ${units} > 0 THEN ${units} END), 0) AS inUnits,
              coalesce(sum(CASE WHEN ${units} < 0 THEN ${units} END), 0) AS outUnits
       FROM transactions t WHERE ${BOOKED} GROUP BY t.booking_date ORDER BY t.booking_date`,
    )
    .safeIntegers(true)
    .all({ bank: key.bank, account: key.accountId, scale }) as DailyFlow[];
}

export interface BalanceAnchor {
  /** A balance the bank stated, in units, and the instant it held. */
  units: bigint;
  dateTime: string;
  /** Booked rows after that instant but on or before its NZ date (to cut that day's sum at the instant). */
  laterSameDayUnits: bigint;
  source: 'balance' | 'running_balance';
}

/**
 * What turns movement into a balance: the latest booked balance held, else the latest running
 * balance a row carries. Null when the account has neither.
 */
export async function balanceAnchor(
  store: Store,
  key: AccountKey,
  options: { scale: bigint; nzDateOf: (instant: string) => string },
): Promise<BalanceAnchor | null> {
  const params = { bank: key.bank, account: key.accountId, scale: options.scale };
  const types = BOOKED_BALANCE_TYPES.map((t) => `'${t}'`).join(', ');
  const stated = sqliteOf(store)
    .prepare(
      `SELECT b.amount, b.date_time AS dateTime, 'balance' AS source FROM balances b
       WHERE b.bank = :bank AND b.account_id = :account AND b.type IN (${types})
       ORDER BY b.date_time DESC, b.fetched_at DESC, b.id DESC LIMIT 1`,
    )
    .get(params) as { amount: string; dateTime: string; source: 'balance' } | undefined;
  const found =
    stated ??
    (sqliteOf(store)
      .prepare(
        `SELECT t.balance_after AS amount, t.booking_date_time AS dateTime, 'running_balance' AS source FROM transactions t
         WHERE ${BOOKED} AND t.balance_after IS NOT NULL ORDER BY t.booking_date_time DESC, t.transaction_id DESC LIMIT 1`,
      )
      .get(params) as { amount: string; dateTime: string; source: 'running_balance' } | undefined);
  if (!found) return null;
  const sums = sqliteOf(store)
    .prepare(
      `SELECT coalesce(sum(${amountUnitsSql('t')}), 0) AS later, ${unitsSql(':amount')} AS units
       FROM transactions t WHERE ${BOOKED} AND t.booking_date_time > :at AND t.booking_date <= :date`,
    )
    .safeIntegers(true)
    .get({ ...params, at: found.dateTime, date: options.nzDateOf(found.dateTime), amount: found.amount }) as {
    later: bigint;
    units: bigint;
  };
  return { units: sums.units, dateTime: found.dateTime, laterSameDayUnits: sums.later, source: found.source };
}

export interface ReportConsent {
  consent_id: string;
  bank: BankName | null;
  status: string | null;
  start_date_time: string | null;
  end_date_time: string | null;
  expiration_date_time: string | null;
  days_to_expiry: number | null;
  last_synced_at: string | null;
  last_outcome: string | null;
}

export async function listReportConsents(store: Store): Promise<ReportConsent[]> {
  return sqliteOf(store)
    .prepare(
      `SELECT consent_id, bank, status, start_date_time, end_date_time, expiration_date_time, days_to_expiry,
              last_synced_at, last_outcome
       FROM v_consents ORDER BY bank, consent_id`,
    )
    .all() as ReportConsent[];
}

export interface ReportRun {
  run_id: string;
  started_at: string;
  finished_at: string | null;
  outcome: string | null;
  consents: number | null;
  requests: number | null;
  rows_written: number | null;
  failed_units: number | null;
  error_summary: string | null;
}

export async function listReportRuns(store: Store, limit: number): Promise<ReportRun[]> {
  return sqliteOf(store).prepare('SELECT * FROM v_runs ORDER BY started_at DESC LIMIT ?').all(limit) as ReportRun[];
}

export async function countPayments(store: Store): Promise<number> {
  return (sqliteOf(store).prepare('SELECT count(*) AS n FROM payments').get() as { n: number }).n;
}
