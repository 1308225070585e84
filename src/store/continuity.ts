/**
 * The SQL of the continuity check (src/check; docs/continuity.md): booked balance snapshots with
 * the sums of booked transactions between them, the booked rows in running-balance order, the
 * look-ups that name a break's likely cause, and the findings (v_continuity).
 *
 * Amounts are summed as exact integers: units of 1/100000 of the major unit (unitsSql), from
 * `amount_minor` where the row has one, else from the exact decimal text. Async, so callers
 * do not depend on the driver being synchronous.
 */
import type { AccountId, BankName, TransactionId } from '../api/schemas';
import type { ContinuityCause, ContinuityKind } from './schema';
import { sqliteOf } from './sqlite-store';
import type { Store } from './store';

/** The balance types that hold booked rows only (available ones include pending rows and credit lines). */
export const BOOKED_BALANCE_TYPES = ['ClosingBooked', 'InterimBooked', 'OpeningBooked', 'PreviouslyClosedBooked'] as const;

/**
 * An exact integer count of 1/100000 of the major unit from a signed decimal text column
 * (at most 5 fraction digits, the wire's amount pattern). Pure SQL integer arithmetic.
 */
export function unitsSql(column: string): string {
  const abs = `ltrim(${column}, '-')`;
  const dot = `instr(${abs}, '.')`;
  const whole = `CASE WHEN ${dot} = 0 THEN ${abs} ELSE substr(${abs}, 1, ${dot} - 1) END`;
  const fraction = `CASE WHEN ${dot} = 0 THEN '' ELSE substr(${abs}, ${dot} + 1) END`;
  return `((CASE WHEN substr(${column}, 1, 1) = '-' THEN -1 ELSE 1 END) * (CAST(${whole} AS INTEGER) * 100000 + CAST(substr(${fraction} || '00000', 1, 5) AS INTEGER)))`;
}

/** Units of a row's amount: amount_minor scaled (fast) where present, else the text. `:scale` = units per minor unit. */
export function amountUnitsSql(alias: string): string {
  return `(CASE WHEN ${alias}.amount_minor IS NOT NULL THEN ${alias}.amount_minor * :scale ELSE ${unitsSql(`${alias}.amount`)} END)`;
}

const BOOKED_ROW = `t.bank = :bank AND t.account_id = :account AND t.status = 'Booked' AND t.removed_at IS NULL`;

export interface AccountKey {
  bank: BankName;
  accountId: AccountId;
}

export interface CheckAccount extends AccountKey {
  currency: string;
}

export async function listCheckAccounts(store: Store, filter: { accountId?: string } = {}): Promise<CheckAccount[]> {
  const rows = sqliteOf(store)
    .prepare(
      `SELECT bank, account_id AS accountId, currency FROM accounts
       WHERE (:account IS NULL OR account_id = :account) ORDER BY bank, account_id`,
    )
    .all({ account: filter.accountId ?? null }) as CheckAccount[];
  return rows;
}

export interface TransactionCoverage {
  consentId: string;
  /** Space-separated permissions of the consent. */
  permissions: string | null;
  startDateTime: string | null;
}

/** The consents through which the account's transactions were synced (a watermark is set). */
export async function listTransactionCoverage(store: Store, key: AccountKey): Promise<TransactionCoverage[]> {
  return sqliteOf(store)
    .prepare(
      `SELECT c.consent_id AS consentId, c.permissions, c.start_date_time AS startDateTime
       FROM sync_state s JOIN consents c ON c.consent_id = s.consent_id
       WHERE s.bank = :bank AND s.account_id = :account AND s.resource = 'transactions' AND s.watermark IS NOT NULL
       ORDER BY c.start_date_time`,
    )
    .all({ bank: key.bank, account: key.accountId }) as TransactionCoverage[];
}

export interface BalanceSnapshotRow {
  dateTime: string;
  fetchedAt: string;
  type: string;
  amount: string;
  /** Booked rows with the previous snapshot's date_time < booking ≤ this one's (0 for the first). */
  betweenUnits: bigint;
  /**
   * Booked rows booked up to `lateWindowDays` before this snapshot's date_time and first seen
   * only after the next snapshot was fetched: rows the bank may have posted after this balance
   * was read, with an earlier booking date (backdated). 0 for the last snapshot.
   */
  lateUnits: bigint;
}

/** The account's booked balance snapshots, oldest first, with the sums the check compares. */
export async function readBalanceSnapshots(
  store: Store,
  key: AccountKey,
  options: { scale: bigint; lateWindowDays: number; from: string },
): Promise<BalanceSnapshotRow[]> {
  const types = BOOKED_BALANCE_TYPES.map((t) => `'${t}'`).join(', ');
  const rows = sqliteOf(store)
    .prepare(
      `WITH s AS (
         SELECT b.id, b.type, b.amount, b.date_time, b.fetched_at,
                lag(b.date_time) OVER w AS prev_date_time,
                lead(b.fetched_at) OVER w AS next_fetched_at
         FROM balances b
         WHERE b.bank = :bank AND b.account_id = :account AND b.type IN (${types}) AND b.date_time >= :from
         WINDOW w AS (ORDER BY b.date_time, b.fetched_at, b.id)
       )
       SELECT s.date_time AS dateTime, s.fetched_at AS fetchedAt, s.type, s.amount,
         CASE WHEN s.prev_date_time IS NULL THEN 0 ELSE (
           SELECT coalesce(sum(${amountUnitsSql('t')}), 0) FROM transactions t
           WHERE ${BOOKED_ROW} AND t.booking_date_time > s.prev_date_time AND t.booking_date_time <= s.date_time
         ) END AS betweenUnits,
         CASE WHEN s.next_fetched_at IS NULL THEN 0 ELSE (
           SELECT coalesce(sum(${amountUnitsSql('t')}), 0) FROM transactions t
           WHERE ${BOOKED_ROW} AND t.booking_date_time <= s.date_time
             AND t.booking_date_time > strftime('%Y-%m-%dT%H:%M:%fZ', s.date_time, :lateWindow)
             AND t.first_seen_at > s.next_fetched_at
         ) END AS lateUnits
       FROM s ORDER BY s.date_time, s.fetched_at, s.id`,
    )
    .safeIntegers(true)
    .all({
      bank: key.bank,
      account: key.accountId,
      scale: options.scale,
      lateWindow: `-${options.lateWindowDays} days`,
      from: options.from,
    }) as BalanceSnapshotRow[];
  return rows;
}

export interface RunningBalanceRow {
  transactionId: TransactionId;
  bookingDateTime: string;
  bookingDate: string;
  amount: string;
  /** The amount in minor units where it has no finer digits (cheaper to read than the text). */
  amountMinor: number | null;
  balanceAfter: string | null;
}

/**
 * The account's booked rows from `from` on in booking order, in batches (memory follows the
 * batch, not the row count; one await per batch, not per row).
 */
export async function* iterateBookedRows(store: Store, key: AccountKey, from: string, batchSize = 2000): AsyncGenerator<RunningBalanceRow[]> {
  const statement = sqliteOf(store).prepare(
    `SELECT t.transaction_id AS transactionId, t.booking_date_time AS bookingDateTime, t.booking_date AS bookingDate,
            t.amount, t.amount_minor AS amountMinor, t.balance_after AS balanceAfter
     FROM transactions t WHERE ${BOOKED_ROW} AND t.booking_date_time >= :from
     ORDER BY t.booking_date_time, t.transaction_id`,
  );
  let batch: RunningBalanceRow[] = [];
  for (const row of statement.iterate({ bank: key.bank, account: key.accountId, from })) {
    batch.push(row as RunningBalanceRow);
    if (batch.length === batchSize) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/** The latest booking instant among the account's rows, booked or pending (NULL when none). */
export async function latestBookingDateTime(store: Store, key: AccountKey): Promise<string | null> {
  const row = sqliteOf(store)
    .prepare(`SELECT max(booking_date_time) AS latest FROM transactions WHERE bank = :bank AND account_id = :account`)
    .get({ bank: key.bank, account: key.accountId }) as { latest: string | null };
  return row.latest;
}

/** True when two or more booked rows in (from, to] look alike (instant, amount, description) and each is `units`. */
export async function hasLookAlikeRows(
  store: Store,
  key: AccountKey,
  range: { from: string; to: string; units: bigint; scale: bigint },
): Promise<boolean> {
  const row = sqliteOf(store)
    .prepare(
      `SELECT 1 FROM transactions t
       WHERE ${BOOKED_ROW} AND t.booking_date_time > :from AND t.booking_date_time <= :to AND ${amountUnitsSql('t')} = :units
       GROUP BY t.booking_date_time, t.amount, coalesce(t.description, ''), coalesce(t.merchant_name, '')
       HAVING count(*) > 1 LIMIT 1`,
    )
    .get({ bank: key.bank, account: key.accountId, from: range.from, to: range.to, units: range.units, scale: range.scale });
  return row !== undefined;
}

/** True when a pending row (open or since removed) of `units` was booked within [from − 3 days, to]. */
export async function hasPendingOfAmount(
  store: Store,
  key: AccountKey,
  range: { from: string; to: string; units: bigint; scale: bigint },
): Promise<boolean> {
  const row = sqliteOf(store)
    .prepare(
      `SELECT 1 FROM transactions t
       WHERE t.bank = :bank AND t.account_id = :account AND t.status = 'Pending'
         AND t.booking_date_time >= strftime('%Y-%m-%dT%H:%M:%fZ', :from, '-3 days') AND t.booking_date_time <= :to
         AND ${amountUnitsSql('t')} = :units
       LIMIT 1`,
    )
    .get({ bank: key.bank, account: key.accountId, from: range.from, to: range.to, units: range.units, scale: range.scale });
  return row !== undefined;
}

export interface ContinuityFinding extends AccountKey {
  kind: ContinuityKind;
  fromDateTime: string;
  toDateTime: string;
  fromDate: string;
  toDate: string;
  amount: string;
  amountMinor: number | null;
  currency: string;
  cause: ContinuityCause;
  transactionId: TransactionId | null;
  detail: string;
}

/** Replaces the findings of the accounts checked, in one transaction. */
export async function replaceContinuityFindings(
  store: Store,
  input: { accounts: readonly AccountKey[]; findings: readonly ContinuityFinding[]; runId: string | null; checkedAt: string },
): Promise<void> {
  const remove = sqliteOf(store).prepare('DELETE FROM continuity_findings WHERE bank = ? AND account_id = ?');
  const insert = sqliteOf(store).prepare(
    `INSERT INTO continuity_findings (bank, account_id, kind, from_date_time, to_date_time, from_date, to_date, amount,
       amount_minor, currency, cause, transaction_id, detail, run_id, checked_at)
     VALUES (@bank, @accountId, @kind, @fromDateTime, @toDateTime, @fromDate, @toDate, @amount, @amountMinor, @currency,
       @cause, @transactionId, @detail, @runId, @checkedAt)`,
  );
  sqliteOf(store)
    .transaction(() => {
      for (const account of input.accounts) remove.run(account.bank, account.accountId);
      for (const finding of input.findings) insert.run({ ...finding, runId: input.runId, checkedAt: input.checkedAt });
    })
    .immediate();
}

/** Rows of v_continuity, per account and date. */
export async function listContinuityFindings(store: Store, filter: { accountId?: string } = {}): Promise<Record<string, unknown>[]> {
  return sqliteOf(store)
    .prepare(
      `SELECT * FROM v_continuity WHERE (:account IS NULL OR account_id = :account)
       ORDER BY bank, account_id, from_date_time, kind`,
    )
    .all({ account: filter.accountId ?? null }) as Record<string, unknown>[];
}

export async function countContinuityFindings(store: Store): Promise<number> {
  return (sqliteOf(store).prepare('SELECT count(*) AS n FROM continuity_findings').get() as { n: number }).n;
}
