/**
 * `consents forget` over a SqlRunner, for both dialects: forget.ts's SQL (`forgetInTransaction`)
 * in one transaction of the runner, rolled back after counting when `dryRun`; `alongside` runs in
 * the same transaction after it (PostgreSQL deletes the files' bytes: pg-store.ts).
 */
import { sql, type SQL } from 'drizzle-orm';
import { lockAccounts, takeLock } from './dialect-sql';
import { forgetInTransaction, type ForgetReport, type ForgetSql } from './forget';
import type { SqlRunner } from './sql-runner';

/** forget.ts's text with `?` placeholders as a query of the runner's dialect. */
function query(text: string, params: readonly string[]): SQL {
  const parts = text.split('?');
  if (parts.length !== params.length + 1) throw new Error('forget: placeholders and values differ');
  return sql.join(
    parts.flatMap((part, i) => (i < params.length ? [sql.raw(part), sql`${params[i]}`] : [sql.raw(part)])),
  );
}

/** Thrown to roll the dry run's transaction back, carrying what it counted. */
class DryRun extends Error {
  constructor(readonly report: ForgetReport) {
    super('dry run: rolled back');
  }
}

export async function forgetConsent(
  r: SqlRunner,
  consentId: string,
  options: { dryRun: boolean },
  alongside?: (tx: SqlRunner, report: ForgetReport) => Promise<void>,
): Promise<ForgetReport> {
  try {
    return await r.transaction(async (tx) => {
      const exec: ForgetSql = { all: (t, p) => tx.all(query(t, p)), run: (t, p) => tx.changes(query(t, p)) };
      // PostgreSQL: the accounts' locks, then the transfer matching's (the orphan links deleted
      // last), as every writer of those rows takes them (dialect-sql.ts).
      const report = await forgetInTransaction(exec, consentId, async (accounts) => {
        await lockAccounts(tx, accounts);
        await takeLock(tx, 'transferLinks');
      });
      if (alongside) await alongside(tx, report);
      if (options.dryRun) throw new DryRun(report);
      return report;
    });
  } catch (error) {
    if (error instanceof DryRun) return error.report;
    throw error;
  }
}
