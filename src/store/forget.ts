/**
 * `bankdata consents forget ID`: the data of one ended consent deleted on request (docs/security.md
 * "Data kept"): its accounts, balances, transactions, statements (and their files), parties,
 * rejects, sync state, creation record and registry row. An account another consent still reads
 * (it has sync state under that consent) keeps its rows, handed over to that consent. One
 * transaction; `dryRun` counts without deleting. Async like the rest of the Store's operations.
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

export async function forgetConsentData(sqlite: Database.Database, consentId: string, options: { dryRun: boolean }): Promise<ForgetReport> {
  const report: ForgetReport = { consentId, deleted: {}, handedOver: {}, files: [] };
  const run = sqlite.transaction(() => {
    // Accounts of this consent that another consent reads: (bank, account) → that consent.
    const heirs = sqlite
      .prepare(
        `SELECT DISTINCT a.bank, a.account_id, (SELECT s.consent_id FROM sync_state s WHERE s.bank = a.bank AND s.account_id = a.account_id AND s.consent_id <> ? ORDER BY s.updated_at DESC LIMIT 1) AS heir
           FROM (SELECT bank, account_id FROM accounts WHERE consent_id = ? UNION SELECT bank, account_id FROM sync_state WHERE consent_id = ?) a`,
      )
      .all(consentId, consentId, consentId) as { bank: string; account_id: string; heir: string | null }[];
    for (const { bank, account_id: accountId, heir } of heirs) {
      if (!heir) continue;
      for (const table of ACCOUNT_TABLES) {
        const n = sqlite.prepare(`UPDATE ${table} SET consent_id = ? WHERE consent_id = ? AND bank = ? AND account_id = ?`).run(heir, consentId, bank, accountId).changes;
        if (n > 0) report.handedOver[table] = (report.handedOver[table] ?? 0) + n;
      }
    }
    report.files = (sqlite.prepare('SELECT file_path FROM statements WHERE consent_id = ? AND file_path IS NOT NULL').all(consentId) as { file_path: string }[]).map((r) => r.file_path);
    for (const table of [...ACCOUNT_TABLES, 'rejects', 'sync_state', 'consent_creations', 'consents']) {
      const n = sqlite.prepare(`DELETE FROM ${table} WHERE consent_id = ?`).run(consentId).changes;
      if (n > 0) report.deleted[table] = n;
    }
    if (options.dryRun) throw new DryRunRollback();
  });
  try {
    run.immediate();
  } catch (error) {
    if (!(error instanceof DryRunRollback)) throw error;
  }
  return report;
}

/** Thrown inside the transaction to roll a dry run back after counting. */
class DryRunRollback extends Error {}
