/**
 * One transaction window on PostgreSQL: the same unit as ../window-commit.ts (its rows, the
 * removal of its vanished pending rows, its rejects and the watermark, in one transaction), with
 * the same merge rules (../merge.ts), so both dialects store the same rows byte for byte.
 * SQLite serialises writers with BEGIN IMMEDIATE; here two workers may write the same account
 * at once (two consents over one account), so the transaction first takes an advisory lock on
 * the account: the read-then-write of each row cannot race, and other accounts are not held up.
 */
import { and, eq, inArray } from 'drizzle-orm';
import { sql } from 'drizzle-orm';
import type { ConsentId, TransactionId } from '@bankdata/core/schemas';
import { mergeRow } from '../merge';
import { rejectValues } from '../rejects';
import { TRANSACTION_DETAIL_COLUMNS, type RejectInput, type TransactionRow } from '../rows';
import { toStoredInstant } from '../time';
import { pgAccountLock } from '../dialect-sql';
import { openPendingInWindow, type TransactionWindowInput, type WindowCounts } from '../window-commit';
import type { PgDb } from './open';
import { upsertRows } from './bulk-rows';
import { liveConsentsWhere, otherOwners, withOwner } from '../row-owner';
import { consents, rejects, syncState, transactions } from './schema';

type Tx = Parameters<Parameters<PgDb['transaction']>[0]>[0];

const BOOKKEEPING = ['consentId'] as const satisfies readonly (keyof TransactionRow)[];

export async function commitTransactionWindowPg(db: PgDb, input: TransactionWindowInput): Promise<WindowCounts> {
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

  return db.transaction(async (tx) => {
    await lockAccount(tx, input.bank, input.accountId);
    const counts: WindowCounts = { added: 0, updated: 0, removed: 0, unchanged: 0 };
    const ids = [...rows.keys()];
    const stored = new Map<TransactionId, typeof transactions.$inferSelect>();
    if (ids.length > 0) {
      // One array parameter, not one per id.
      const found = await tx
        .select()
        .from(transactions)
        .where(
          and(
            eq(transactions.bank, input.bank),
            eq(transactions.accountId, input.accountId),
            sql`${transactions.transactionId} = ANY(${sql.param(ids)}::text[])`,
          ),
        );
      for (const row of found) stored.set(row.transactionId, row);
    }
    // New and changed rows in one upsert, rows seen again unchanged in one update: a statement
    // each, whatever the window's size (bulk-rows.ts).
    const live = await liveConsentsPg(tx, otherOwners(stored.values(), input.consentId));
    const upserts: (typeof transactions.$inferInsert)[] = [];
    const seenAgain: { ids: TransactionId[]; consents: string[] } = { ids: [], consents: [] };
    for (const fetched of rows.values()) {
      const before = stored.get(fetched.transactionId);
      const row = withOwner(fetched, before, live);
      if (!before) {
        upserts.push({ firstSeenAt: now, lastSeenAt: now, updatedAt: now, removedAt: null, ...row });
        counts.added += 1;
        continue;
      }
      const { removedAt, firstSeenAt: _first, lastSeenAt: _last, updatedAt: _updated, ...storedRow } = before;
      const { merged, changed } = mergeRow<TransactionRow>(storedRow, row, {
        coalesce: TRANSACTION_DETAIL_COLUMNS,
        bookkeeping: BOOKKEEPING,
      });
      if (!changed && removedAt === null) {
        seenAgain.ids.push(row.transactionId);
        seenAgain.consents.push(row.consentId);
        counts.unchanged += 1;
      } else {
        // first_seen_at is kept (ON CONFLICT leaves it out).
        upserts.push({ firstSeenAt: now, lastSeenAt: now, updatedAt: now, removedAt: null, ...merged });
        counts.updated += 1;
      }
    }
    if (seenAgain.ids.length > 0) {
      await tx.execute(sql`UPDATE transactions AS t SET last_seen_at = ${now}, consent_id = v.consent_id
        FROM unnest(${sql.param(seenAgain.ids)}::text[], ${sql.param(seenAgain.consents)}::text[]) AS v(transaction_id, consent_id)
        WHERE t.bank = ${input.bank} AND t.account_id = ${input.accountId} AND t.transaction_id = v.transaction_id`);
    }
    await upsertRows(tx, transactions, upserts, {
      key: ['bank', 'account_id', 'transaction_id'],
      keep: ['first_seen_at'],
    });
    counts.removed = await removeVanishedPending(tx, input, { from, to, now }, new Set(ids));
    await insertRejectsPg(tx, input.rejects ?? [], input.runId, now);
    if (input.checkpoint) {
      const watermark = toStoredInstant(input.checkpoint.watermark);
      // Never moves back: the upsert keeps the later of the stored and the new instant.
      await tx
        .insert(syncState)
        .values({
          bank: input.bank,
          accountId: input.accountId,
          consentId: input.consentId,
          resource: 'transactions',
          watermark,
          updatedAt: now,
        })
        .onConflictDoUpdate({
          target: [syncState.bank, syncState.accountId, syncState.consentId, syncState.resource],
          set: { watermark, updatedAt: now },
          setWhere: sql`${syncState.watermark} IS NULL OR ${syncState.watermark} < ${watermark}`,
        });
    }
    return counts;
  });
}

/** Serialises writers of one account until the transaction ends (../dialect-sql.ts `pgAccountLock`). */
export async function lockAccount(tx: Tx, bank: string, accountId: string): Promise<void> {
  await tx.execute(pgAccountLock(bank, accountId));
}

/** ../row-owner.ts `liveConsents` on PostgreSQL. */
export async function liveConsentsPg(tx: Tx, ids: readonly ConsentId[]): Promise<Set<ConsentId>> {
  if (ids.length === 0) return new Set();
  const found = await tx
    .select({ consentId: consents.consentId })
    .from(consents)
    .where(liveConsentsWhere(consents, ids));
  return new Set(found.map((r) => r.consentId));
}

/** ../window-commit.ts removeVanishedPending: the same rule, docs/bank-api.md §6.4. */
async function removeVanishedPending(
  tx: Tx,
  input: TransactionWindowInput,
  window: { from: string; to: string; now: string },
  returned: ReadonlySet<TransactionId>,
): Promise<number> {
  const candidates = await tx
    .select({ transactionId: transactions.transactionId })
    .from(transactions)
    .where(openPendingInWindow(transactions, input, window));
  const vanished = candidates.map((c) => c.transactionId).filter((id) => !returned.has(id));
  for (let i = 0; i < vanished.length; i += 1000) {
    await tx
      .update(transactions)
      .set({ removedAt: window.now, updatedAt: window.now })
      .where(
        and(
          eq(transactions.bank, input.bank),
          eq(transactions.accountId, input.accountId),
          inArray(transactions.transactionId, vanished.slice(i, i + 1000)),
        ),
      );
  }
  return vanished.length;
}

/** The unit's rejects, in its transaction (shared with unit-writes.ts and the store's `rejects.insert`). */
export async function insertRejectsPg(
  tx: Tx,
  inputs: readonly RejectInput[],
  runId: string | null,
  now: string,
): Promise<number> {
  if (inputs.length > 0) await tx.insert(rejects).values(inputs.map((r) => rejectValues(r, runId, now)));
  return inputs.length;
}
