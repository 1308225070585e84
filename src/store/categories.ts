/**
 * The stored categories (docs/categories.md "Storage"; table transaction_categories): the rows a
 * decision reads, in key order and in batches (keyset: never an OFFSET, never the whole table in
 * memory), the decisions written back in one statement per batch (an upsert the same on both
 * dialects), and the counts per source and per category. Written once over the runner.
 */
import { sql, type SQL } from 'drizzle-orm';
import { CATEGORY_SOURCES, type CategorySourceColumn } from './sqlite/schema';
import { lockAccounts, storedTransactionKeys, toNumber, transactionKeyText } from './dialect-sql';
import type { SqlRow, SqlRunner } from './sql-runner';

export { CATEGORY_SOURCES, type CategorySourceColumn };

/** The category of a row nothing decided, and of a row without a decision yet (v_transactions reads it so). */
export const UNCATEGORISED = 'uncategorised';

export interface TransactionKey {
  bank: string;
  accountId: string;
  transactionId: string;
}

/** The columns of a transactions row that a decision reads (src/categories/decide.ts). */
export interface CategorisableRow extends TransactionKey {
  /** Signed decimal text, as stored. */
  amount: string;
  creditDebitIndicator: 'Credit' | 'Debit';
  description: string | null;
  merchantName: string | null;
  merchantCategoryCode: string | null;
  creditorName: string | null;
  debtorName: string | null;
  counterpartyAccount: string | null;
  bankTransactionCode: string | null;
  bankTransactionSubcode: string | null;
  proprietaryCode: string | null;
}

/** A transactions row as a decision reads it, with its stored decision (null: none yet). */
export interface CategoryInputRow extends CategorisableRow {
  /** The row's `updated_at` as read: the version a decision of it is stored with. */
  updatedAt: string;
  current: StoredDecision | null;
}

export interface StoredDecision {
  category: string;
  payee: string | null;
  source: CategorySourceColumn;
  rule: string | null;
  /**
   * The transaction's `updated_at` the decision was made from (column `row_updated_at`; '' for a
   * decision stored before migration 0017 / pg 0015, which matches no row).
   */
  rowUpdatedAt: string;
}

export type DecisionWrite = TransactionKey & StoredDecision;

export interface CategoryCounts {
  total: number;
  bySource: Record<CategorySourceColumn, number>;
  byCategory: Record<string, number>;
}

const text = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

function inputRow(row: SqlRow): CategoryInputRow {
  const source = text(row.category_source);
  return {
    bank: String(row.bank),
    accountId: String(row.account_id),
    transactionId: String(row.transaction_id),
    updatedAt: String(row.updated_at),
    amount: String(row.amount),
    creditDebitIndicator: row.credit_debit_indicator === 'Debit' ? 'Debit' : 'Credit',
    description: text(row.description),
    merchantName: text(row.merchant_name),
    merchantCategoryCode: text(row.merchant_category_code),
    creditorName: text(row.creditor_name),
    debtorName: text(row.debtor_name),
    counterpartyAccount: text(row.counterparty_account),
    bankTransactionCode: text(row.bank_transaction_code),
    bankTransactionSubcode: text(row.bank_transaction_subcode),
    proprietaryCode: text(row.proprietary_code),
    current:
      source === null
        ? null
        : {
            category: String(row.category),
            payee: text(row.payee),
            source: source as CategorySourceColumn,
            rule: text(row.category_rule),
            rowUpdatedAt: String(row.row_updated_at),
          },
  };
}

/**
 * The next `limit` rows after `after` in key order (rows not removed): every row (`all`), or
 * those with no decision yet or changed since theirs: the row's `updated_at` is not the one the
 * decision was made from (`row_updated_at`). Both values are the row's own, written by the same
 * sync: no clock is compared with another (docs/categories.md "When rows are decided").
 */
export async function categoryRows(
  r: SqlRunner,
  options: { after: TransactionKey | null; limit: number; all: boolean },
): Promise<CategoryInputRow[]> {
  const conditions: SQL[] = [sql`t.removed_at IS NULL`];
  if (options.after) {
    const { bank, accountId, transactionId } = options.after;
    conditions.push(sql`(t.bank, t.account_id, t.transaction_id) > (${bank}, ${accountId}, ${transactionId})`);
  }
  if (!options.all) conditions.push(sql`(c.transaction_id IS NULL OR t.updated_at <> c.row_updated_at)`);
  const rows =
    await r.all(sql`SELECT t.bank, t.account_id, t.transaction_id, t.updated_at, t.amount, t.credit_debit_indicator,
    t.description, t.merchant_name, t.merchant_category_code, t.creditor_name, t.debtor_name, t.counterparty_account,
    t.bank_transaction_code, t.bank_transaction_subcode, t.proprietary_code,
    c.category, c.payee, c.category_source, c.category_rule, c.row_updated_at
  FROM transactions t
  LEFT JOIN transaction_categories c
    ON c.bank = t.bank AND c.account_id = t.account_id AND c.transaction_id = t.transaction_id
  WHERE ${sql.join(conditions, sql` AND `)}
  ORDER BY t.bank, t.account_id, t.transaction_id
  LIMIT ${options.limit}`);
  return rows.map(inputRow);
}

/** Rows per INSERT: 9 parameters each, far below either dialect's limit. */
const ROWS_PER_INSERT = 500;

/**
 * Writes (inserts or replaces) the decisions of transactions still stored in one transaction;
 * returns how many were written.
 */
export async function saveDecisions(r: SqlRunner, decisions: readonly DecisionWrite[], now: string): Promise<number> {
  for (const d of decisions) {
    if (!(CATEGORY_SOURCES as readonly string[]).includes(d.source))
      throw new RangeError(`not a category source: ${d.source}`);
    if (d.category === '') throw new RangeError('an empty category');
  }
  if (decisions.length === 0) return 0;
  return r.transaction(
    async (tx) => {
      // The decisions' accounts' write locks first (dialect-sql.ts `lockAccounts`): a forget of a
      // consent over one of them deletes its categories in the table's order, not this one's.
      await lockAccounts(tx, decisions);
      // Only decisions of transactions stored now: a forget that committed since they were
      // decided deleted the others, and their category and payee must not outlive it.
      const stored = await storedTransactionKeys(tx, decisions);
      const kept = decisions.filter((d) => stored.has(transactionKeyText(d)));
      for (let i = 0; i < kept.length; i += ROWS_PER_INSERT) {
        const chunk = kept.slice(i, i + ROWS_PER_INSERT);
        const values = sql.join(
          chunk.map(
            (d) =>
              sql`(${d.bank}, ${d.accountId}, ${d.transactionId}, ${d.category}, ${d.payee}, ${d.source}, ${d.rule}, ${now}, ${d.rowUpdatedAt})`,
          ),
          sql`, `,
        );
        await tx.run(sql`INSERT INTO transaction_categories
        (bank, account_id, transaction_id, category, payee, category_source, category_rule, decided_at, row_updated_at)
        VALUES ${values}
        ON CONFLICT (bank, account_id, transaction_id) DO UPDATE SET
          category = excluded.category, payee = excluded.payee, category_source = excluded.category_source,
          category_rule = excluded.category_rule, decided_at = excluded.decided_at,
          row_updated_at = excluded.row_updated_at`);
      }
      // Each decision writes the change log too (sql-runner.ts TransactionOptions).
      return kept.length;
    },
    { manyRows: true },
  );
}

/** Rows of v_transactions per category_source and per category (the demo's shares, `categorise`'s totals). */
export async function categoryCounts(r: SqlRunner): Promise<CategoryCounts> {
  const rows = await r.all(sql`SELECT category_source, category, count(*) AS n
    FROM v_transactions GROUP BY category_source, category ORDER BY category_source, category`);
  const bySource = Object.fromEntries(CATEGORY_SOURCES.map((s) => [s, 0])) as Record<CategorySourceColumn, number>;
  const byCategory: Record<string, number> = {};
  let total = 0;
  for (const row of rows) {
    const n = toNumber(row.n);
    total += n;
    bySource[String(row.category_source) as CategorySourceColumn] += n;
    byCategory[String(row.category)] = (byCategory[String(row.category)] ?? 0) + n;
  }
  return { total, bySource, byCategory };
}
