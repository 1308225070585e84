/**
 * The SQL of the HTML report (src/report): aggregates only, so that a database of millions of
 * rows never comes into memory. Per account: booked movement per NZ day (exact integer units,
 * see dialect-sql.ts unitsOf), and the anchor that turns daily movement into a balance. Written
 * once for both dialects over a SqlRunner read with `safeIntegers`; the Store exposes it as
 * `store.reportData` (store.ts).
 */
import { sql } from 'drizzle-orm';
import type { AccountId, BankName } from '@bankdata/core/schemas';
import { BOOKED_BALANCE_TYPES, LATEST_BALANCE_FIRST, type AccountKey } from './continuity';
import { amountUnits, toBigInt, toNumber, toNumberOrNull, unitsOf, str, strOrNull } from './dialect-sql';
import type { SqlRow, SqlRunner } from './sql-runner';
import { UNCATEGORISED } from './categories';
import { chainEnd } from './balance-chain';

export interface ReportAccount extends AccountKey {
  currency: string;
  nickname: string | null;
  /** The bank's description of the account (v_accounts), the report's name for it when it has no nickname. */
  description: string | null;
  accountType: string | null;
  accountSubtype: string | null;
  consentId: string;
}

export interface DailyFlow {
  /** NZ date. */
  date: string;
  inUnits: bigint;
  outUnits: bigint;
}

/** The part of dailyFlows the check suspects the bank served twice (duplicateFlows), and how many rows. */
export interface DuplicateFlow extends DailyFlow {
  rows: number;
}

export interface CategoryMonthSpend {
  category: string;
  /** NZ month (YYYY-MM) of the booking date. */
  month: string;
  /** The month's debits of that category, in units (negative, as money out is). */
  outUnits: bigint;
}

export interface BalanceAnchor {
  /** A balance the bank stated, in units, and the instant it held. */
  units: bigint;
  dateTime: string;
  /** Booked rows after that instant but on or before its NZ date (to cut that day's sum at the instant). */
  laterSameDayUnits: bigint;
  source: 'balance' | 'running_balance';
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
  /** The registry's reason it ended (consents.ended_reason; src/store/consent-state.ts), not a v_consents column. */
  ended_reason: string | null;
}

/** The operations of `store.reportData` (documented in store.ts). */
export interface ReportReads {
  accounts(filter?: { accountId?: string }): Promise<ReportAccount[]>;
  dailyFlows(key: AccountKey, scale: bigint): Promise<DailyFlow[]>;
  transferFlows(key: AccountKey, scale: bigint): Promise<DailyFlow[]>;
  duplicateFlows(key: AccountKey, scale: bigint): Promise<DuplicateFlow[]>;
  categorySpend(key: AccountKey, options: { scale: bigint; from: string; to: string }): Promise<CategoryMonthSpend[]>;
  balanceAnchor(
    key: AccountKey,
    options: { scale: bigint; nzDateOf: (instant: string) => string },
  ): Promise<BalanceAnchor | null>;
  consents(): Promise<ReportConsent[]>;
  countPayments(): Promise<number>;
}

export function reportReads(runner: SqlRunner): ReportReads {
  const d = runner.dialect;
  const booked = (key: AccountKey) =>
    sql`t.bank = ${key.bank} AND t.account_id = ${key.accountId} AND t.status = 'Booked' AND t.removed_at IS NULL`;
  // A row the check suspects the bank served twice: an open suspicion (docs/continuity.md
  // "Duplicates the bank served"; v_transactions.suspected_duplicate).
  const suspected = sql`EXISTS (SELECT 1 FROM duplicate_suspicions s WHERE s.bank = t.bank
      AND s.account_id = t.account_id AND s.transaction_id = t.transaction_id AND s.cleared_at IS NULL)`;

  return {
    async accounts(filter = {}) {
      const where = filter.accountId === undefined ? sql`` : sql` WHERE account_id = ${filter.accountId}`;
      const rows = await runner.all(
        sql`SELECT bank, account_id, currency, nickname, description, account_type, account_subtype, consent_id
            FROM v_accounts${where} ORDER BY bank, account_id`,
      );
      return rows.map((r) => ({
        bank: str(r.bank) as BankName,
        accountId: str(r.account_id) as AccountId,
        currency: str(r.currency),
        nickname: strOrNull(r.nickname),
        description: strOrNull(r.description),
        accountType: strOrNull(r.account_type),
        accountSubtype: strOrNull(r.account_subtype),
        consentId: str(r.consent_id),
      }));
    },

    /**
     * Booked money in and out per NZ booking date, oldest first: one pass over the account's rows
     * (every date: the balance line needs them all; months are summed from days). Read as a stream
     * (sql-runner.ts `iterate`): on SQLite that pass runs on the streaming page cache, so the
     * report's memory does not hold the pages of every account's rows (docs/benchmarks.md "Report
     * and check").
     */
    async dailyFlows(key, scale) {
      const units = amountUnits(d, 't', scale);
      const days: DailyFlow[] = [];
      for await (const batch of runner.iterate(
        sql`SELECT t.booking_date AS date,
                   coalesce(sum(CASE WHEN ${units} > 0 THEN ${units} END), 0) AS in_units,
                   coalesce(sum(CASE WHEN ${units} < 0 THEN ${units} END), 0) AS out_units
            FROM transactions t WHERE ${booked(key)} GROUP BY t.booking_date ORDER BY t.booking_date`,
      ))
        for (const r of batch)
          days.push({ date: str(r.date), inUnits: toBigInt(r.in_units), outUnits: toBigInt(r.out_units) });
      return days;
    },

    /**
     * The part of dailyFlows that is own-account transfers (docs/transfers.md): the account's
     * booked rows linked in v_transfers, money in (its credits) and out (its debits) per NZ
     * booking date. Read through transfer_links' indexes: the links are few, no pass over the rows.
     */
    async transferFlows(key, scale) {
      const units = amountUnits(d, 't', scale);
      const side = (name: 'debit' | 'credit') => {
        const c = (column: string) => sql.raw(`l.${name}_${column}`);
        return sql`SELECT t.booking_date AS date, ${units} AS units FROM transfer_links l
          JOIN transactions t ON t.bank = ${c('bank')} AND t.account_id = ${c('account_id')} AND t.transaction_id = ${c('transaction_id')}
          WHERE ${c('bank')} = ${key.bank} AND ${c('account_id')} = ${key.accountId} AND l.status = 'linked'
            AND t.status = 'Booked' AND t.removed_at IS NULL`;
      };
      const rows = await runner.all(
        sql`SELECT s.date,
                   coalesce(sum(CASE WHEN s.units > 0 THEN s.units END), 0) AS in_units,
                   coalesce(sum(CASE WHEN s.units < 0 THEN s.units END), 0) AS out_units
            FROM (${side('debit')} UNION ALL ${side('credit')}) s GROUP BY s.date ORDER BY s.date`,
      );
      return rows.map((r) => ({ date: str(r.date), inUnits: toBigInt(r.in_units), outUnits: toBigInt(r.out_units) }));
    },

    /**
     * The part of dailyFlows the check suspects the bank served twice (an open suspicion,
     * docs/continuity.md "Duplicates the bank served"): money in and out per NZ booking date and the
     * rows, which money in and out and spend by category leave out. A row linked as an own-account
     * transfer is left to transferFlows (taken out once). Read through duplicate_suspicions' key:
     * the suspicions are few, no pass over the rows.
     */
    async duplicateFlows(key, scale) {
      const units = amountUnits(d, 't', scale);
      const linked = sql`EXISTS (SELECT 1 FROM transfer_links l WHERE l.status = 'linked' AND (
          (l.debit_bank = t.bank AND l.debit_account_id = t.account_id AND l.debit_transaction_id = t.transaction_id)
          OR (l.credit_bank = t.bank AND l.credit_account_id = t.account_id AND l.credit_transaction_id = t.transaction_id)))`;
      const rows = await runner.all(
        sql`SELECT t.booking_date AS date, count(*) AS n,
                   coalesce(sum(CASE WHEN ${units} > 0 THEN ${units} END), 0) AS in_units,
                   coalesce(sum(CASE WHEN ${units} < 0 THEN ${units} END), 0) AS out_units
            FROM duplicate_suspicions s
            JOIN transactions t ON t.bank = s.bank AND t.account_id = s.account_id AND t.transaction_id = s.transaction_id
            WHERE s.bank = ${key.bank} AND s.account_id = ${key.accountId} AND s.cleared_at IS NULL
              AND t.status = 'Booked' AND t.removed_at IS NULL AND NOT ${linked}
            GROUP BY t.booking_date ORDER BY t.booking_date`,
      );
      return rows.map((r) => ({
        date: str(r.date),
        rows: toNumber(r.n),
        inUnits: toBigInt(r.in_units),
        outUnits: toBigInt(r.out_units),
      }));
    },

    /**
     * Spend by category per NZ month (docs/categories.md "The report"): the account's booked
     * debits between two NZ dates (inclusive), grouped by v_transactions' category (no decision
     * yet: 'uncategorised', as the view says) and by the month of the booking date, summed in
     * exact units. Rows linked as an own-account transfer (either side, docs/transfers.md) and
     * rows the check suspects the bank served twice (an open suspicion) are left out, as money in
     * and out leaves them out. Ordered by category, then month.
     */
    async categorySpend(key, options) {
      const units = amountUnits(d, 't', options.scale);
      // Only the link's debit side can be one of these rows: a link's credit side has
      // amount_minor > 0 (store/transfers.ts, the candidates' query), and a Debit row's amount_minor
      // is negative or 0 (core's money.ts amountMinor), so a "credit side" test here finds nothing.
      const linkedAsDebit = sql`EXISTS (SELECT 1 FROM transfer_links l WHERE l.status = 'linked'
          AND l.debit_bank = t.bank AND l.debit_account_id = t.account_id AND l.debit_transaction_id = t.transaction_id)`;
      // Grouped by position: the category's parameter written twice would be two expressions to PostgreSQL.
      const rows = await runner.all(
        sql`SELECT coalesce(c.category, ${UNCATEGORISED}) AS category, substr(t.booking_date, 1, 7) AS month,
                   sum(${units}) AS out_units
            FROM transactions t
            LEFT JOIN transaction_categories c
              ON c.bank = t.bank AND c.account_id = t.account_id AND c.transaction_id = t.transaction_id
            WHERE ${booked(key)} AND t.credit_debit_indicator = 'Debit'
              AND t.booking_date >= ${options.from} AND t.booking_date <= ${options.to}
              AND NOT ${linkedAsDebit} AND NOT ${suspected}
            GROUP BY 1, 2
            ORDER BY 1, 2`,
      );
      return rows.map((r) => ({ category: str(r.category), month: str(r.month), outUnits: toBigInt(r.out_units) }));
    },

    /**
     * What turns movement into a balance: the latest booked balance held, else the latest running
     * balance a row carries. Null when the account has neither.
     */
    async balanceAnchor(key, options) {
      const types = sql.join(
        BOOKED_BALANCE_TYPES.map((t) => sql`${t}`),
        sql`, `,
      );
      const stated = await runner.get(
        sql`SELECT b.amount, b.date_time FROM balances b
            WHERE b.bank = ${key.bank} AND b.account_id = ${key.accountId} AND b.type IN (${types})
            ORDER BY ${LATEST_BALANCE_FIRST} LIMIT 1`,
      );
      const found: { row: SqlRow; source: BalanceAnchor['source'] } | null = stated
        ? { row: stated, source: 'balance' }
        : await runner
            .all(
              sql`SELECT t.balance_after AS amount, t.booking_date_time AS date_time,
                         ${amountUnits(d, 't', options.scale)} AS units, ${unitsOf(d, sql`t.balance_after`)} AS after_units
                  FROM transactions t
                  WHERE ${booked(key)} AND t.balance_after IS NOT NULL AND t.booking_date_time = (
                    SELECT max(t.booking_date_time) FROM transactions t WHERE ${booked(key)} AND t.balance_after IS NOT NULL)
                  ORDER BY t.transaction_id DESC`,
            )
            .then(async (rows) => {
              const at = rows[0]?.date_time;
              // The running balance before the instant, where the instant's chain starts: the end
              // of the chain of the instant before (its largest id is any of its rows, not its last).
              const beforeRows =
                at === undefined
                  ? []
                  : await runner.all(
                      sql`SELECT ${amountUnits(d, 't', options.scale)} AS units, ${unitsOf(d, sql`t.balance_after`)} AS after_units
                          FROM transactions t
                          WHERE ${booked(key)} AND t.balance_after IS NOT NULL AND t.booking_date_time = (
                            SELECT max(t.booking_date_time) FROM transactions t
                            WHERE ${booked(key)} AND t.balance_after IS NOT NULL AND t.booking_date_time < ${str(at)})
                          ORDER BY t.transaction_id`,
                    );
              const units = (r: SqlRow) => ({ amount: toBigInt(r.units), after: toBigInt(r.after_units) });
              const before = chainEnd(beforeRows, units);
              const prior = before ? units(before).after : null;
              const row = chainEnd(rows, units, prior);
              return row ? { row, source: 'running_balance' as const } : null;
            });
      if (!found) return null;
      const dateTime = str(found.row.date_time);
      const amount = str(found.row.amount);
      const sums = await runner.get(
        sql`SELECT coalesce(sum(${amountUnits(d, 't', options.scale)}), 0) AS later, ${unitsOf(d, d === 'postgres' ? sql`${amount}::text` : sql`${amount}`)} AS units
            FROM transactions t WHERE ${booked(key)} AND t.booking_date_time > ${dateTime} AND t.booking_date <= ${options.nzDateOf(dateTime)}`,
      );
      return { units: toBigInt(sums?.units), dateTime, laterSameDayUnits: toBigInt(sums?.later), source: found.source };
    },

    async consents() {
      const rows = await runner.all(
        sql`SELECT v.consent_id, v.bank, v.status, v.start_date_time, v.end_date_time, v.expiration_date_time,
                   v.days_to_expiry, v.last_synced_at, v.last_outcome, c.ended_reason
            FROM v_consents v JOIN consents c ON c.consent_id = v.consent_id ORDER BY v.bank NULLS FIRST, v.consent_id`,
      );
      return rows.map((r) => ({
        consent_id: str(r.consent_id),
        bank: strOrNull(r.bank) as BankName | null,
        status: strOrNull(r.status),
        start_date_time: strOrNull(r.start_date_time),
        end_date_time: strOrNull(r.end_date_time),
        expiration_date_time: strOrNull(r.expiration_date_time),
        days_to_expiry: toNumberOrNull(r.days_to_expiry),
        last_synced_at: strOrNull(r.last_synced_at),
        last_outcome: strOrNull(r.last_outcome),
        ended_reason: strOrNull(r.ended_reason),
      }));
    },

    async countPayments() {
      const row = await runner.get(sql`SELECT count(*) AS n FROM payments`);
      return toNumber(row?.n);
    },
  };
}
