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
 * The newest statement held for the account, whichever consent read it (the latest `EndDateTime`,
 * then the latest start), or null when none is held.
 */
export async function newestStatementPeriod(
  r: SqlRunner,
  key: { bank: BankName; accountId: AccountId },
): Promise<StatementPeriod | null> {
  const row = await r.get(
    sql`SELECT type, start_date_time, end_date_time, creation_date_time FROM statements
        WHERE ${and(eq(statements.bank, key.bank), eq(statements.accountId, key.accountId))}
        ORDER BY end_date_time DESC, start_date_time DESC LIMIT 1`,
  );
  if (!row) return null;
  return {
    type: String(row.type),
    start: String(row.start_date_time),
    end: String(row.end_date_time),
    created: String(row.creation_date_time),
  };
}
