/**
 * The change feed's sources, declared once (docs/changes.md "What is watched"): each table whose
 * rows a `v_transactions` column shows, its columns and the view columns they show in. The
 * triggers that write `change_log` are generated from this list for both dialects
 * (`changeFeedTriggersSql`), and the committed migrations hold that SQL
 * (test/store/change-feed-sql.test.ts); `npm run -s db:change-feed-sql` prints it. Covering a new
 * table or column is one line here and a migration that re-creates the triggers
 * (`changeFeedTriggersSql(dialect, { replace: true })`).
 *
 * A trigger records the row's key (bank, account_id, transaction_id), the kind (`insert`: the row
 * appeared in the view; `update`; `remove`: a pending row marked removed; `delete`) and which
 * watched view columns changed (old against new, NULLs equal: SQLite `IS NOT`, PostgreSQL
 * `IS DISTINCT FROM`), as the view shows them: a joined row inserted or deleted is compared with the
 * view's defaults (`defaults`), and a row the view does not show (`shownWhen`) counts as none. An update that changes no watched column (`last_seen_at` only: the sync's
 * re-fetch of an unchanged row) writes nothing.
 */
import type { SqlRunner } from './sql-runner';
import { CATEGORY_DEFAULTS, openSuspicion } from './view-definitions';
import { VIEW_COLUMNS } from './views';

type Dialect = SqlRunner['dialect'];

export interface ChangeSource {
  /** The table watched. */
  table: string;
  /**
   * `transactions`: the table holds the view's rows (an insert adds one, a delete or `removedWhen`
   * set removes it). `joined`: each row adds columns to one transaction (a change of it is a
   * modification of that transaction).
   */
  role: 'transactions' | 'joined';
  /** The table's columns that name the transaction: bank, account_id, transaction_id. */
  key: readonly [bank: string, accountId: string, transactionId: string];
  /** Each watched column of the table → the v_transactions columns it shows in. */
  columns: Readonly<Record<string, readonly string[]>>;
  /** role `transactions`: the column whose being set takes the row out of the view. */
  removedWhen?: string;
  /** role `joined`: view columns that change when a row appears or goes, whatever its values (a flag). */
  presence?: readonly string[];
  /**
   * role `joined`: what the view shows in a column's place when the transaction has no row, or the
   * row's column is NULL (the view's COALESCE; text). A column not named shows NULL. A row inserted
   * or deleted is compared with this, so one that leaves the view as it was logs nothing.
   */
  defaults?: Readonly<Record<string, string>>;
  /**
   * role `joined`: the condition on a row (`row`: OLD or NEW) under which the view shows it; a row
   * failing it shows as none (a cleared duplicate suspicion). Omitted: every row.
   */
  shownWhen?: (row: string) => string;
}

const TRANSACTION_KEY = ['bank', 'account_id', 'transaction_id'] as const;
const same = (...columns: string[]): Record<string, readonly string[]> =>
  Object.fromEntries(columns.map((c) => [c, [c]]));

export const CHANGE_SOURCES: readonly ChangeSource[] = [
  {
    table: 'transactions',
    role: 'transactions',
    key: TRANSACTION_KEY,
    removedWhen: 'removed_at',
    columns: {
      ...same('consent_id', 'status', 'booking_date_time', 'booking_date'),
      value_date_time: ['value_date_time', 'value_date'],
      amount: ['amount', 'amount_text'],
      ...same('amount_minor', 'currency', 'credit_debit_indicator', 'description', 'merchant_name'),
      ...same('merchant_category_code', 'creditor_name', 'debtor_name', 'creditor_particulars', 'creditor_code'),
      ...same('creditor_reference', 'debtor_particulars', 'debtor_code', 'debtor_reference'),
      ...same('bank_transaction_code', 'bank_transaction_subcode', 'proprietary_code'),
      balance_after: ['balance_after', 'balance_after_text'],
      ...same('counterparty_account'),
    },
  },
  // Issue 36: each row's category and payee (docs/categories.md), and the check's duplicate
  // suspicions (a cleared one keeps its row with cleared_at set: docs/continuity.md).
  // The view's defaults and which suspicions it shows come from its definition (view-definitions.ts).
  {
    table: 'transaction_categories',
    role: 'joined',
    key: TRANSACTION_KEY,
    columns: same('category', 'payee', 'category_source', 'category_rule'),
    defaults: CATEGORY_DEFAULTS,
  },
  {
    table: 'duplicate_suspicions',
    role: 'joined',
    key: TRANSACTION_KEY,
    columns: {},
    presence: ['suspected_duplicate'],
    shownWhen: openSuspicion,
  },
];

/**
 * v_transactions columns the feed does not watch: the key (it names the row) and bookkeeping
 * (`first_seen_at` is set once, `last_seen_at` moves on every fetch). Every other column of the
 * view must be watched by a source (test/store/change-feed-sql.test.ts).
 */
export const UNWATCHED_COLUMNS: readonly string[] = [...TRANSACTION_KEY, 'first_seen_at', 'last_seen_at'];

/** The v_transactions columns the feed watches, in the sources' order: a consumer's table equals the view on these. */
export const WATCHED_COLUMNS: readonly string[] = [
  ...new Set(CHANGE_SOURCES.flatMap((s) => [...Object.values(s.columns).flat(), ...(s.presence ?? [])])),
].sort((a, b) => viewOrder(a) - viewOrder(b));

/** A column's place in v_transactions (docs/data-model.md); one the list does not name yet goes last. */
function viewOrder(column: string): number {
  const at = (VIEW_COLUMNS.v_transactions as readonly string[]).indexOf(column);
  return at < 0 ? Number.MAX_SAFE_INTEGER : at;
}

type Event = 'insert' | 'update' | 'delete';

interface DialectWords {
  distinct: string;
  xid: string;
  now: string;
}

const WORDS: Record<Dialect, DialectWords> = {
  sqlite: { distinct: 'IS NOT', xid: 'NULL', now: `strftime('%Y-%m-%dT%H:%M:%fZ', 'now')` },
  postgres: {
    distinct: 'IS DISTINCT FROM',
    xid: 'pg_current_xact_id()::text::bigint',
    now: `to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
  },
};

const quoteText = (text: string) => `'${text.replaceAll("'", "''")}'`;

/**
 * Old and new value of a column in the event, as the view shows it: a transactions column as
 * stored; a joined table's column with the view's default when the row is missing (before an
 * insert, after a delete), not shown (`shownWhen`) or NULL.
 */
function sides(source: ChangeSource, event: Event, column: string): [string, string] {
  if (source.role === 'transactions') return [`OLD.${column}`, `NEW.${column}`];
  const absent = source.defaults?.[column];
  const missing = absent === undefined ? 'NULL' : quoteText(absent);
  const value = (row: string) => {
    const stored = absent === undefined ? `${row}.${column}` : `COALESCE(${row}.${column}, ${missing})`;
    return source.shownWhen ? `CASE WHEN ${source.shownWhen(row)} THEN ${stored} ELSE ${missing} END` : stored;
  };
  return [event === 'insert' ? missing : value('OLD'), event === 'delete' ? missing : value('NEW')];
}

/**
 * A joined row's presence in the view before and after the event (its `presence` flags); null when
 * it cannot differ (an update of a row every state of which is shown).
 */
function presenceSides(source: ChangeSource, event: Event): [string, string] | null {
  if (source.role !== 'joined' || !source.presence?.length) return null;
  const shown = (row: string) => (source.shownWhen ? `(${source.shownWhen(row)})` : 'TRUE');
  if (event === 'update' && !source.shownWhen) return null;
  return [event === 'insert' ? 'FALSE' : shown('OLD'), event === 'delete' ? 'FALSE' : shown('NEW')];
}

/** Whether the two sides differ, NULLs equal; null when they are constants that differ (always). */
function differs(before: string, after: string, words: DialectWords): string | null {
  const constant = (v: string) => v === 'TRUE' || v === 'FALSE';
  return constant(before) && constant(after) ? null : `${before} ${words.distinct} ${after}`;
}

/** The condition under which the event is logged; null: always. */
function condition(source: ChangeSource, event: Event, words: DialectWords): string | null {
  if (source.role === 'transactions') {
    if (event === 'delete') return null;
    if (event === 'insert') return source.removedWhen ? `NEW.${source.removedWhen} IS NULL` : null;
  }
  const tests: string[] = [];
  const presence = presenceSides(source, event);
  if (presence) {
    const test = differs(...presence, words);
    if (test === null) return null;
    tests.push(test);
  }
  const watched = Object.keys(source.columns);
  if (source.role === 'transactions' && source.removedWhen) watched.unshift(source.removedWhen);
  for (const c of watched) tests.push(`${sides(source, event, c).join(` ${words.distinct} `)}`);
  return tests.length === 0 ? null : tests.join(' OR ');
}

/** The `changed` expression: the view columns whose table column differs, comma-separated. */
function changedExpression(source: ChangeSource, event: Event, words: DialectWords): string {
  if (source.role === 'transactions' && event !== 'update') return `''`;
  const parts = Object.entries(source.columns).map(([column, viewColumns]) => {
    const [before, after] = sides(source, event, column);
    return `CASE WHEN ${before} ${words.distinct} ${after} THEN ${quoteText(`${viewColumns.join(',')},`)} ELSE '' END`;
  });
  const presence = presenceSides(source, event);
  if (presence && source.presence) {
    const flags = quoteText(`${source.presence.join(',')},`);
    const test = differs(...presence, words);
    parts.unshift(test === null ? flags : `CASE WHEN ${test} THEN ${flags} ELSE '' END`);
  }
  return parts.length === 0 ? `''` : `rtrim(${parts.join('\n    || ')}, ',')`;
}

function kindExpression(source: ChangeSource, event: Event): string {
  if (source.role === 'joined') return `'update'`;
  if (event === 'insert') return `'insert'`;
  if (event === 'delete') return `'delete'`;
  const removed = source.removedWhen;
  if (!removed) return `'update'`;
  return `CASE WHEN OLD.${removed} IS NULL AND NEW.${removed} IS NOT NULL THEN 'remove' WHEN OLD.${removed} IS NOT NULL AND NEW.${removed} IS NULL THEN 'insert' ELSE 'update' END`;
}

function insertStatement(source: ChangeSource, event: Event, words: DialectWords): string {
  const row = event === 'delete' ? 'OLD' : 'NEW';
  const [bank, account, transaction] = source.key.map((c) => `${row}.${c}`);
  return `INSERT INTO change_log (xid, source, bank, account_id, transaction_id, kind, changed, logged_at)
  VALUES (${words.xid}, ${quoteText(source.table)}, ${bank}, ${account}, ${transaction}, ${kindExpression(source, event)},
    ${changedExpression(source, event, words)},
    ${words.now})`;
}

const EVENTS: readonly Event[] = ['insert', 'update', 'delete'];
const triggerName = (source: ChangeSource, event: Event) => `change_log_${source.table}_${event}`;

/**
 * The statements that create every source's triggers on the dialect, `--> statement-breakpoint`
 * separated (a migration's text). `replace`: drop each first (a later migration that covers more).
 */
export function changeFeedTriggersSql(
  dialect: Dialect,
  options: { replace?: boolean; sources?: readonly ChangeSource[] } = {},
): string {
  const words = WORDS[dialect];
  const statements: string[] = [];
  for (const source of options.sources ?? CHANGE_SOURCES) {
    for (const event of EVENTS) {
      const name = triggerName(source, event);
      const when = condition(source, event, words);
      const body = insertStatement(source, event, words);
      const on = `AFTER ${event.toUpperCase()} ON ${source.table}`;
      if (dialect === 'sqlite') {
        if (options.replace) statements.push(`DROP TRIGGER IF EXISTS ${name};`);
        statements.push(`CREATE TRIGGER ${name} ${on}${when ? `\nWHEN ${when}` : ''}\nBEGIN\n  ${body};\nEND;`);
      } else {
        if (options.replace) {
          statements.push(`DROP TRIGGER IF EXISTS ${name} ON ${source.table};`);
          statements.push(`DROP FUNCTION IF EXISTS ${name}();`);
        }
        statements.push(
          `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$\nBEGIN\n  ${body};\n  RETURN NULL;\nEND $$;`,
        );
        statements.push(
          `CREATE TRIGGER ${name} ${on} FOR EACH ROW${when ? `\nWHEN (${when})` : ''}\nEXECUTE FUNCTION ${name}();`,
        );
      }
    }
  }
  return statements.join('\n--> statement-breakpoint\n');
}
