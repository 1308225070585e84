/**
 * The SQL of the HTML report (src/report): aggregates only, so that a database of millions of
 * rows never comes into memory. Per account: booked movement per NZ day and per month (exact
 * integer units, see unitsSql), and the anchor that turns daily movement into a balance. Async,
 * so callers do not depend on the driver being synchronous.
 */
import type { BankName } from '../api/schemas';
import { amountUnitsSql, BOOKED_BALANCE_TYPES, unitsSql, type AccountKey } from './continuity';
import type { Store } from './store';

export interface ReportAccount extends AccountKey {
  currency: string;
  nickname: string | null;
  accountType: string | null;
  accountSubtype: string | null;
  consentId: string;
}

export async function listReportAccounts(store: Store, filter: { accountId?: string } = {}): Promise<ReportAccount[]> {
  return store.sqlite
    .prepare(
      `SELECT bank, account_id AS accountId, currency, nickname, account_type AS accountType,
              account_subtype AS accountSubtype, consent_id AS consentId
       FROM v_accounts WHERE (:account IS NULL OR account_id = :account) ORDER BY bank, account_id`,
    )
    .all({ account: filter.accountId ?? null }) as ReportAccount[];
}

export interface DailyMovement {
  /** NZ date. */
  date: string;
  units: bigint;
}

const BOOKED = `t.bank = :bank AND t.account_id = :account AND t.status = 'Booked' AND t.removed_at IS NULL`;

/** Booked movement per NZ booking date, oldest first (every date: the balance needs all of them). */
export async function dailyMovement(store: Store, key: AccountKey, scale: bigint): Promise<DailyMovement[]> {
  return store.sqlite
    .prepare(
      `SELECT t.booking_date AS date, sum(${amountUnitsSql('t')}) AS units
       FROM transactions t WHERE ${BOOKED} GROUP BY t.booking_date ORDER BY t.booking_date`,
    )
    .safeIntegers(true)
    .all({ bank: key.bank, account: key.accountId, scale }) as DailyMovement[];
}

export interface BalanceAnchor {
  /** A balance the bank stated, in units, and the instant it held. */
  units: bigint;
  dateTime: string;
  /** The sum of the booked rows up to that instant. */
  rowsUnits: bigint;
  source: 'balance' | 'running_balance';
}

/**
 * What turns movement into a balance: the latest booked balance held, else the latest running
 * balance a row carries. Null when the account has neither.
 */
export async function balanceAnchor(store: Store, key: AccountKey, scale: bigint): Promise<BalanceAnchor | null> {
  const params = { bank: key.bank, account: key.accountId, scale };
  const types = BOOKED_BALANCE_TYPES.map((t) => `'${t}'`).join(', ');
  const stated = store.sqlite
    .prepare(
      `SELECT b.amount, b.date_time AS dateTime, 'balance' AS source FROM balances b
       WHERE b.bank = :bank AND b.account_id = :account AND b.type IN (${types})
       ORDER BY b.date_time DESC, b.fetched_at DESC, b.id DESC LIMIT 1`,
    )
    .get(params) as { amount: string; dateTime: string; source: 'balance' } | undefined;
  const running =
    stated ??
    (store.sqlite
      .prepare(
        `SELECT t.balance_after AS amount, t.booking_date_time AS dateTime, 'running_balance' AS source FROM transactions t
         WHERE ${BOOKED} AND t.balance_after IS NOT NULL ORDER BY t.booking_date_time DESC, t.transaction_id DESC LIMIT 1`,
      )
      .get(params) as { amount: string; dateTime: string; source: 'running_balance' } | undefined);
  if (!running) return null;
  const sums = store.sqlite
    .prepare(
      `SELECT coalesce(sum(${amountUnitsSql('t')}), 0) AS rowsUnits, ${unitsSql(':amount')} AS units
       FROM transactions t WHERE ${BOOKED} AND t.booking_date_time <= :at`,
    )
    .safeIntegers(true)
    .get({ ...params, at: running.dateTime, amount: running.amount }) as { rowsUnits: bigint; units: bigint };
  return { units: sums.units, dateTime: running.dateTime, rowsUnits: sums.rowsUnits, source: running.source };
}

export interface MonthlyFlow {
  /** YYYY-MM (NZ). */
  month: string;
  inUnits: bigint;
  outUnits: bigint;
  rows: number;
}

/** Booked money in and out per NZ month within [from, to] (NZ dates, either open). */
export async function monthlyFlows(
  store: Store,
  key: AccountKey,
  options: { scale: bigint; from: string | null; to: string | null },
): Promise<MonthlyFlow[]> {
  const units = amountUnitsSql('t');
  const rows = store.sqlite
    .prepare(
      `SELECT substr(t.booking_date, 1, 7) AS month,
              coalesce(sum(CASE WHEN ${units} > 0 THEN ${units} END), 0) AS inUnits,
              coalesce(sum(CASE WHEN ${units} < 0 THEN ${units} END), 0) AS outUnits,
              count(*) AS rows
       FROM transactions t
       WHERE ${BOOKED} AND (:from IS NULL OR t.booking_date >= :from) AND (:to IS NULL OR t.booking_date <= :to)
       GROUP BY month ORDER BY month`,
    )
    .safeIntegers(true)
    .all({ bank: key.bank, account: key.accountId, scale: options.scale, from: options.from, to: options.to }) as {
    month: string;
    inUnits: bigint;
    outUnits: bigint;
    rows: bigint;
  }[];
  return rows.map((r) => ({ ...r, rows: Number(r.rows) }));
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
  return store.sqlite
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
  return store.sqlite.prepare('SELECT * FROM v_runs ORDER BY started_at DESC LIMIT ?').all(limit) as ReportRun[];
}

export async function countPayments(store: Store): Promise<number> {
  return (store.sqlite.prepare('SELECT count(*) AS n FROM payments').get() as { n: number }).n;
}
