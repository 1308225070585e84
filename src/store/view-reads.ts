/**
 * The export's reads over the public views (src/export; docs/exports.md), written once for both
 * dialects over a SqlRunner read with `safeIntegers` (the views have the same names and columns
 * on SQLite and PostgreSQL): a dataset's rows, filtered and in its total order, streamed in
 * batches; the accounts, range and balances an OFX statement needs; the consents that make a
 * transactions export partial. The Store exposes it as `store.views` (store.ts).
 *
 * Rows come back as arrays in file-column order, integers as BigInt (no float on the way) and
 * decimal amounts as the bank's exact text: the writers in src/export take them as they are.
 */
import { sql, type SQL } from 'drizzle-orm';
import { nzMidnight, nzMidnightAfter } from '@bankdata/core/nz-time';
import { epochSeconds, str, strOrNull } from './dialect-sql';
import type { SqlRow, SqlRunner } from './sql-runner';
import { toUnits } from '@bankdata/core/money';
import { chainEnd, chainOrder } from './balance-chain';
import { LATEST_BALANCE_FIRST } from './continuity';
import { DATASET_SPECS, type DatasetName, type DatasetSpec, type ViewFilters } from './view-datasets';

export interface ViewRows {
  /** The file's column names, in order (fileColumns). */
  columns: string[];
  /** The rows in batches, read as they are pulled (a cursor on PostgreSQL): memory follows the batch. */
  batches: AsyncIterable<unknown[][]>;
}

/** A v_accounts row as a statement export needs it. */
export interface ViewAccount {
  bank: string;
  account_id: string;
  consent_id: string;
  currency: string;
  account_subtype: string | null;
  identification: string | null;
}

export interface ViewRange {
  rows: number;
  firstDate: string | null;
  /** The last row in export order: booking instant, NZ date, running balance (exact text) if sent. */
  last: { bookingDateTime: string; bookingDate: string; balanceAfter: string | null } | null;
}

/** An account a transactions export covers, with its consent's permissions and window. */
export interface ExportScopeRow {
  bank: string;
  account_id: string;
  consent_id: string;
  permissions: string | null;
  start_date_time: string | null;
  end_date_time: string | null;
}

/** The operations of `store.views` (documented in store.ts). */
export interface ViewReads {
  rows(dataset: DatasetName, filters: ViewFilters, options?: { batchSize?: number }): Promise<ViewRows>;
  accounts(filter: { accountId?: string; consentId?: string; bank?: string }): Promise<ViewAccount[]>;
  range(filters: ViewFilters): Promise<ViewRange>;
  latestBalance(
    key: { bank: string; accountId: string },
    types: readonly string[],
    asOf: string | null,
  ): Promise<{ amount: string; dateTime: string } | null>;
  bookedAmounts(
    key: { bank: string; accountId: string },
    after: string,
    upTo: string,
    options?: { excludeDuplicates?: boolean },
  ): Promise<string[]>;
  consentPermissions(consentId: string): Promise<string | null>;
  exportScope(filters: ViewFilters): Promise<ExportScopeRow[]>;
  /**
   * Runs `work` with these reads on one read snapshot of the database (SqlRunner `snapshot`):
   * a document read in several queries (an OFX file's range, balances and rows) describes one
   * state, whatever a sync commits meanwhile. The rows must be read to their end before `work`
   * settles; on SQLite nothing else uses the connection until then.
   */
  snapshot<T>(work: (views: ViewReads) => Promise<T>): Promise<T>;
}

/**
 * Rows per batch of an export. PostgreSQL: one cursor round trip each. SQLite has no round trip
 * to save, so its batches are small: a batch is alive while it is written, and rows that outlive
 * a young-generation collection are promoted to V8's old space, which then grows by tens of
 * megabytes before a full collection (docs/benchmarks.md "Export").
 */
const ROWS_PER_BATCH = { sqlite: 64, postgres: 1024 } as const;

/** Unix seconds of 00:00 Pacific/Auckland on an NZ date. */
function nzMidnightSeconds(date: string): number {
  return nzMidnight(date).toSeconds();
}

const col = (name: string): SQL => sql`v.${sql.identifier(name)}`;

/**
 * The select list of a file: the view's columns in order, except that a column with an exact
 * text twin (`amount` and `amount_text`, version 0.2 of the views) is written from the text and
 * the twin is not repeated. Files keep their 0.1 form: `amount` is the bank's exact digits.
 */
/** Boolean columns of the views on PostgreSQL (0/1 on SQLite), written 0/1 in files. */
export const FLAG_COLUMNS: ReadonlySet<string> = new Set(['suspected_duplicate']);

export function fileColumns(viewColumns: readonly string[]): { name: string; source: string }[] {
  const names = new Set(viewColumns);
  return viewColumns
    .filter((c) => !(c.endsWith('_text') && names.has(c.slice(0, -'_text'.length))))
    .map((c) => ({ name: c, source: names.has(`${c}_text`) ? `${c}_text` : c }));
}

/**
 * The WHERE clause of a dataset's filters over its view (alias `v`), empty when none applies.
 * Instants are compared by instant (unix seconds), whatever their offset.
 */
export function filterClause(dialect: SqlRunner['dialect'], spec: DatasetSpec, filters: ViewFilters): SQL {
  const where: SQL[] = [];
  const { from, to } = filters;
  if (spec.dates && (from || to)) {
    const rule = spec.dates;
    const fromSec = from ? nzMidnightSeconds(from) : undefined;
    // The end of --to's day from its own midnight: 9999-12-31 has no next date's text.
    const toEndSec = to ? nzMidnightAfter(to).toSeconds() : undefined;
    const seconds = (column: string) => epochSeconds(dialect, col(column));
    if (rule.kind === 'nz-date-column') {
      if (from) where.push(sql`${col(rule.column)} >= ${from}`);
      if (to) where.push(sql`${col(rule.column)} <= ${to}`);
    } else if (rule.kind === 'instant-column') {
      if (fromSec !== undefined) where.push(sql`${seconds(rule.column)} >= ${fromSec}`);
      if (toEndSec !== undefined) where.push(sql`${seconds(rule.column)} < ${toEndSec}`);
    } else {
      // A statement belongs to the range when its period overlaps it.
      if (fromSec !== undefined) where.push(sql`${seconds(rule.end)} >= ${fromSec}`);
      if (toEndSec !== undefined) where.push(sql`${seconds(rule.start)} < ${toEndSec}`);
    }
  }
  if (filters.consentId !== undefined && spec.consent) {
    if (spec.consent.kind === 'column') {
      where.push(sql`v.consent_id = ${filters.consentId}`);
    } else {
      // The view has no consent column: the account's consent (v_accounts.consent_id) decides.
      where.push(
        sql`EXISTS (SELECT 1 FROM v_accounts a WHERE a.bank = v.bank AND a.account_id = v.account_id AND a.consent_id = ${filters.consentId})`,
      );
    }
  }
  if (filters.accountIds !== undefined) {
    where.push(
      sql`v.account_id IN (${sql.join(
        filters.accountIds.map((id) => sql`${id}`),
        sql`, `,
      )})`,
    );
  }
  if (filters.bank !== undefined) where.push(sql`v.bank = ${filters.bank}`);
  if (spec.status && filters.status !== 'all')
    where.push(sql`v.status = ${filters.status === 'booked' ? 'Booked' : 'Pending'}`);
  if (spec.transfers && filters.excludeTransfers === true) where.push(...notTransfers());
  // Duplicates the bank served (docs/exports.md): an open suspicion of the row, spelt alike on both dialects.
  if (spec.duplicates && filters.excludeDuplicates) where.push(notSuspectedDuplicate('v'));
  return where.length > 0 ? sql` WHERE ${sql.join(where, sql` AND `)}` : sql``;
}

/** The row (of the view aliased `alias`) has no open suspicion of being served twice (docs/exports.md). */
function notSuspectedDuplicate(alias: string): SQL {
  const v = sql.raw(alias);
  return sql`NOT EXISTS (SELECT 1 FROM duplicate_suspicions s WHERE s.bank = ${v}.bank AND s.account_id = ${v}.account_id AND s.transaction_id = ${v}.transaction_id AND s.cleared_at IS NULL)`;
}

/**
 * Own-account transfers left out (docs/transfers.md): no linked pair has the row as its debit
 * or its credit. transfer_links' two indexes answer each test by key.
 */
function notTransfers(): SQL[] {
  return (['debit', 'credit'] as const).map((side) => {
    const column = (name: string) => sql.raw(`l.${side}_${name}`);
    return sql`NOT EXISTS (SELECT 1 FROM transfer_links l WHERE ${column('bank')} = v.bank AND ${column('account_id')} = v.account_id
      AND ${column('transaction_id')} = v.transaction_id AND l.status = 'linked')`;
  });
}

export function viewReads(runner: SqlRunner): ViewReads {
  const d = runner.dialect;

  /** The dataset's rows' SELECT: file columns, filters, the total order. */
  async function rowsSelect(dataset: DatasetName, filters: ViewFilters): Promise<{ columns: string[]; query: SQL }> {
    const spec = DATASET_SPECS[dataset];
    const view = sql.identifier(spec.view);
    // The columns come from the view itself, in its order: the export follows the view.
    const viewColumns = await runner.columns(sql`SELECT * FROM ${view} LIMIT 0`);
    const files = fileColumns(viewColumns);
    const list = sql.join(
      files.map((c) =>
        // A flag is 0/1 in files on both dialects (PostgreSQL's view has a boolean): the bytes do not depend on the database.
        d === 'postgres' && FLAG_COLUMNS.has(c.name)
          ? sql`CASE WHEN ${col(c.source)} THEN 1 ELSE 0 END AS ${sql.identifier(c.name)}`
          : c.source === c.name
            ? col(c.name)
            : sql`${col(c.source)} AS ${sql.identifier(c.name)}`,
      ),
      sql`, `,
    );
    // NULLS FIRST is SQLite's order for ascending keys; PostgreSQL's default is the opposite.
    const order = sql.join(
      spec.orderBy.map((c) => sql`${col(c)} NULLS FIRST`),
      sql`, `,
    );
    return {
      columns: files.map((c) => c.name),
      query: sql`SELECT ${list} FROM ${view} AS v${filterClause(d, spec, filters)} ORDER BY ${order}`,
    };
  }

  return {
    async rows(dataset, filters, options = {}) {
      const { columns, query } = await rowsSelect(dataset, filters);
      const batchSize = options.batchSize ?? ROWS_PER_BATCH[d];
      const read = () => runner.iterateArrays(query, batchSize);
      return {
        columns,
        batches: {
          [Symbol.asyncIterator]: () =>
            dataset === 'transactions' ? inChainOrder(columns, read(), batchSize) : read(),
        },
      };
    },

    async accounts(filter) {
      const where: SQL[] = [];
      if (filter.accountId !== undefined) where.push(sql`account_id = ${filter.accountId}`);
      if (filter.consentId !== undefined) where.push(sql`consent_id = ${filter.consentId}`);
      if (filter.bank !== undefined) where.push(sql`bank = ${filter.bank}`);
      const rows = await runner.all(
        sql`SELECT bank, account_id, consent_id, currency, account_subtype, identification FROM v_accounts${
          where.length > 0 ? sql` WHERE ${sql.join(where, sql` AND `)}` : sql``
        } ORDER BY bank, account_id`,
      );
      return rows.map((r) => ({
        bank: str(r.bank),
        account_id: str(r.account_id),
        consent_id: str(r.consent_id),
        currency: str(r.currency),
        account_subtype: strOrNull(r.account_subtype),
        identification: strOrNull(r.identification),
      }));
    },

    /** Count, first NZ date and last row of the transactions export's rows for these filters. */
    async range(filters) {
      const { query } = await rowsSelect('transactions', filters);
      const stats = await runner.get(sql`SELECT count(*) AS n, min(booking_date) AS first FROM (${query}) AS q`);
      // The rows of the last instant: when they all carry a running balance, the last of their
      // chain's (an id says nothing of their order); else none, and LEDGERBAL is carried.
      const lastRows = await runner.all(
        sql`SELECT booking_date_time, booking_date, balance_after, amount FROM (${query}) AS q
            WHERE booking_date_time = (SELECT max(booking_date_time) FROM (${query}) AS q2)
            ORDER BY transaction_id DESC`,
      );
      const first = lastRows[0];
      const balanced = lastRows.every((r) => r.balance_after !== null);
      // The running balance before that instant, where its chain starts: the end of the chain of
      // the instant before (its rows' largest id is any of its rows, not its last).
      const beforeRows =
        first && balanced
          ? await runner.all(
              sql`SELECT balance_after, amount FROM (${query}) AS q
                  WHERE balance_after IS NOT NULL AND booking_date_time = (
                    SELECT max(booking_date_time) FROM (${query}) AS q2
                    WHERE booking_date_time < ${str(first.booking_date_time)} AND balance_after IS NOT NULL)
                  ORDER BY transaction_id`,
            )
          : [];
      const units = (r: SqlRow) => ({ amount: toUnits(str(r.amount)), after: toUnits(str(r.balance_after)) });
      const before = chainEnd(beforeRows, units);
      const end = balanced ? chainEnd(lastRows, units, before ? units(before).after : null) : undefined;
      return {
        rows: Number(stats?.n ?? 0),
        firstDate: strOrNull(stats?.first),
        last: first
          ? {
              bookingDateTime: str(first.booking_date_time),
              bookingDate: str(first.booking_date),
              balanceAfter: end ? str(end.balance_after) : null,
            }
          : null,
      };
    },

    /**
     * The latest balance of the given types at or before `asOf` (an instant; null: the latest),
     * its exact text. At the same instant a closing balance wins over an interim one; of a
     * restated one the amount the latest fetch returned, ties by id (LATEST_BALANCE_FIRST, as the
     * check and the report's anchor). Read from `balances` (`amount` is v_balances' exact
     * `amount_text`): the view shows neither `last_seen_at` nor `id`.
     */
    async latestBalance(key, types, asOf) {
      const row = await runner.get(
        sql`SELECT amount, date_time FROM balances
            WHERE bank = ${key.bank} AND account_id = ${key.accountId} AND type IN (${sql.join(
              types.map((t) => sql`${t}`),
              sql`, `,
            )})${asOf ? sql` AND date_time <= ${asOf}` : sql``}
            ORDER BY ${LATEST_BALANCE_FIRST} LIMIT 1`,
      );
      return row ? { amount: str(row.amount), dateTime: str(row.date_time) } : null;
    },

    /**
     * The exact amounts of the account's booked rows booked in (after, upTo]; `excludeDuplicates`:
     * not the rows suspected served twice, as the export leaves them out.
     */
    async bookedAmounts(key, after, upTo, options = {}) {
      const rows = await runner.all(
        sql`SELECT amount_text AS amount FROM v_transactions v
            WHERE bank = ${key.bank} AND account_id = ${key.accountId} AND status = 'Booked'
              AND booking_date_time > ${after} AND booking_date_time <= ${upTo}${
                options.excludeDuplicates ? sql` AND ${notSuspectedDuplicate('v')}` : sql``
              }`,
      );
      return rows.map((r) => str(r.amount));
    },

    async consentPermissions(consentId) {
      const row = await runner.get(sql`SELECT permissions FROM v_consents WHERE consent_id = ${consentId}`);
      return strOrNull(row?.permissions);
    },

    /** The accounts a transactions export with these filters covers, with their consent's grant. */
    async exportScope(filters) {
      const where: SQL[] = [];
      if (filters.accountIds) {
        where.push(
          sql`a.account_id IN (${sql.join(
            filters.accountIds.map((id) => sql`${id}`),
            sql`, `,
          )})`,
        );
      }
      if (filters.bank) where.push(sql`a.bank = ${filters.bank}`);
      if (filters.consentId !== undefined) where.push(sql`a.consent_id = ${filters.consentId}`);
      const rows = await runner.all(
        sql`SELECT a.bank, a.account_id, a.consent_id, c.permissions, c.start_date_time, c.end_date_time
            FROM v_accounts a LEFT JOIN v_consents c ON c.consent_id = a.consent_id${
              where.length > 0 ? sql` WHERE ${sql.join(where, sql` AND `)}` : sql``
            } ORDER BY a.bank, a.account_id`,
      );
      return rows.map((r) => ({
        bank: str(r.bank),
        account_id: str(r.account_id),
        consent_id: str(r.consent_id),
        permissions: strOrNull(r.permissions),
        start_date_time: strOrNull(r.start_date_time),
        end_date_time: strOrNull(r.end_date_time),
      }));
    },

    snapshot: (work) => runner.snapshot((tx) => work(viewReads(tx))),
  };
}

/**
 * The transactions export's rows with each instant's rows of an account in their running
 * balances' chain (balance-chain.ts), when they all carry one: the views order rows of one instant
 * by id, which says nothing of the bank's order (a bank that sends dates only books a day's rows at
 * one instant), and an importer that checks each row's balance (hledger's assertions, docs/ledger-
 * beancount.md) needs the bank's. The chain starts from the running balance of the row written
 * before, of the same account. The order stays total: two exports of the same rows are the same
 * bytes. One instant's rows are held at a time, besides a batch; batches keep the size read.
 */
async function* inChainOrder(
  columns: readonly string[],
  batches: AsyncIterable<unknown[][]>,
  batchSize: number,
): AsyncGenerator<unknown[][]> {
  const [bank, account, instant, amount, after] = [
    'bank',
    'account_id',
    'booking_date_time',
    'amount',
    'balance_after',
  ].map((name) => columns.indexOf(name)) as [number, number, number, number, number];
  if ([bank, account, instant, amount, after].some((i) => i < 0)) {
    yield* batches;
    return;
  }
  const units = (row: unknown[]) => ({ amount: toUnits(str(row[amount])), after: toUnits(str(row[after])) });
  let group: unknown[][] = [];
  // The last row written: its account and running balance, read only when the next instant's rows chain.
  let written: unknown[] | null = null;
  const flush = (): unknown[][] => {
    const rows = group;
    group = [];
    const head = rows[0];
    if (head === undefined) return rows;
    const chained = rows.length > 1 && rows.every((r) => r[after] !== null && r[after] !== undefined);
    const before =
      written !== null && written[bank] === head[bank] && written[account] === head[account] ? written[after] : null;
    const ordered = chained
      ? chainOrder(rows, units, before === null || before === undefined ? null : toUnits(str(before)))
      : rows;
    written = ordered.at(-1) ?? null;
    return ordered;
  };
  // Rows ready, given on in batches of the size read.
  let out: unknown[][] = [];
  for await (const batch of batches) {
    for (const row of batch) {
      const head = group[0];
      if (head && (head[instant] !== row[instant] || head[account] !== row[account] || head[bank] !== row[bank]))
        for (const r of flush()) out.push(r);
      group.push(row);
    }
    while (out.length >= batchSize) {
      yield out.slice(0, batchSize);
      out = out.slice(batchSize);
    }
  }
  for (const r of flush()) out.push(r);
  for (let at = 0; at < out.length; at += batchSize) yield out.slice(at, at + batchSize);
}
