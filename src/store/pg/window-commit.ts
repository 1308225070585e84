/**
 * One transaction window on PostgreSQL (../window-commit.ts holds its rules). Here two workers may
 * write the same account at once (two consents over one account), so the transaction first takes
 * the account's advisory lock; and the window's rows are read with one array parameter and
 * written with one statement each for new or changed rows and for rows seen again, whatever the
 * window's size, where SQLite runs a prepared statement per row (bulk-rows.ts).
 */
import { sql } from 'drizzle-orm';
import type { TransactionId } from '@bankdata/core/schemas';
import { lockAccounts } from '../dialect-sql';
import { liveConsentsOf, otherOwners, withOwner } from '../row-owner';
import { rowOf, selectFrom } from '../sql-build';
import type { SqlRunner } from '../sql-runner';
import { transactions as sqliteTransactions } from '../sqlite/schema';
import {
  checkWindow,
  finishWindow,
  planWindowRow,
  type StoredTransaction,
  type TransactionWindowInput,
  type WindowCounts,
  countedOutcome,
} from '../window-commit';
import { upsertRows } from './bulk-rows';
import { transactions } from './schema';

export function commitTransactionWindowPg(r: SqlRunner, input: TransactionWindowInput): Promise<WindowCounts> {
  const { now, runStartedAt, from, to, rows } = checkWindow(input);
  return r.transaction(async (tx) => {
    await lockAccounts(tx, [input]);
    const counts: WindowCounts = { added: 0, updated: 0, removed: 0, unchanged: 0 };
    const ids = [...rows.keys()];
    const stored = new Map<TransactionId, StoredTransaction>();
    if (ids.length > 0) {
      const found = await tx.all(
        sql`${selectFrom(sqliteTransactions)} WHERE bank = ${input.bank} AND account_id = ${input.accountId}
            AND transaction_id = ANY(${sql.param(ids)}::text[])`,
      );
      for (const row of found) stored.set(row.transaction_id as TransactionId, rowOf(sqliteTransactions, row));
    }
    const live = await liveConsentsOf(tx, otherOwners(stored.values(), input.consentId));
    const upserts: (typeof transactions.$inferInsert)[] = [];
    const seenAgain: { ids: TransactionId[]; consents: string[] } = { ids: [], consents: [] };
    for (const fetched of rows.values()) {
      const before = stored.get(fetched.transactionId);
      const row = withOwner(fetched, before, live);
      const plan = planWindowRow(row, before);
      counts[countedOutcome(plan.outcome, before, runStartedAt)] += 1;
      // first_seen_at of a stored row is kept (the upsert leaves it out).
      if (plan.outcome === 'added')
        upserts.push({ firstSeenAt: now, lastSeenAt: now, updatedAt: now, removedAt: null, ...row });
      else if (plan.outcome === 'updated')
        upserts.push({ firstSeenAt: now, lastSeenAt: now, updatedAt: now, removedAt: null, ...plan.merged });
      else {
        seenAgain.ids.push(row.transactionId);
        seenAgain.consents.push(row.consentId);
      }
    }
    if (seenAgain.ids.length > 0) {
      await tx.run(sql`UPDATE transactions AS t SET last_seen_at = ${now}, consent_id = v.consent_id
        FROM unnest(${sql.param(seenAgain.ids)}::text[], ${sql.param(seenAgain.consents)}::text[]) AS v(transaction_id, consent_id)
        WHERE t.bank = ${input.bank} AND t.account_id = ${input.accountId} AND t.transaction_id = v.transaction_id`);
    }
    await upsertRows(tx, transactions, upserts, {
      key: ['bank', 'account_id', 'transaction_id'],
      keep: ['first_seen_at'],
    });
    counts.removed = await finishWindow(tx, input, { from, to, now }, new Set(ids));
    return counts;
  });
}
