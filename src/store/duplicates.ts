/**
 * Duplicates the bank served (docs/continuity.md "Duplicates the bank served"): the look-ups the
 * continuity check makes to name the suspected row of a `duplicate` break, and the suspicions it
 * stores (duplicate_suspicions; v_duplicates, v_transactions.suspected_duplicate). Written once for
 * both dialects over a SqlRunner; the Store exposes it as `store.duplicates` (store.ts).
 */
import { sql } from 'drizzle-orm';
import type { TransactionId } from '@bankdata/core/schemas';
import {
  amountUnits,
  IDS_PER_READ,
  lockAccounts,
  storedTransactionKeys,
  toNumberOrNull,
  str,
  strOrNull,
  textAmong,
  transactionKeyText,
} from './dialect-sql';
import type { AccountKey, UnitsRange } from './continuity';
import type { ContinuityKind } from './sqlite/schema';
import type { SqlRow, SqlRunner } from './sql-runner';

/** A booked row of a look-alike group: the rows of one group share instant, amount, description and merchant. */
export interface LookAlikeRow {
  /** The group's key (instant, amount, description, merchant), as one string. */
  group: string;
  transactionId: TransactionId;
  firstSeenAt: string;
}

/** A suspicion as the check proves it (duplicate_suspicions' columns). */
export interface DuplicateSuspicion extends AccountKey {
  transactionId: TransactionId;
  twinTransactionId: TransactionId;
  evidence: ContinuityKind;
  /** The bank's balance that disagrees (signed decimal), its instant (UTC) and NZ date. */
  balance: string;
  balanceDateTime: string;
  balanceDate: string;
  /** That balance with every stored row counted. */
  countedBalance: string;
  amountOff: string;
  amountOffMinor: number | null;
  currency: string;
  detail: string;
}

/** A row of v_duplicates (amounts as their exact texts). */
export interface DuplicateViewRow {
  bank: string;
  account_id: string;
  transaction_id: string;
  twin_transaction_id: string;
  evidence: string;
  balance_date: string;
  balance_date_time: string;
  balance_text: string;
  counted_balance_text: string;
  amount_off_text: string;
  amount_off_minor: number | null;
  currency: string;
  detail: string;
  suspected_at: string;
  checked_at: string;
  run_id: string | null;
  booking_date_time: string | null;
  description: string | null;
  amount_text: string | null;
}

/** What `replaceSuspicions` changed. */
export interface SuspicionCounts {
  /** Suspicions new, or proved again after being cleared. */
  marked: number;
  /** Open suspicions proved again (their evidence replaced). */
  kept: number;
  /** Open suspicions this check no longer proved: cleared (kept with `cleared_at`). */
  cleared: number;
}

export interface DuplicateOps {
  /**
   * The booked rows in (from, to] of `units` each that look alike two or more (instant, amount,
   * description, merchant), by group, then first seen, then id.
   */
  lookAlikeRows(key: AccountKey, range: UnitsRange): Promise<LookAlikeRow[]>;
  /** When each of the rows was first seen (the rows not stored are left out). */
  firstSeen(key: AccountKey, ids: readonly TransactionId[]): Promise<Map<TransactionId, string>>;
  /**
   * Stores the suspicions a check proved for the accounts it covered: new ones inserted, open ones
   * kept (evidence replaced), cleared ones reopened; every open suspicion of those accounts not
   * proved again is cleared (`cleared_at`), never deleted. One transaction, behind each account's
   * write lock.
   */
  replaceSuspicions(input: {
    accounts: readonly AccountKey[];
    suspicions: readonly DuplicateSuspicion[];
    runId: string | null;
    checkedAt: string;
  }): Promise<SuspicionCounts>;
  /** Rows of v_duplicates (open suspicions), per account and balance instant. */
  list(filter?: { accountId?: string }): Promise<DuplicateViewRow[]>;
}

function duplicateViewRow(r: SqlRow): DuplicateViewRow {
  return {
    bank: str(r.bank),
    account_id: str(r.account_id),
    transaction_id: str(r.transaction_id),
    twin_transaction_id: str(r.twin_transaction_id),
    evidence: str(r.evidence),
    balance_date: str(r.balance_date),
    balance_date_time: str(r.balance_date_time),
    balance_text: str(r.balance_text),
    counted_balance_text: str(r.counted_balance_text),
    amount_off_text: str(r.amount_off_text),
    amount_off_minor: toNumberOrNull(r.amount_off_minor),
    currency: str(r.currency),
    detail: str(r.detail),
    suspected_at: str(r.suspected_at),
    checked_at: str(r.checked_at),
    run_id: strOrNull(r.run_id),
    booking_date_time: strOrNull(r.booking_date_time),
    description: strOrNull(r.description),
    amount_text: strOrNull(r.amount_text),
  };
}

export function duplicateOps(runner: SqlRunner): DuplicateOps {
  const d = runner.dialect;
  return {
    async lookAlikeRows(key, range) {
      const units = amountUnits(d, 't', range.scale);
      const rows = await runner.all(
        sql`WITH booked AS (
              SELECT t.transaction_id, t.first_seen_at, t.booking_date_time, t.amount,
                     coalesce(t.description, '') AS description, coalesce(t.merchant_name, '') AS merchant
              FROM transactions t
              WHERE t.bank = ${key.bank} AND t.account_id = ${key.accountId} AND t.status = 'Booked' AND t.removed_at IS NULL
                AND t.booking_date_time > ${range.from} AND t.booking_date_time <= ${range.to} AND ${units} = ${range.units}
            ), groups AS (
              SELECT booking_date_time, amount, description, merchant FROM booked
              GROUP BY booking_date_time, amount, description, merchant HAVING count(*) > 1
            )
            SELECT b.transaction_id, b.first_seen_at, b.booking_date_time, b.amount, b.description, b.merchant
            FROM booked b JOIN groups g ON g.booking_date_time = b.booking_date_time AND g.amount = b.amount
              AND g.description = b.description AND g.merchant = b.merchant
            ORDER BY b.booking_date_time, b.amount, b.description, b.merchant, b.first_seen_at, b.transaction_id`,
      );
      return rows.map((r) => ({
        group: JSON.stringify([str(r.booking_date_time), str(r.amount), str(r.description), str(r.merchant)]),
        transactionId: str(r.transaction_id) as TransactionId,
        firstSeenAt: str(r.first_seen_at),
      }));
    },

    async firstSeen(key, ids) {
      const seen = new Map<TransactionId, string>();
      // Every id of every repeat pair of the account, unbounded (a row served twice is a pair):
      // one parameter a read (dialect-sql.ts `textAmong`), IDS_PER_READ ids at a time.
      const all = [...new Set(ids)];
      for (let i = 0; i < all.length; i += IDS_PER_READ) {
        const among = textAmong(d, sql`transaction_id`, all.slice(i, i + IDS_PER_READ));
        const rows = await runner.all(
          sql`SELECT transaction_id, first_seen_at FROM transactions
              WHERE bank = ${key.bank} AND account_id = ${key.accountId} AND ${among}`,
        );
        for (const r of rows) seen.set(str(r.transaction_id) as TransactionId, str(r.first_seen_at));
      }
      return seen;
    },

    async replaceSuspicions(input) {
      const counts: SuspicionCounts = { marked: 0, kept: 0, cleared: 0 };
      // One suspicion a row (the first given): a row named twice is one row of duplicate_suspicions, counted once.
      const byKey = new Map<string, DuplicateSuspicion>();
      for (const s of input.suspicions) {
        const key = `${s.bank}/${s.accountId}/${s.transactionId}`;
        if (!byKey.has(key)) byKey.set(key, s);
      }
      const suspicions = [...byKey.values()];
      await runner.transaction(async (tx) => {
        // The same locks as the findings (continuity.ts replaceFindings): two workers checking one account write in turn.
        const accounts = await lockAccounts(tx, input.accounts);
        // Only suspicions of transactions stored now (both of the pair): a forget that committed
        // since the check read them deleted the others.
        const present = await storedTransactionKeys(
          tx,
          suspicions.flatMap((s) => [s, { ...s, transactionId: s.twinTransactionId }]),
        );
        const standing = (s: DuplicateSuspicion) =>
          present.has(transactionKeyText(s)) &&
          present.has(transactionKeyText({ ...s, transactionId: s.twinTransactionId }));
        // What this check proves, of the rows still stored: an open suspicion it does not prove
        // (its twin forgotten since the read, say) is cleared below.
        const proved = new Set(suspicions.filter(standing).map((s) => `${s.bank}/${s.accountId}/${s.transactionId}`));
        for (const account of accounts) {
          const open = await tx.all(
            sql`SELECT transaction_id, cleared_at FROM duplicate_suspicions WHERE bank = ${account.bank} AND account_id = ${account.accountId}`,
          );
          const stored = new Map(open.map((r) => [str(r.transaction_id), r.cleared_at === null]));
          for (const [id, isOpen] of stored) {
            if (!isOpen || proved.has(`${account.bank}/${account.accountId}/${id}`)) continue;
            await tx.run(
              sql`UPDATE duplicate_suspicions SET cleared_at = ${input.checkedAt}, checked_at = ${input.checkedAt}, run_id = ${input.runId}
                  WHERE bank = ${account.bank} AND account_id = ${account.accountId} AND transaction_id = ${id}`,
            );
            counts.cleared += 1;
          }
          for (const s of suspicions) {
            if (s.bank !== account.bank || s.accountId !== account.accountId || !standing(s)) continue;
            const wasOpen = stored.get(s.transactionId);
            if (wasOpen === true) counts.kept += 1;
            else counts.marked += 1;
            await tx.run(
              sql`INSERT INTO duplicate_suspicions (bank, account_id, transaction_id, twin_transaction_id, evidence, balance,
                    balance_date_time, balance_date, counted_balance, amount_off, amount_off_minor, currency, detail,
                    suspected_at, checked_at, run_id, cleared_at)
                  VALUES (${s.bank}, ${s.accountId}, ${s.transactionId}, ${s.twinTransactionId}, ${s.evidence}, ${s.balance},
                    ${s.balanceDateTime}, ${s.balanceDate}, ${s.countedBalance}, ${s.amountOff}, ${s.amountOffMinor}, ${s.currency},
                    ${s.detail}, ${input.checkedAt}, ${input.checkedAt}, ${input.runId}, NULL)
                  ON CONFLICT (bank, account_id, transaction_id) DO UPDATE SET
                    twin_transaction_id = excluded.twin_transaction_id, evidence = excluded.evidence, balance = excluded.balance,
                    balance_date_time = excluded.balance_date_time, balance_date = excluded.balance_date,
                    counted_balance = excluded.counted_balance, amount_off = excluded.amount_off,
                    amount_off_minor = excluded.amount_off_minor, currency = excluded.currency, detail = excluded.detail,
                    suspected_at = CASE WHEN duplicate_suspicions.cleared_at IS NULL THEN duplicate_suspicions.suspected_at ELSE excluded.suspected_at END,
                    checked_at = excluded.checked_at, run_id = excluded.run_id, cleared_at = NULL`,
            );
          }
        }
      });
      return counts;
    },

    async list(filter = {}) {
      const where = filter.accountId === undefined ? sql`` : sql` WHERE account_id = ${filter.accountId}`;
      const rows = await runner.all(
        sql`SELECT bank, account_id, transaction_id, twin_transaction_id, evidence, balance_date, balance_date_time,
                   balance_text, counted_balance_text, amount_off_text, amount_off_minor, currency, detail,
                   suspected_at, checked_at, run_id, booking_date_time, description, amount_text
            FROM v_duplicates${where} ORDER BY bank, account_id, balance_date_time, transaction_id`,
      );
      return rows.map(duplicateViewRow);
    },
  };
}
