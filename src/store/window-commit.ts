/**
 * One transaction window (docs/configuration.md "Sync rules"): its rows, the removal of its
 * vanished pending rows, its rejects and the advance of the watermark, in one transaction. A
 * crash mid-window loses only that window; a rerun resumes without duplicates. The rules are
 * here once (`checkWindow`, `planWindowRow`, `finishWindow`); how the rows are read and written
 * is each dialect's (sqlite/window-commit.ts: prepared statements per row; pg/window-commit.ts:
 * a statement per window), the one place where the store's SQL truly differs for speed.
 */
import { and, eq, gte, inArray, isNull, lte, sql, type Column, type SQL } from 'drizzle-orm';
import type { AccountId, BankName, ConsentId, TransactionId } from '@bankdata/core/schemas';
import { mergeRow } from './merge';
import { insertRejects } from './rejects';
import { TRANSACTION_DETAIL_COLUMNS, type RejectInput, type TransactionRow } from './rows';
import { transactions } from './sqlite/schema';
import type { SqlRunner } from './sql-runner';
import { advanceWatermarkSql } from './sync-state';
import { toStoredInstant, type Instant } from './time';
import { allOf } from './dialect-sql';

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
  /**
   * When this process's run started (the clock of `now`): a stored row first seen at or after it
   * was written earlier in this run (by another consent of the account, or an overlapping
   * window), so writing it again is not counted as "updated" (it was not in the database before
   * the run). Absent: every changed row counts as updated.
   */
  runStartedAt?: Instant;
}

export interface WindowCounts {
  added: number;
  /** A row stored before this run whose content changed, or a removed row restored. */
  updated: number;
  /** Stored pending rows of the range (and filter) that the fetch no longer returned. */
  removed: number;
  unchanged: number;
}

export type StoredTransaction = typeof transactions.$inferSelect;

/** Columns that track the fetch, not the transaction's content. */
const BOOKKEEPING = ['consentId'] as const satisfies readonly (keyof TransactionRow)[];

/**
 * The window's instants as stored and its rows by id, checked to be of its account. Adjacent
 * windows share their boundary instant, so a key may come twice: the last one wins.
 */
export function checkWindow(input: TransactionWindowInput): {
  now: string;
  runStartedAt: string | null;
  from: string;
  to: string;
  rows: Map<TransactionId, TransactionRow>;
} {
  const now = toStoredInstant(input.now);
  const from = toStoredInstant(input.range.from);
  const to = toStoredInstant(input.range.to);
  if (to < from) throw new RangeError(`window ends before it starts: ${from} .. ${to}`);
  const rows = new Map<TransactionId, TransactionRow>();
  for (const row of input.rows) {
    if (row.bank !== input.bank || row.accountId !== input.accountId) {
      throw new RangeError(
        `row ${row.bank}/${row.accountId}/${row.transactionId} is not of ${input.bank}/${input.accountId}`,
      );
    }
    rows.set(row.transactionId, row);
  }
  const runStartedAt = input.runStartedAt === undefined ? null : toStoredInstant(input.runStartedAt);
  return { now, runStartedAt, from, to, rows };
}

/**
 * How a row's write is counted: an "updated" row that this run itself first wrote (its
 * first_seen_at at or after the run's start) counts as unchanged, so the first sync of an empty
 * database reports every row added and none updated, however many consents share an account
 * (transaction windows here; accounts, statements and parties in resource-writes.ts).
 */
export function countedOutcome<K extends string>(
  outcome: K,
  stored: { firstSeenAt: string } | undefined,
  runStartedAt: string | null,
): K | 'unchanged' {
  if (outcome !== 'updated' || !stored || runStartedAt === null) return outcome;
  return stored.firstSeenAt >= runStartedAt ? 'unchanged' : outcome;
}

/**
 * What one fetched row (its owner already settled: row-owner.ts) does to the stored one: a booked
 * row replaces the pending row of the same id; a removed row that comes back is restored; detail
 * columns are never blanked by a Basic fetch (merge.ts); a row seen again unchanged is only touched.
 */
export function planWindowRow(
  row: TransactionRow,
  stored: StoredTransaction | undefined,
): { outcome: 'added' } | { outcome: 'unchanged' } | { outcome: 'updated'; merged: TransactionRow } {
  if (!stored) return { outcome: 'added' };
  const { merged, changed } = mergeRow<TransactionRow>(stored, row, {
    coalesce: TRANSACTION_DETAIL_COLUMNS,
    bookkeeping: BOOKKEEPING,
  });
  if (!changed && stored.removedAt === null) return { outcome: 'unchanged' };
  return { outcome: 'updated', merged };
}

/**
 * The window's end, in its transaction after its rows: its vanished pending rows removed, its
 * rejects, and the watermark advanced (never back). Returns how many rows were removed.
 */
export async function finishWindow(
  tx: SqlRunner,
  input: TransactionWindowInput,
  window: { from: string; to: string; now: string },
  returned: ReadonlySet<string>,
): Promise<number> {
  const removed = await removeVanishedPending(tx, input, window, withRejectedIds(input, returned));
  await insertRejects(tx, input.rejects ?? [], input.runId, window.now);
  if (input.checkpoint) {
    await tx.run(
      advanceWatermarkSql({
        bank: input.bank,
        accountId: input.accountId,
        consentId: input.consentId,
        resource: 'transactions',
        watermark: input.checkpoint.watermark,
        now: window.now,
      }),
    );
  }
  return removed;
}

/**
 * The ids the fetch returned: its rows', and those of the records it kept aside as rejects (a
 * schema error, a NUL) that name one of this account's transactions. The bank still holds such a
 * row, so a stored pending row of that id keeps its last good version rather than being marked
 * removed; a reject of another account (or without an id) says nothing of this account's rows.
 */
function withRejectedIds(input: TransactionWindowInput, returned: ReadonlySet<string>): ReadonlySet<string> {
  const ids = new Set(returned);
  for (const reject of input.rejects ?? []) {
    const raw = reject.rawPayload;
    if (typeof raw !== 'object' || raw === null) continue;
    const { TransactionId: id, AccountId: owner } = raw as { TransactionId?: unknown; AccountId?: unknown };
    if (typeof id === 'string' && (owner === undefined || owner === input.accountId)) ids.add(id);
  }
  return ids;
}

/** The columns `openPendingInWindow` reads, of either dialect's `transactions` table. */
type PendingColumns = Record<
  'bank' | 'accountId' | 'status' | 'removedAt' | 'bookingDateTime' | 'creditDebitIndicator',
  Column
>;

/**
 * The stored open pending rows of the account whose booking instant lies in the window and that
 * this fetch could have returned (its Credits / Debits filter).
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
async function removeVanishedPending(
  tx: SqlRunner,
  input: TransactionWindowInput,
  window: { from: string; to: string; now: string },
  returned: ReadonlySet<string>,
): Promise<number> {
  const candidates = await tx.all(
    sql`SELECT transaction_id FROM transactions WHERE ${openPendingInWindow(transactions, input, window)}`,
  );
  const vanished = candidates.map((c) => c.transaction_id as TransactionId).filter((id) => !returned.has(id));
  for (let i = 0; i < vanished.length; i += 500) {
    const ids = inArray(transactions.transactionId, vanished.slice(i, i + 500));
    await tx.run(
      sql`UPDATE transactions SET removed_at = ${window.now}, updated_at = ${window.now}
          WHERE ${and(eq(transactions.bank, input.bank), eq(transactions.accountId, input.accountId), ids)}`,
    );
  }
  return vanished.length;
}
