/**
 * `bankdata consents forget ID`: the data of one ended consent deleted on request (docs/security.md
 * "Data kept"): its accounts, balances, transactions, statements (and their files), parties,
 * rejects, sync state, creation record and registry row. An account another consent still reads
 * (it has sync state under that consent) keeps its rows, handed over to that consent. One
 * transaction; `dryRun` counts without deleting. The SQL is written once for both dialects
 * (`forgetInTransaction`); the PostgreSQL store also deletes the files' bytes (pg-store.ts).
 */
import type Database from 'better-sqlite3';

export interface ForgetReport {
  consentId: string;
  /** Rows deleted per table. */
  deleted: Record<string, number>;
  /** Rows kept because another consent reads the same account: handed over to it. */
  handedOver: Record<string, number>;
  /** Statement files (paths relative to the data directory) to remove once committed. */
  files: string[];
}

const ACCOUNT_TABLES = ['transactions', 'balances', 'statements', 'parties', 'accounts'] as const;

/** SQL with `?` placeholders, run inside the caller's transaction; `run` returns the rows changed. */
export interface ForgetSql {
  all(text: string, params: readonly string[]): Promise<Record<string, unknown>[]>;
  run(text: string, params: readonly string[]): Promise<number>;
}

/** The deletions and hand-overs, in the caller's open transaction (the same SQL on both dialects). */
export async function forgetInTransaction(exec: ForgetSql, consentId: string): Promise<ForgetReport> {
  const report: ForgetReport = { consentId, deleted: {}, handedOver: {}, files: [] };
  // Accounts of this consent that another consent reads: (bank, account) → that consent.
  const heirs = (await exec.all(
    `SELECT DISTINCT a.bank, a.account_id, (SELECT s.consent_id FROM sync_state s WHERE s.bank = a.bank AND s.account_id = a.account_id AND s.consent_id <> ? ORDER BY s.updated_at DESC LIMIT 1) AS heir
       FROM (SELECT bank, account_id FROM accounts WHERE consent_id = ? UNION SELECT bank, account_id FROM sync_state WHERE consent_id = ?) a`,
    [consentId, consentId, consentId],
  )) as { bank: string; account_id: string; heir: string | null }[];
  for (const { bank, account_id: accountId, heir } of heirs) {
    if (!heir) continue;
    for (const table of ACCOUNT_TABLES) {
      const n = await exec.run(
        `UPDATE ${table} SET consent_id = ? WHERE consent_id = ? AND bank = ? AND account_id = ?`,
        [heir, consentId, bank, accountId],
      );
      if (n > 0) report.handedOver[table] = (report.handedOver[table] ?? 0) + n;
    }
  }
  const files = (await exec.all(
    'SELECT file_path FROM statements WHERE consent_id = ? AND file_path IS NOT NULL ORDER BY file_path',
    [consentId],
  )) as { file_path: string }[];
  report.files = files.map((r) => r.file_path);
  for (const table of [...ACCOUNT_TABLES, 'rejects', 'sync_state', 'consent_creations', 'consents']) {
    const n = await exec.run(`DELETE FROM ${table} WHERE consent_id = ?`, [consentId]);
    if (n > 0) report.deleted[table] = n;
  }
  return report;
}

/** SQLite: one IMMEDIATE transaction, rolled back after counting when `dryRun`. */
export async function forgetConsentData(
  sqlite: Database.Database,
  consentId: string,
  options: { dryRun: boolean },
): Promise<ForgetReport> {
  const exec: ForgetSql = {
    all: async (text, params) => sqlite.prepare(text).all(...params) as Record<string, unknown>[],
    run: async (text, params) => sqlite.prepare(text).run(...params).changes,
  };
  // better-sqlite3 runs each statement at once, so nothing else of this process runs between
  // BEGIN and COMMIT but the awaits of this function's own settled promises.
  sqlite.exec('BEGIN IMMEDIATE');
  try {
    const report = await forgetInTransaction(exec, consentId);
    sqlite.exec(options.dryRun ? 'ROLLBACK' : 'COMMIT');
    return report;
  } catch (error) {
    if (sqlite.inTransaction) sqlite.exec('ROLLBACK');
    throw error;
  }
}
