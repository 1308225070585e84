/**
 * The statement dates the sync plans its statement listing from (docs/configuration.md "Sync
 * rules", statements when due): the newest statement held for an account. Written once over a
 * SqlRunner for both dialects.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { AccountId, BankName } from '@bankdata/core/schemas';
import { statements } from './sqlite/schema';
import type { SqlRunner } from './sql-runner';

/** One statement's period as stored: `StartDateTime`, `EndDateTime` and `CreationDateTime` (stored instants). */
export interface StatementPeriod {
  type: string;
  start: string;
  end: string;
  created: string;
}

/**
 * The statement the account's next one is planned from, whichever consent read it: the newest
 * `RegularPeriodic` one held (the latest `EndDateTime`, then the latest start), or the newest of
 * any type when the account holds no periodic one; null when none is held. A statement off the
 * period (an `Interim` the customer asked for mid-month, an `Annual`) says nothing of when the
 * next periodic one comes, and it starts after the current period's start: listed from it, the
 * period's own statement (which starts before it) would never be returned
 * (docs/configuration.md "Statements when due").
 */
export async function newestStatementPeriod(
  r: SqlRunner,
  key: { bank: BankName; accountId: AccountId },
): Promise<StatementPeriod | null> {
  const row = await r.get(
    sql`SELECT type, start_date_time, end_date_time, creation_date_time FROM statements
        WHERE ${and(eq(statements.bank, key.bank), eq(statements.accountId, key.accountId))}
        ORDER BY CASE WHEN type = 'RegularPeriodic' THEN 0 ELSE 1 END, end_date_time DESC, start_date_time DESC
        LIMIT 1`,
  );
  if (!row) return null;
  return {
    type: String(row.type),
    start: String(row.start_date_time),
    end: String(row.end_date_time),
    created: String(row.creation_date_time),
  };
}
