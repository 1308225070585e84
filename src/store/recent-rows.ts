/**
 * The rows a later run's look-back would read again (docs/configuration.md "Sync windows", the
 * look-back of a later run): the booking instants of an account's rows held since an instant.
 * Written once over a SqlRunner for both dialects; served by the index of the views' order
 * (bank, account_id, booking_date_time over rows not removed).
 */
import { sql } from 'drizzle-orm';
import type { AccountId, BankName } from '@bankdata/core/schemas';
import type { SqlRunner } from './sql-runner';
import { toStoredInstant, type Instant } from './time';

/**
 * Booking instants (epoch ms, oldest first) of the account's transactions not removed whose
 * `BookingDateTime` is at or after `since`, at most `limit` of the newest; with `indicator`, of
 * that indicator only (the rows a consent with only ReadTransactionsCredits or Debits reads).
 */
export async function rowTimesSince(
  r: SqlRunner,
  key: { bank: BankName; accountId: AccountId; since: Instant; limit: number; indicator?: 'Credit' | 'Debit' | null },
): Promise<number[]> {
  const indicator = key.indicator ? sql` AND credit_debit_indicator = ${key.indicator}` : sql``;
  const rows = await r.all(
    sql`SELECT booking_date_time FROM transactions
        WHERE bank = ${key.bank} AND account_id = ${key.accountId} AND removed_at IS NULL
          AND booking_date_time >= ${toStoredInstant(key.since)}${indicator}
        ORDER BY booking_date_time DESC LIMIT ${key.limit}`,
  );
  return rows.map((row) => Date.parse(String(row.booking_date_time))).reverse();
}
