/**
 * The SQL of the continuity check (src/check; docs/continuity.md): booked balance snapshots with
 * the sums of booked transactions between them, the booked rows in running-balance order, the
 * look-ups that name a break's likely cause, and the findings (v_continuity). Written once for
 * both dialects over a SqlRunner (dialect-sql.ts holds the expressions spelt differently); the
 * Store exposes it as `store.continuity` (store.ts).
 *
 * Amounts are summed as exact integers: units of 1/100000 of the major unit (unitsOf), from
 * `amount_minor` where the row has one, else from the exact decimal text. The runner reads with
 * `safeIntegers`; results are parsed here, so both dialects give the same values.
 */
import { sql, type SQL } from 'drizzle-orm';
import type { AccountId, BankName, TransactionId } from '@bankdata/core/schemas';
import {
  lockAccounts,
  storedTransactionKeys,
  transactionKeyText,
  amountUnits,
  instantMinusDays,
  toBigInt,
  toNumber,
  toNumberOrNull,
  unitsOf,
  str,
  strOrNull,
} from './dialect-sql';
import type { ContinuityCause, ContinuityKind } from './sqlite/schema';
import type { SqlRow, SqlRunner } from './sql-runner';

/**
 * Findings written by one INSERT: 15 parameters each, 7,500 a statement (SQLite allows 32,766,
 * PostgreSQL 65,535).
 */
const FINDINGS_PER_INSERT = 500;

/** The balance types that hold booked rows only (available ones include pending rows and credit lines). */
export const BOOKED_BALANCE_TYPES = [
  'ClosingBooked',
  'InterimBooked',
  'OpeningBooked',
  'PreviouslyClosedBooked',
] as const;

/**
 * Which of an account's balances is its latest, wherever one is read (the OFX export's LEDGERBAL
 * and AVAILBAL, the report's anchor): the latest instant; at one instant a closing balance before
 * an interim one; of the amounts the bank stated for the same instant and type (a restatement),
 * the one the latest fetch returned (`last_seen_at`: a balance fetched again records it, so one
 * restated back to an earlier amount is that amount again), then the one first fetched later,
 * then the one stored later (the greater id), so that the choice is one and the same for every
 * reader, the check's snapshots included (balanceSnapshots). Over `balances`, unqualified.
 */
export const LATEST_BALANCE_FIRST = sql.raw(
  `date_time DESC, type LIKE 'Closing%' DESC, last_seen_at DESC, fetched_at DESC, id DESC`,
);

export interface AccountKey {
  bank: BankName;
  accountId: AccountId;
}

export interface CheckAccount extends AccountKey {
  currency: string;
}

export interface TransactionCoverage {
  consentId: string;
  /** Space-separated permissions of the consent. */
  permissions: string | null;
  startDateTime: string | null;
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

/**
 * A row of the running-balance walk and the row before it in booking order (booking instant, then
 * transaction id), where the row's running balance is not the one before plus its amount. Amounts
 * and balances in units.
 */
export interface RunningStepRow {
  transactionId: TransactionId;
  bookingDateTime: string;
  bookingDate: string;
  units: bigint;
  balanceUnits: bigint;
  beforeTransactionId: TransactionId;
  beforeBookingDateTime: string;
  beforeBalanceUnits: bigint;
}

/** A booked row of the walk with its amount and running balance in units (the balance null when the bank sent none). */
export interface BookedUnitsRow {
  transactionId: TransactionId;
  bookingDateTime: string;
  bookingDate: string;
  units: bigint;
  balanceUnits: bigint | null;
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

/** A pending row of an account: its instant and amount in units (what the check's pending-row rule compares). */
export interface PendingAmount {
  bookingDateTime: string;
  units: bigint;
}

export interface UnitsRange {
  from: string;
  to: string;
  units: bigint;
  scale: bigint;
}

/** The operations of `store.continuity` (documented in store.ts). */
export interface ContinuityReads {
  listAccounts(filter?: { accountId?: string }): Promise<CheckAccount[]>;
  transactionCoverage(key: AccountKey): Promise<TransactionCoverage[]>;
  balanceSnapshots(
    key: AccountKey,
    options: { scale: bigint; lateWindowDays: number; from: string },
  ): Promise<BalanceSnapshotRow[]>;
  latestBookingDateTime(key: AccountKey): Promise<string | null>;
  runningSteps(
    key: AccountKey,
    options: { from: string; horizon: string | null; scale: bigint },
  ): Promise<RunningStepRow[]>;
  sharedInstants(key: AccountKey, from: string): Promise<string[]>;
  bookedRowsAround(
    key: AccountKey,
    options: { from: string; first: string; scale: bigint },
  ): Promise<{ before: BookedUnitsRow | null; rows: BookedUnitsRow[] }>;
  hasLookAlikeRows(key: AccountKey, range: UnitsRange): Promise<boolean>;
  pendingAmounts(key: AccountKey, scale: bigint): Promise<PendingAmount[]>;
  replaceFindings(input: {
    accounts: readonly AccountKey[];
    findings: readonly ContinuityFinding[];
    runId: string | null;
    checkedAt: string;
  }): Promise<void>;
  listFindings(filter?: { accountId?: string }): Promise<ContinuityViewRow[]>;
  countFindings(): Promise<number>;
}

/** A row of v_continuity: its columns but `amount`, whose exact text is `amount_text`. */
export interface ContinuityViewRow {
  bank: string;
  account_id: string;
  kind: string;
  from_date: string;
  to_date: string;
  amount_minor: number | null;
  currency: string;
  cause: string;
  transaction_id: string | null;
  detail: string;
  from_date_time: string;
  to_date_time: string;
  run_id: string | null;
  checked_at: string;
  amount_text: string;
}

function continuityViewRow(r: SqlRow): ContinuityViewRow {
  return {
    bank: str(r.bank),
    account_id: str(r.account_id),
    kind: str(r.kind),
    from_date: str(r.from_date),
    to_date: str(r.to_date),
    amount_minor: toNumberOrNull(r.amount_minor),
    currency: str(r.currency),
    cause: str(r.cause),
    transaction_id: strOrNull(r.transaction_id),
    detail: str(r.detail),
    from_date_time: str(r.from_date_time),
    to_date_time: str(r.to_date_time),
    run_id: strOrNull(r.run_id),
    checked_at: str(r.checked_at),
    amount_text: str(r.amount_text),
  };
}

export function continuityReads(runner: SqlRunner): ContinuityReads {
  const d = runner.dialect;
  const bookedRow = (key: AccountKey): SQL =>
    sql`t.bank = ${key.bank} AND t.account_id = ${key.accountId} AND t.status = 'Booked' AND t.removed_at IS NULL`;
  const bookedTypes = sql.join(
    BOOKED_BALANCE_TYPES.map((t) => sql`${t}`),
    sql`, `,
  );
  const accountFilter = (column: SQL, accountId: string | undefined): SQL =>
    accountId === undefined ? sql`` : sql` WHERE ${column} = ${accountId}`;

  return {
    async listAccounts(filter = {}) {
      const rows = await runner.all(
        sql`SELECT bank, account_id, currency FROM accounts${accountFilter(sql`account_id`, filter.accountId)} ORDER BY bank, account_id`,
      );
      return rows.map((r) => ({
        bank: str(r.bank) as BankName,
        accountId: str(r.account_id) as AccountId,
        currency: str(r.currency),
      }));
    },

    async transactionCoverage(key) {
      const rows = await runner.all(
        sql`SELECT c.consent_id, c.permissions, c.start_date_time
            FROM sync_state s JOIN consents c ON c.consent_id = s.consent_id
            WHERE s.bank = ${key.bank} AND s.account_id = ${key.accountId} AND s.resource = 'transactions' AND s.watermark IS NOT NULL
            ORDER BY c.start_date_time NULLS FIRST`,
      );
      return rows.map((r) => ({
        consentId: str(r.consent_id),
        permissions: strOrNull(r.permissions),
        startDateTime: strOrNull(r.start_date_time),
      }));
    },

    /**
     * A balance the bank stated again for the same instant and type with another amount (a
     * restatement: `balances` keeps a row per amount) is one snapshot, the statement the latest
     * fetch returned (LATEST_BALANCE_FIRST, as the report's anchor and the OFX export's LEDGERBAL
     * read it); the statements it superseded are not compared, so the two are never a break. A
     * snapshot's `fetched_at` (the late rows' bound) stays the fetch that first returned its
     * amount: a row first seen after that the amount did not count, whenever it was stated again.
     */
    async balanceSnapshots(key, options) {
      const units = amountUnits(d, 't', options.scale);
      const rows = await runner.all(
        sql`WITH stated AS (
              SELECT id, type, amount, date_time, fetched_at,
                     row_number() OVER (PARTITION BY type, date_time ORDER BY ${LATEST_BALANCE_FIRST}) AS statement
              FROM balances
              WHERE bank = ${key.bank} AND account_id = ${key.accountId} AND type IN (${bookedTypes}) AND date_time >= ${options.from}
            ),
            s AS (
              SELECT b.id, b.type, b.amount, b.date_time, b.fetched_at,
                     lag(b.date_time) OVER w AS prev_date_time,
                     lead(b.fetched_at) OVER w AS next_fetched_at
              FROM stated b WHERE b.statement = 1
              WINDOW w AS (ORDER BY b.date_time, b.fetched_at, b.id)
            )
            SELECT s.date_time, s.fetched_at, s.type, s.amount,
              CASE WHEN s.prev_date_time IS NULL THEN 0 ELSE (
                SELECT coalesce(sum(${units}), 0) FROM transactions t
                WHERE ${bookedRow(key)} AND t.booking_date_time > s.prev_date_time AND t.booking_date_time <= s.date_time
              ) END AS between_units,
              CASE WHEN s.next_fetched_at IS NULL THEN 0 ELSE (
                SELECT coalesce(sum(${units}), 0) FROM transactions t
                WHERE ${bookedRow(key)} AND t.booking_date_time <= s.date_time
                  AND t.booking_date_time > ${instantMinusDays(d, sql`s.date_time`, options.lateWindowDays)}
                  AND t.first_seen_at > s.next_fetched_at
              ) END AS late_units
            FROM s ORDER BY s.date_time, s.fetched_at, s.id`,
      );
      return rows.map((r) => ({
        dateTime: str(r.date_time),
        fetchedAt: str(r.fetched_at),
        type: str(r.type),
        amount: str(r.amount),
        betweenUnits: toBigInt(r.between_units),
        lateUnits: toBigInt(r.late_units),
      }));
    },

    async latestBookingDateTime(key) {
      const row = await runner.get(
        sql`SELECT max(booking_date_time) AS latest FROM transactions WHERE bank = ${key.bank} AND account_id = ${key.accountId}`,
      );
      return strOrNull(row?.latest);
    },

    /**
     * The running-balance walk's breaks, set-based: one pass over the account's booked rows in
     * booking order (the transactions_account_rows index: no sort, no table read) with the row
     * before each one (lag), keeping the rows whose balance is not the one before plus their
     * amount. A row at the instant of the row before is left out, and the caller leaves out the
     * rest of such a stretch (the first row of a shared instant, the row after): their order is
     * the one their balances chain in, which bookedRowsAround gives the walk (check-accounts.ts).
     * Rows booked after `horizon` are not judged.
     */
    async runningSteps(key, options) {
      const units = amountUnits(d, 't', options.scale);
      const balance = unitsOf(d, sql`t.balance_after`);
      const horizon = options.horizon === null ? sql`` : sql` AND w.booking_date_time <= ${options.horizon}`;
      // Three lags only: each costs about a pass's worth of work in SQLite. A finding names the row
      // before by its id, instant and balance; it needs nothing else of it.
      const rows = await runner.all(
        sql`WITH w AS (
              SELECT t.transaction_id, t.booking_date_time, t.booking_date, ${units} AS units, ${balance} AS balance_units,
                     lag(${balance}) OVER o AS before_balance_units,
                     lag(t.booking_date_time) OVER o AS before_at,
                     lag(t.transaction_id) OVER o AS before_id
              FROM transactions t WHERE ${bookedRow(key)} AND t.booking_date_time >= ${options.from}
              WINDOW o AS (ORDER BY t.booking_date_time, t.transaction_id)
            )
            SELECT w.* FROM w
            WHERE w.balance_units - w.units <> w.before_balance_units AND w.booking_date_time <> w.before_at${horizon}
            ORDER BY w.booking_date_time, w.transaction_id`,
      );
      return rows.map((r) => ({
        transactionId: str(r.transaction_id) as TransactionId,
        bookingDateTime: str(r.booking_date_time),
        bookingDate: str(r.booking_date),
        units: toBigInt(r.units),
        balanceUnits: toBigInt(r.balance_units),
        beforeTransactionId: str(r.before_id) as TransactionId,
        beforeBookingDateTime: str(r.before_at),
        beforeBalanceUnits: toBigInt(r.before_balance_units),
      }));
    },

    /** The instants from `from` on that two or more booked rows share (one pass along the index, grouped). */
    async sharedInstants(key, from) {
      const rows = await runner.all(
        sql`SELECT t.booking_date_time FROM transactions t WHERE ${bookedRow(key)} AND t.booking_date_time >= ${from}
            GROUP BY t.booking_date_time HAVING count(*) > 1 ORDER BY t.booking_date_time`,
      );
      return rows.map((r) => str(r.booking_date_time));
    },

    /**
     * The booked rows the walk needs around the shared instant `first`: the row before it (the
     * walk's row before the group; null at the start), then every row from `first` up to and
     * including the next row whose instant no other row shares, in booking order.
     */
    async bookedRowsAround(key, options) {
      const units = amountUnits(d, 't', options.scale);
      const balance = sql`CASE WHEN t.balance_after IS NULL THEN NULL ELSE ${unitsOf(d, sql`t.balance_after`)} END`;
      const columns = sql`t.transaction_id, t.booking_date_time, t.booking_date, ${units} AS units, ${balance} AS balance_units`;
      const parse = (r: SqlRow): BookedUnitsRow => ({
        transactionId: str(r.transaction_id) as TransactionId,
        bookingDateTime: str(r.booking_date_time),
        bookingDate: str(r.booking_date),
        units: toBigInt(r.units),
        balanceUnits: r.balance_units === null || r.balance_units === undefined ? null : toBigInt(r.balance_units),
      });
      const before = await runner.get(
        sql`SELECT ${columns} FROM transactions t
            WHERE ${bookedRow(key)} AND t.booking_date_time >= ${options.from} AND t.booking_date_time < ${options.first}
            ORDER BY t.booking_date_time DESC, t.transaction_id DESC LIMIT 1`,
      );
      // The first instant after `first` with one row: its group ends the stretch whose order the balances set.
      const after = await runner.get(
        sql`SELECT t.booking_date_time FROM transactions t WHERE ${bookedRow(key)} AND t.booking_date_time > ${options.first}
            GROUP BY t.booking_date_time HAVING count(*) = 1 ORDER BY t.booking_date_time LIMIT 1`,
      );
      const upTo = after === undefined ? sql`` : sql` AND t.booking_date_time <= ${str(after.booking_date_time)}`;
      const rows = await runner.all(
        sql`SELECT ${columns} FROM transactions t WHERE ${bookedRow(key)} AND t.booking_date_time >= ${options.first}${upTo}
            ORDER BY t.booking_date_time, t.transaction_id`,
      );
      return { before: before === undefined ? null : parse(before), rows: rows.map(parse) };
    },

    async hasLookAlikeRows(key, range) {
      const row = await runner.get(
        sql`SELECT 1 AS found FROM transactions t
            WHERE ${bookedRow(key)} AND t.booking_date_time > ${range.from} AND t.booking_date_time <= ${range.to}
              AND ${amountUnits(d, 't', range.scale)} = ${range.units}
            GROUP BY t.booking_date_time, t.amount, coalesce(t.description, ''), coalesce(t.merchant_name, '')
            HAVING count(*) > 1 LIMIT 1`,
      );
      return row !== undefined;
    },

    /**
     * Every pending row of the account, by instant: the check answers "a pending row of this amount?" for
     * each of its findings from these (pending rows are few; the findings may be 100,000s, a query each).
     */
    async pendingAmounts(key, scale) {
      const rows = await runner.all(
        sql`SELECT t.booking_date_time, ${amountUnits(d, 't', scale)} AS units FROM transactions t
            WHERE t.bank = ${key.bank} AND t.account_id = ${key.accountId} AND t.status = 'Pending'
            ORDER BY t.booking_date_time`,
      );
      return rows.map((r) => ({ bookingDateTime: str(r.booking_date_time), units: toBigInt(r.units) }));
    },

    async replaceFindings(input) {
      // Two workers may check one account (read through consents each of them synced): each
      // replaces its findings behind the account's write lock, in one order (no deadlock), so the
      // second DELETE sees the first one's rows and the findings are never there twice.
      const accountText = (a: AccountKey) => JSON.stringify([a.bank, a.accountId]);
      await runner.transaction(async (tx) => {
        const stillStored = new Set<string>();
        for (const account of await lockAccounts(tx, input.accounts)) {
          await tx.run(
            sql`DELETE FROM continuity_findings WHERE bank = ${account.bank} AND account_id = ${account.accountId}`,
          );
          const held = await tx.get(
            sql`SELECT 1 AS one FROM accounts WHERE bank = ${account.bank} AND account_id = ${account.accountId} LIMIT 1`,
          );
          if (held) stillStored.add(accountText(account));
        }
        // Only findings of accounts, and naming transactions, still stored: a `consents forget` that
        // committed since the check read them deleted the others (it takes the same locks).
        const named = await storedTransactionKeys(
          tx,
          input.findings.flatMap((f) => (f.transactionId === null ? [] : [{ ...f, transactionId: f.transactionId }])),
        );
        const checked = new Set(input.accounts.map(accountText));
        const findings = input.findings.filter(
          (f) =>
            (!checked.has(accountText(f)) || stillStored.has(accountText(f))) &&
            (f.transactionId === null || named.has(transactionKeyText({ ...f, transactionId: f.transactionId }))),
        );
        // FINDINGS_PER_INSERT rows a statement: an account's findings are not bounded (100,000s).
        for (let start = 0; start < findings.length; start += FINDINGS_PER_INSERT) {
          const values = findings.slice(start, start + FINDINGS_PER_INSERT).map(
            (f) =>
              sql`(${f.bank}, ${f.accountId}, ${f.kind}, ${f.fromDateTime}, ${f.toDateTime}, ${f.fromDate}, ${f.toDate}, ${f.amount},
                  ${f.amountMinor}, ${f.currency}, ${f.cause}, ${f.transactionId}, ${f.detail}, ${input.runId}, ${input.checkedAt})`,
          );
          await tx.run(
            sql`INSERT INTO continuity_findings (bank, account_id, kind, from_date_time, to_date_time, from_date, to_date, amount,
                  amount_minor, currency, cause, transaction_id, detail, run_id, checked_at)
                VALUES ${sql.join(values, sql`, `)}`,
          );
        }
      });
    },

    /** Rows of v_continuity, per account and date. */
    async listFindings(filter = {}) {
      const rows = await runner.all(
        sql`SELECT bank, account_id, kind, from_date, to_date, amount_minor, currency, cause, transaction_id, detail,
                   from_date_time, to_date_time, run_id, checked_at, amount_text
            FROM v_continuity${accountFilter(sql`account_id`, filter.accountId)} ORDER BY bank, account_id, from_date_time, kind`,
      );
      return rows.map(continuityViewRow);
    },

    async countFindings() {
      const row = await runner.get(sql`SELECT count(*) AS n FROM continuity_findings`);
      return toNumber(row?.n);
    },
  };
}
