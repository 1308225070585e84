/**
 * One transaction window, committed in one SQLite transaction: its rows, the removal of its
 * vanished pending rows, its rejects and the advance of the watermark (docs/configuration.md
 * "Sync rules"). A crash mid-window loses only that window; a rerun resumes without duplicates.
 */
import {
  and,
  eq,
  getTableColumns,
  gte,
  inArray,
  isNull,
  lte,
  sql,
  type Column,
  type Placeholder,
  type SQL,
} from 'drizzle-orm';
import type { AccountId, BankName, ConsentId, TransactionId } from '@bankdata/core/schemas';
import { inWriteTransaction, type BankdataDb, type Conn } from './sqlite/db';
import { mergeRow } from './merge';
import { insertRejectRows } from './rejects';
import { TRANSACTION_DETAIL_COLUMNS, type RejectInput, type TransactionRow } from './rows';
import { transactions } from './sqlite/schema';
import { advanceWatermark } from './sync-state';
import { toStoredInstant, type Instant } from './time';
import { allOf } from './dialect-sql';
import { ownerLookup } from './row-owner';

export interface TransactionWindowInput {
  bank: BankName;
  accountId: AccountId;
  consentId: ConsentId;
  /** The fetched range, both ends inclusive (docs/bank-api.md §6.4). */
  range: { from: Instant; to: Instant };
  /**
   * The consent's Credits/Debits filter (`creditDebitFilter`, packages/core/src/endpoint-access.ts):
   * what it could return.
   */
  creditDebitFilter: 'Credit' | 'Debit' | null;
  rows: readonly TransactionRow[];
  rejects?: readonly RejectInput[];
  /** Watermark to save with the window (never moves back); null leaves it as it is. */
  checkpoint: { watermark: Instant } | null;
  runId: string | null;
  now: Instant;
}

export interface WindowCounts {
  added: number;
  /** Content changed, or a removed row restored. */
  updated: number;
  /** Stored pending rows of the range (and filter) that the fetch no longer returned. */
  removed: number;
  unchanged: number;
}

/** Columns that track the fetch, not the transaction's content. */
const BOOKKEEPING = ['consentId'] as const satisfies readonly (keyof TransactionRow)[];

export function commitTransactionWindow(db: BankdataDb, input: TransactionWindowInput): WindowCounts {
  const now = toStoredInstant(input.now);
  const from = toStoredInstant(input.range.from);
  const to = toStoredInstant(input.range.to);
  if (to < from) throw new RangeError(`window ends before it starts: ${from} .. ${to}`);
  const rows = dedupeById(input);

  return inWriteTransaction(db, (tx) => {
    const counts: WindowCounts = { added: 0, updated: 0, removed: 0, unchanged: 0 };
    const statements = { ...upsertStatementsOf(db), owner: ownerLookup(tx) };
    const stored = readStoredRows(
      tx,
      input,
      [...rows.values()].map((row) => row.transactionId),
    );
    for (const row of rows.values())
      counts[upsertTransaction(statements, row, stored.get(row.transactionId), now)] += 1;
    counts.removed = removeVanishedPending(tx, input, { from, to, now }, new Set(rows.keys()));
    insertRejectRows(tx, input.rejects ?? [], input.runId, now);
    if (input.checkpoint) {
      advanceWatermark(tx, {
        bank: input.bank,
        accountId: input.accountId,
        consentId: input.consentId,
        resource: 'transactions',
        watermark: input.checkpoint.watermark,
        now,
      });
    }
    return counts;
  });
}

/** Adjacent windows share their boundary instant, so a key may come twice: the last one wins. */
function dedupeById(input: TransactionWindowInput): Map<string, TransactionRow> {
  const rows = new Map<string, TransactionRow>();
  for (const row of input.rows) {
    if (row.bank !== input.bank || row.accountId !== input.accountId) {
      throw new RangeError(
        `row ${row.bank}/${row.accountId}/${row.transactionId} is not of ${input.bank}/${input.accountId}`,
      );
    }
    rows.set(row.transactionId, row);
  }
  return rows;
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
  if (!stored) {
    statements.insert.run({ firstSeenAt: now, lastSeenAt: now, updatedAt: now, removedAt: null, ...fetched });
    return 'added';
  }
  const row = statements.owner(fetched, stored);
  // A booked row replaces the pending row of the same id; a removed row that comes back is
  // restored; detail columns are never blanked by a Basic fetch (merge.ts).
  const { merged, changed } = mergeRow<TransactionRow>(stored, row, {
    coalesce: TRANSACTION_DETAIL_COLUMNS,
    bookkeeping: BOOKKEEPING,
  });
  const restored = stored.removedAt !== null;
  if (!changed && !restored) {
    statements.touch.run({ now, consentId: row.consentId, ...keyValues });
    return 'unchanged';
  }
  statements.update.run({ now, ...merged });
  return 'updated';
}

/** The columns `openPendingInWindow` reads, of either dialect's `transactions` table. */
type PendingColumns = Record<
  'bank' | 'accountId' | 'status' | 'removedAt' | 'bookingDateTime' | 'creditDebitIndicator',
  Column
>;

/**
 * The stored open pending rows of the account whose booking instant lies in the window and that
 * this fetch could have returned (its Credits / Debits filter). Shared with the PostgreSQL store.
 */
export function openPendingInWindow(
  t: PendingColumns,
  input: TransactionWindowInput,
  window: { from: string; to: string },
): SQL {
  const conditions = [
    eq(t.bank, input.bank),
    eq(t.accountId, input.accountId),
    eq(t.status, 'Pending'),
    isNull(t.removedAt),
    gte(t.bookingDateTime, window.from),
    lte(t.bookingDateTime, window.to),
  ];
  if (input.creditDebitFilter) conditions.push(eq(t.creditDebitIndicator, input.creditDebitFilter));
  return allOf(...conditions);
}

/**
 * Pending rows are replaced per synced range (docs/bank-api.md §6.4): a stored open pending row
 * whose booking instant lies in the range, that this fetch could have returned (its Credits /
 * Debits filter) and did not return, is marked removed. Booked rows are never removed.
 */
function removeVanishedPending(
  tx: Conn,
  input: TransactionWindowInput,
  window: { from: string; to: string; now: string },
  returned: ReadonlySet<string>,
): number {
  const candidates = tx
    .select({ transactionId: transactions.transactionId })
    .from(transactions)
    .where(openPendingInWindow(transactions, input, window))
    .all();
  const vanished = candidates.map((c) => c.transactionId).filter((id) => !returned.has(id));
  for (let i = 0; i < vanished.length; i += 500) {
    tx.update(transactions)
      .set({ removedAt: window.now, updatedAt: window.now })
      .where(
        and(
          eq(transactions.bank, input.bank),
          eq(transactions.accountId, input.accountId),
          inArray(transactions.transactionId, vanished.slice(i, i + 500)),
        ),
      )
      .run();
  }
  return vanished.length;
}
