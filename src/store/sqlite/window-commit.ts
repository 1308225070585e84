/**
 * One transaction window on SQLite (../window-commit.ts holds its rules): the window's rows are
 * read and written with drizzle statements prepared once per connection and run synchronously,
 * inside the runner's BEGIN IMMEDIATE transaction, because per row they are most of a sync's
 * store time (docs/benchmarks-history.md "Store writes"); the window's end is the shared SQL.
 */
import { and, eq, getTableColumns, inArray, sql, type Placeholder } from 'drizzle-orm';
import type { ConsentId, TransactionId } from '@bankdata/core/schemas';
import type { BankdataDb, Conn } from './db';
import type { TransactionRow } from '../rows';
import { consents, transactions } from './schema';
import type { SqlRunner } from '../sql-runner';
import { liveConsentsWhere } from '../row-owner';
import {
  checkWindow,
  finishWindow,
  planWindowRow,
  type TransactionWindowInput,
  type WindowCounts,
  countedOutcome,
} from '../window-commit';

export function commitTransactionWindow(
  runner: SqlRunner,
  db: BankdataDb,
  input: TransactionWindowInput,
): Promise<WindowCounts> {
  const { now, runStartedAt, from, to, rows } = checkWindow(input);
  return runner.transaction(async (tx) => {
    const counts: WindowCounts = { added: 0, updated: 0, removed: 0, unchanged: 0 };
    const statements = { ...upsertStatementsOf(db), owner: ownerLookup(db) };
    const stored = readStoredRows(db, input, [...rows.keys()]);
    for (const row of rows.values()) {
      const before = stored.get(row.transactionId);
      counts[countedOutcome(upsertTransaction(statements, row, before, now), before, runStartedAt)] += 1;
    }
    counts.removed = await finishWindow(tx, input, { from, to, now }, new Set(rows.keys()));
    return counts;
  });
}

/** The stored rows of the window's ids, by id: one read per 500 ids, not one per row. */
function readStoredRows(
  tx: Conn,
  input: TransactionWindowInput,
  ids: readonly TransactionId[],
): Map<string, typeof transactions.$inferSelect> {
  const stored = new Map<string, typeof transactions.$inferSelect>();
  for (let i = 0; i < ids.length; i += 500) {
    const found = tx
      .select()
      .from(transactions)
      .where(
        and(
          eq(transactions.bank, input.bank),
          eq(transactions.accountId, input.accountId),
          inArray(transactions.transactionId, ids.slice(i, i + 500)),
        ),
      )
      .all();
    for (const row of found) stored.set(row.transactionId, row);
  }
  return stored;
}

/** Every column of the table as a named placeholder of the same name. */
const INSERT_PLACEHOLDERS = Object.fromEntries(
  Object.keys(getTableColumns(transactions)).map((name) => [name, sql.placeholder(name)]),
) as { [K in keyof typeof transactions.$inferInsert]-?: Placeholder };

/**
 * The row's content columns (all but its key and the bookkeeping instants) as SQL placeholders of
 * the same name: an update rewrites each of them from the merged row (merge.ts), which has them all.
 */
const UPDATE_PLACEHOLDERS = Object.fromEntries(
  Object.keys(getTableColumns(transactions))
    .filter(
      (name) =>
        !['bank', 'accountId', 'transactionId', 'firstSeenAt', 'lastSeenAt', 'updatedAt', 'removedAt'].includes(name),
    )
    .map((name) => [name, sql`${sql.placeholder(name)}`]),
);

type UpsertStatements = ReturnType<typeof prepareUpsert> & { owner: ReturnType<typeof ownerLookup> };

/**
 * The per-row statements of each open database, built and prepared once, not once per row (drizzle's
 * query building and SQLite's prepare cost far more than running a prepared statement, so per row
 * they were most of a window's time: docs/benchmarks-history.md "Store writes") nor once per window
 * (a sync commits hundreds of windows on the same connection). A statement runs on its connection,
 * inside whichever transaction is open there.
 */
const preparedUpserts = new WeakMap<BankdataDb, ReturnType<typeof prepareUpsert>>();
function upsertStatementsOf(db: BankdataDb): ReturnType<typeof prepareUpsert> {
  let statements = preparedUpserts.get(db);
  if (!statements) {
    statements = prepareUpsert(db);
    preparedUpserts.set(db, statements);
  }
  return statements;
}

function prepareUpsert(tx: Conn) {
  const key = and(
    eq(transactions.bank, sql.placeholder('bank')),
    eq(transactions.accountId, sql.placeholder('accountId')),
    eq(transactions.transactionId, sql.placeholder('transactionId')),
  );
  return {
    update: tx
      .update(transactions)
      .set({
        ...UPDATE_PLACEHOLDERS,
        lastSeenAt: sql`${sql.placeholder('now')}`,
        updatedAt: sql`${sql.placeholder('now')}`,
        removedAt: null,
      })
      .where(key)
      .prepare(),
    insert: tx.insert(transactions).values(INSERT_PLACEHOLDERS).prepare(),
    touch: tx
      .update(transactions)
      // set() takes SQL, not a bare placeholder.
      .set({ lastSeenAt: sql`${sql.placeholder('now')}`, consentId: sql`${sql.placeholder('consentId')}` })
      .where(key)
      .prepare(),
  };
}

function upsertTransaction(
  statements: UpsertStatements,
  fetched: TransactionRow,
  stored: typeof transactions.$inferSelect | undefined,
  now: string,
): 'added' | 'updated' | 'unchanged' {
  const keyValues = { bank: fetched.bank, accountId: fetched.accountId, transactionId: fetched.transactionId };
  // The spread goes last in these literals (src/sync/transform/transform-context.ts: ownerColumns).
  const row = stored ? statements.owner(fetched, stored) : fetched;
  const plan = planWindowRow(row, stored);
  if (plan.outcome === 'added') {
    statements.insert.run({ firstSeenAt: now, lastSeenAt: now, updatedAt: now, removedAt: null, ...fetched });
  } else if (plan.outcome === 'unchanged') {
    statements.touch.run({ now, consentId: row.consentId, ...keyValues });
  } else {
    statements.update.run({ now, ...plan.merged });
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
