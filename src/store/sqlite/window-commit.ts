/**
 * One transaction window on SQLite (../window-commit.ts holds its rules): the window's rows are
 * read and written with statements prepared once per connection and run synchronously,
 * inside the runner's BEGIN IMMEDIATE transaction, because per row they are most of a sync's
 * store time (docs/benchmarks-history.md "Store writes"); the window's end is the shared SQL.
 */
import type Database from 'better-sqlite3';
import { getTableColumns, getTableName } from 'drizzle-orm';
import type { ConsentId, TransactionId } from '@bankdata/core/schemas';
import type { BankdataDb, Conn } from './db';
import type { TransactionRow } from '../rows';
import { consents, transactions } from './schema';
import type { SqlRunner, TransactionOptions } from '../sql-runner';
import { liveConsentsWhere } from '../row-owner';
import {
  checkWindow,
  finishWindow,
  planWindowRow,
  type StoredTransaction,
  type TransactionWindowInput,
  type WindowCounts,
  countedOutcome,
} from '../window-commit';

/** A window's rows each write the change log too (sql-runner.ts TransactionOptions). */
const MANY_ROWS: TransactionOptions = { manyRows: true };

export function commitTransactionWindow(
  runner: SqlRunner,
  db: BankdataDb,
  sqlite: Database.Database,
  input: TransactionWindowInput,
): Promise<WindowCounts> {
  const { now, runStartedAt, from, to, rows } = checkWindow(input);
  return runner.transaction(async (tx) => {
    const counts: WindowCounts = { added: 0, updated: 0, removed: 0, unchanged: 0 };
    const statements = windowStatementsOf(sqlite);
    const owner = ownerLookup(db);
    const stored = readStoredRows(statements, input, [...rows.keys()]);
    for (const row of rows.values()) {
      const before = stored.get(row.transactionId);
      counts[countedOutcome(upsertTransaction(statements, owner, row, before, now), before, runStartedAt)] += 1;
    }
    counts.removed = await finishWindow(tx, input, { from, to, now }, new Set(rows.keys()));
    return counts;
  }, MANY_ROWS);
}

/** The table's columns: the row's key (drizzle's name) and the SQL column, in the table's order. */
const COLUMNS = Object.entries(getTableColumns(transactions)).map(([key, column]) => ({
  key: key as keyof StoredTransaction,
  name: column.name,
}));
const KEY_COLUMNS = ['bank', 'accountId', 'transactionId'] as const;
/** What an update rewrites from the merged row (merge.ts): all but the key and the bookkeeping instants. */
const CONTENT_COLUMNS = COLUMNS.filter(
  (c) => !['bank', 'accountId', 'transactionId', 'firstSeenAt', 'lastSeenAt', 'updatedAt', 'removedAt'].includes(c.key),
);
function nameOf(key: keyof StoredTransaction): string {
  const column = COLUMNS.find((c) => c.key === key);
  if (!column) throw new Error(`transactions has no column ${key}`);
  return column.name;
}
const KEY_WHERE = KEY_COLUMNS.map((k) => `${nameOf(k)} = ?`).join(' AND ');

/**
 * The window's statements of each open database, as SQL text over better-sqlite3 with positional
 * parameters, prepared once per connection (a sync commits hundreds of windows on one). Per row,
 * drizzle's prepared statements spent more time filling their named placeholders (`is` per value)
 * than SQLite spent running them (docs/benchmarks.md "Sync backfill and nightly runs"), and the
 * stored rows' read was built and prepared anew per window. A statement runs on its connection,
 * inside whichever transaction is open there (the runner's BEGIN IMMEDIATE).
 */
interface WindowStatements {
  /** The stored rows of one account among a JSON array of ids, each as drizzle's select gives it. */
  stored: Database.Statement<[string, string, string]>;
  insert: Database.Statement<unknown[]>;
  update: Database.Statement<unknown[]>;
  touch: Database.Statement<[string, string, string, string, string]>;
}

const prepared = new WeakMap<Database.Database, WindowStatements>();
function windowStatementsOf(sqlite: Database.Database): WindowStatements {
  let statements = prepared.get(sqlite);
  if (!statements) {
    const t = getTableName(transactions);
    statements = {
      stored: sqlite.prepare(
        `SELECT ${COLUMNS.map((c) => `${c.name} AS "${c.key}"`).join(', ')} FROM ${t}
         WHERE ${nameOf('bank')} = ? AND ${nameOf('accountId')} = ?
         AND ${nameOf('transactionId')} IN (SELECT value FROM json_each(?))`,
      ),
      insert: sqlite.prepare(
        `INSERT INTO ${t} (${COLUMNS.map((c) => c.name).join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')})`,
      ),
      update: sqlite.prepare(
        `UPDATE ${t} SET ${CONTENT_COLUMNS.map((c) => `${c.name} = ?`).join(', ')}, ${nameOf('lastSeenAt')} = ?,
         ${nameOf('updatedAt')} = ?, ${nameOf('removedAt')} = NULL WHERE ${KEY_WHERE}`,
      ),
      touch: sqlite.prepare(
        `UPDATE ${t} SET ${nameOf('lastSeenAt')} = ?, ${nameOf('consentId')} = ? WHERE ${KEY_WHERE}`,
      ),
    };
    prepared.set(sqlite, statements);
  }
  return statements;
}

/** The stored rows of the window's ids, by id: one read for the window, the ids as one JSON array. */
function readStoredRows(
  statements: WindowStatements,
  input: TransactionWindowInput,
  ids: readonly TransactionId[],
): Map<string, StoredTransaction> {
  const stored = new Map<string, StoredTransaction>();
  if (ids.length === 0) return stored;
  for (const row of statements.stored.all(input.bank, input.accountId, JSON.stringify(ids)) as StoredTransaction[])
    stored.set(row.transactionId, row);
  return stored;
}

/** A value as the statement binds it: a row built by hand may lack an optional column (NULL, as drizzle bound it). */
const bound = (value: unknown) => (value === undefined ? null : value);

function upsertTransaction(
  statements: WindowStatements,
  owner: ReturnType<typeof ownerLookup>,
  fetched: TransactionRow,
  stored: StoredTransaction | undefined,
  now: string,
): 'added' | 'updated' | 'unchanged' {
  const row = stored ? owner(fetched, stored) : fetched;
  const plan = planWindowRow(row, stored);
  if (plan.outcome === 'added') {
    const values: unknown[] = [];
    for (const { key } of COLUMNS)
      values.push(
        key === 'firstSeenAt' || key === 'lastSeenAt' || key === 'updatedAt'
          ? now
          : key === 'removedAt'
            ? null
            : bound(fetched[key]),
      );
    statements.insert.run(values);
  } else if (plan.outcome === 'unchanged') {
    statements.touch.run(now, row.consentId, fetched.bank, fetched.accountId, fetched.transactionId);
  } else {
    const merged: Partial<StoredTransaction> = plan.merged;
    const values: unknown[] = [];
    for (const { key } of CONTENT_COLUMNS) values.push(bound(merged[key]));
    values.push(now, now, fetched.bank, fetched.accountId, fetched.transactionId);
    statements.update.run(values);
  }
  return plan.outcome;
}

/** The live consents among `ids`, read synchronously in the window's transaction. */
function liveConsents(tx: Conn, ids: readonly ConsentId[]): Set<ConsentId> {
  if (ids.length === 0) return new Set();
  const found = tx
    .select({ consentId: consents.consentId })
    .from(consents)
    .where(liveConsentsWhere(consents, ids))
    .all();
  return new Set(found.map((r) => r.consentId));
}

/**
 * `ownedRowOf` (../row-owner.ts) for the many rows of one transaction, reading each other consent's
 * liveness once (a window of a shared account would otherwise read it once per row).
 */
function ownerLookup(
  tx: Conn,
): <R extends { consentId: ConsentId }>(row: R, stored: { consentId: ConsentId } | undefined) => R {
  const known = new Map<ConsentId, boolean>();
  return (row, stored) => {
    if (!stored || stored.consentId === row.consentId) return row;
    let live = known.get(stored.consentId);
    if (live === undefined) {
      live = liveConsents(tx, [stored.consentId]).size > 0;
      known.set(stored.consentId, live);
    }
    return live ? { ...row, consentId: stored.consentId } : row;
  };
}
