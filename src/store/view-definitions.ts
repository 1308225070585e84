/**
 * Views defined once for both dialects: each definition builds its SELECT for a dialect with the
 * helpers of dialect-sql.ts, and `createViewSql` writes the `CREATE VIEW` statement a migration
 * of that dialect commits. A new view (or a new version of one) is added here, then its SQL is
 * printed for both migrations with `npm run -s db:view-sql -- NAME` (scripts/view-sql.mjs;
 * CONTRIBUTING.md "Adding a view"), and test/store/view-definitions.test.ts holds the newest
 * committed `CREATE VIEW` of each view defined here equal to what this module generates. Views
 * older than this module stay as their migrations wrote them (migrations are history).
 */
import { sql, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { SQLiteSyncDialect } from 'drizzle-orm/sqlite-core';
import { exactAmount } from './dialect-sql';
import type { SqlRunner } from './sql-runner';
import type { ViewName } from './views';

type Dialect = SqlRunner['dialect'];

export interface ViewDefinition {
  name: ViewName;
  /** The view's SELECT for the dialect: literal SQL, no parameters. */
  select(dialect: Dialect): SQL;
}

export const VIEW_DEFINITIONS: readonly ViewDefinition[] = [
  {
    // docs/data-model.md "v_continuity": the breaks the latest check found per account.
    name: 'v_continuity',
    select: (d) => sql`SELECT
  f.bank, f.account_id, f.kind, f.from_date, f.to_date, ${exactAmount(d, sql`f.amount`)} AS amount, f.amount_minor,
  f.currency, f.cause, f.transaction_id, f.detail, f.from_date_time, f.to_date_time, f.run_id, f.checked_at,
  f.amount AS amount_text
FROM continuity_findings f`,
  },
  {
    // docs/data-model.md "v_transactions": the stored rows not removed, with their category and
    // payee (docs/categories.md; transaction_categories, migration 0013 / pg 0011). The columns
    // before `category` are those of migration 0006 (pg 0001), unchanged; `suspected_duplicate`, last,
    // is an open duplicate_suspicions row (docs/continuity.md "Duplicates the bank served").
    name: 'v_transactions',
    select: (d) => sql`SELECT
  t.consent_id, t.bank, t.account_id, t.transaction_id, t.status,
  t.booking_date_time, t.booking_date, t.value_date_time,
  ${exactAmount(d, sql`t.amount`)} AS amount, t.amount_minor, t.currency, t.credit_debit_indicator,
  t.description, t.merchant_name, t.merchant_category_code,
  t.creditor_name, t.debtor_name,
  t.creditor_particulars, t.creditor_code, t.creditor_reference,
  t.debtor_particulars, t.debtor_code, t.debtor_reference,
  t.bank_transaction_code, t.bank_transaction_subcode, t.proprietary_code,
  ${exactAmount(d, sql`t.balance_after`)} AS balance_after, t.counterparty_account,
  t.first_seen_at, t.last_seen_at,
  t.amount AS amount_text,
  t.balance_after AS balance_after_text,
  ${nzDateOfInstant(d, sql`t.value_date_time`)} AS value_date,
  ${sql.raw(categoryShown('c', 'category'))} AS category, c.payee, ${sql.raw(categoryShown('c', 'category_source'))} AS category_source,
  c.category_rule,
  ${suspectedDuplicate(d)} AS suspected_duplicate
FROM transactions t
LEFT JOIN transaction_categories c
  ON c.bank = t.bank AND c.account_id = t.account_id AND c.transaction_id = t.transaction_id
WHERE t.removed_at IS NULL`,
  },
  {
    // docs/data-model.md "v_duplicates": the rows the latest check proves the bank served twice, with the evidence.
    name: 'v_duplicates',
    select: (d) => sql`SELECT
  s.bank, s.account_id, s.transaction_id, s.twin_transaction_id, s.evidence,
  s.balance_date, s.balance_date_time, ${exactAmount(d, sql`s.balance`)} AS balance, ${exactAmount(d, sql`s.counted_balance`)} AS counted_balance,
  ${exactAmount(d, sql`s.amount_off`)} AS amount_off, s.amount_off_minor, s.currency, s.detail,
  s.suspected_at, s.checked_at, s.run_id,
  t.booking_date_time, t.description, ${exactAmount(d, sql`t.amount`)} AS amount,
  s.balance AS balance_text, s.counted_balance AS counted_balance_text, s.amount_off AS amount_off_text, t.amount AS amount_text
FROM duplicate_suspicions s
LEFT JOIN transactions t ON t.bank = s.bank AND t.account_id = s.account_id AND t.transaction_id = s.transaction_id
WHERE s.cleared_at IS NULL`,
  },
  {
    // docs/data-model.md "v_balances": every balance statement held, restated ones included. The
    // columns before `last_seen_at` are those of migration 0006 (pg 0001), unchanged; `last_seen_at`
    // (migration 0020 / pg 0019), last, says which statement of an instant and type the bank's
    // latest fetch returned, the one the check, the report and the OFX export read.
    name: 'v_balances',
    select: (d) => sql`SELECT
  b.bank, b.account_id, b.type, ${exactAmount(d, sql`b.amount`)} AS amount, b.amount_minor, b.currency,
  b.credit_debit_indicator, b.date_time, b.fetched_at,
  b.amount AS amount_text,
  ${nzDateOfInstant(d, sql`b.date_time`)} AS date,
  b.last_seen_at
FROM balances b`,
  },
  // docs/data-model.md "v_transfers": own-account transfers the latest matching linked.
  { name: 'v_transfers', select: (d) => transferSelect(d, 'linked') },
  // docs/data-model.md "v_transfer_ambiguities": pairs left unchosen, another being as good.
  { name: 'v_transfer_ambiguities', select: (d) => transferSelect(d, 'ambiguous') },
];

/** The NZ calendar date of a stored UTC instant, as the views of migration 0006 (pg 0001) spell it. */
function nzDateOfInstant(dialect: Dialect, instant: SQL): SQL {
  return dialect === 'postgres'
    ? sql`to_char((${instant}::timestamptz AT TIME ZONE 'Pacific/Auckland')::date, 'YYYY-MM-DD')`
    : sql`date(${instant}, (SELECT o.offset_minutes FROM nz_offsets o WHERE o.utc_from <= ${instant} ORDER BY o.utc_from DESC LIMIT 1) || ' minutes')`;
}

/** Both sides of the stored pairs of one status (docs/transfers.md), with the evidence. */
function transferSelect(d: Dialect, status: 'linked' | 'ambiguous'): SQL {
  return sql`SELECT
  l.debit_bank, l.debit_account_id, l.debit_transaction_id, t_d.booking_date AS debit_booking_date,
  ${exactAmount(d, sql`t_d.amount`)} AS debit_amount,
  l.credit_bank, l.credit_account_id, l.credit_transaction_id, t_c.booking_date AS credit_booking_date,
  ${exactAmount(d, sql`t_c.amount`)} AS credit_amount,
  l.currency, l.amount_minor, l.days_apart, l.same_consent, l.same_party, l.owner_group, l.counterparty_sides,
  l.reference_agrees, l.score, l.linked_at, t_d.amount AS debit_amount_text, t_c.amount AS credit_amount_text
FROM transfer_links l
JOIN transactions t_d ON t_d.bank = l.debit_bank AND t_d.account_id = l.debit_account_id AND t_d.transaction_id = l.debit_transaction_id
JOIN transactions t_c ON t_c.bank = l.credit_bank AND t_c.account_id = l.credit_account_id AND t_c.transaction_id = l.credit_transaction_id
WHERE l.status = ${sql.raw(`'${status}'`)} AND t_d.removed_at IS NULL AND t_c.removed_at IS NULL`;
}

/**
 * What v_transactions shows in a transaction_categories column when the transaction has no decision
 * (the LEFT JOIN found none) or the decision's column is NULL: the view's COALESCE. Columns not
 * named show NULL then. The change feed compares a decision inserted or deleted with these
 * (src/store/change-feed.ts), so a first decision of the defaults is no change.
 */
export const CATEGORY_DEFAULTS = { category: 'uncategorised', category_source: 'none' } as const;

/** A transaction_categories column of the row `row` as v_transactions shows it. */
export function categoryShown(row: string, column: keyof typeof CATEGORY_DEFAULTS): string {
  return `COALESCE(${row}.${column}, '${CATEGORY_DEFAULTS[column]}')`;
}

/**
 * The duplicate_suspicions rows v_transactions shows as `suspected_duplicate`: the open ones (a
 * cleared suspicion keeps its row, docs/continuity.md). The change feed logs a suspicion's
 * presence by the same condition.
 */
export const openSuspicion = (row: string): string => `${row}.cleared_at IS NULL`;

/**
 * Whether the row is a suspected duplicate the bank served (an open duplicate_suspicions row):
 * 0/1 on SQLite (it has no boolean), a boolean on PostgreSQL.
 */
function suspectedDuplicate(d: Dialect): SQL {
  const open = sql`EXISTS (SELECT 1 FROM duplicate_suspicions s WHERE s.bank = t.bank AND s.account_id = t.account_id AND s.transaction_id = t.transaction_id AND ${sql.raw(openSuspicion('s'))})`;
  return d === 'sqlite' ? sql`CASE WHEN ${open} THEN 1 ELSE 0 END` : open;
}

const dialects = { sqlite: new SQLiteSyncDialect(), postgres: new PgDialect() };

/** The migration statement that (re)creates the view on the dialect, `--> statement-breakpoint` separated. */
export function createViewSql(view: ViewDefinition, dialect: Dialect, options: { replace?: boolean } = {}): string {
  const { sql: select, params } = dialects[dialect].sqlToQuery(view.select(dialect));
  if (params.length > 0) throw new Error(`view ${view.name}: its SQL takes no parameters`);
  const name = dialect === 'sqlite' ? `\`${view.name}\`` : `"${view.name}"`;
  const create = `CREATE VIEW ${name} AS\n${select};`;
  return options.replace ? `DROP VIEW IF EXISTS ${name};--> statement-breakpoint\n${create}` : create;
}

export function viewDefinition(name: string): ViewDefinition | undefined {
  return VIEW_DEFINITIONS.find((view) => view.name === name);
}
