/**
 * `bankdata consents forget ID`: the data of one ended consent deleted on request (docs/security.md
 * "Data kept"): its accounts, balances, transactions, statements (and their files), parties,
 * rejects, sync state, creation record and registry row. One transaction; `dryRun` counts without
 * deleting. The SQL is written once for both dialects (`forgetInTransaction`); the PostgreSQL store
 * also deletes the files' bytes (pg-store.ts).
 *
 * A row is handed over, not deleted, only to a consent that may read it (`mayRead`): one that
 * reads the same account (it has sync state there) and whose own permissions and window would have
 * returned the row: the resource's permission at the payload level the forgotten consent read it
 * with (a Basic consent never receives Detail rows), for transactions the Credits/Debits filter and
 * the window (`start_date_time` to `end_date_time`: the bank refuses ranges outside it, BDT236), for
 * balances the same window, for a statement with a file the file permission. Such a consent must
 * also read the account itself (its row is what the others' rows point to). Of several, a row goes
 * to the one that synced the account last; the rest is deleted, and the report says which is which.
 */
import {
  creditDebitFilter,
  ENDPOINT_ACCESS,
  hasPermissionFor,
  payloadLevel,
  type Endpoint,
} from '@bankdata/core/endpoint-access';
import type { Permission } from '@bankdata/core/schemas';
import { storedPermissions } from './registry';

export interface ForgetReport {
  consentId: string;
  /** Rows deleted per table. */
  deleted: Record<string, number>;
  /** Rows handed over, per receiving consent, per table: each consent may read what it received. */
  handedOver: Record<string, Record<string, number>>;
  /** Statement files (paths relative to the data directory) to remove once committed. */
  files: string[];
}

const ACCOUNT_TABLES = ['transactions', 'balances', 'statements', 'parties', 'accounts'] as const;
type AccountTable = (typeof ACCOUNT_TABLES)[number];

/** SQL with `?` placeholders, run inside the caller's transaction; `run` returns the rows changed. */
export interface ForgetSql {
  all(text: string, params: readonly string[]): Promise<Record<string, unknown>[]>;
  run(text: string, params: readonly string[]): Promise<number>;
}

/** A consent as far as reading goes: its permissions and its window (stored UTC instants). */
export interface Reader {
  consentId: string;
  permissions: readonly string[];
  start: string | null;
  end: string | null;
}

/** What each table's rows need (docs/bank-api.md §3, §6): the endpoint and, if levelled, its two levels. */
const RESOURCE: Record<
  AccountTable,
  { endpoint: Endpoint; levels?: readonly [basic: Permission, detail: Permission] }
> = {
  accounts: { endpoint: 'accounts', levels: ['ReadAccountsBasic', 'ReadAccountsDetail'] },
  balances: { endpoint: 'balances' },
  transactions: { endpoint: 'transactions', levels: ['ReadTransactionsBasic', 'ReadTransactionsDetail'] },
  statements: { endpoint: 'statements', levels: ['ReadStatementsBasic', 'ReadStatementsDetail'] },
  parties: { endpoint: 'account_party' },
};

/** 0 none, 1 Basic, 2 Detail: what a consent holding `permissions` may read of the table now. */
function level(permissions: readonly string[], table: AccountTable): number {
  return hasPermissionFor(RESOURCE[table].endpoint, permissions) ? payloadLevelOf(permissions, table) : 0;
}

/**
 * 1 Basic, 2 Detail: the level of rows read under `permissions`, Basic when the table's Basic
 * permission is held without its Detail one (docs/bank-api.md §3). The forgotten consent's rows
 * are judged by this alone, not by what it may read today: an earlier version stored statements
 * read at Detail under `ReadStatementsDetail` without `ReadStatements`, and a Basic heir must not
 * receive them.
 */
function payloadLevelOf(permissions: readonly string[], table: AccountTable): number {
  const { levels } = RESOURCE[table];
  return !levels || payloadLevel(permissions, ...levels) === 'Detail' ? 2 : 1;
}

/**
 * The condition under which `heir` may read `table`'s rows that `forgotten` read, as SQL over
 * the row (and its parameters); null when it may read none of them.
 */
export function mayRead(
  table: AccountTable,
  heir: Reader,
  forgotten: Reader,
): { where: string; params: string[] } | null {
  if (level(heir.permissions, table) < payloadLevelOf(forgotten.permissions, table)) return null;
  const where: string[] = [];
  const params: string[] = [];
  const window = (column: string) => {
    if (heir.start === null) return false;
    where.push(`${column} >= ?`);
    params.push(heir.start);
    if (heir.end !== null) {
      where.push(`${column} <= ?`);
      params.push(heir.end);
    }
    return true;
  };
  if (table === 'transactions') {
    if (!window('booking_date_time')) return null;
    const only = creditDebitFilter(heir.permissions);
    if (only) {
      where.push('credit_debit_indicator = ?');
      params.push(only);
    }
  }
  if (table === 'balances' && !window('date_time')) return null;
  if (table === 'statements' && !hasPermissionFor('statement_file', heir.permissions)) where.push('file_path IS NULL');
  return { where: where.map((w) => ` AND ${w}`).join(''), params };
}

const readerOf = (row: Record<string, unknown>): Reader => ({
  consentId: String(row.consent_id),
  permissions: storedPermissions(row.permissions),
  start: typeof row.start_date_time === 'string' ? row.start_date_time : null,
  end: typeof row.end_date_time === 'string' ? row.end_date_time : null,
});

/** The deletions and hand-overs, in the caller's open transaction (the same SQL on both dialects). */
export async function forgetInTransaction(
  exec: ForgetSql,
  consentId: string,
  lock: (accounts: { bank: string; accountId: string }[]) => Promise<void> = async () => undefined,
): Promise<ForgetReport> {
  const report: ForgetReport = { consentId, deleted: {}, handedOver: {}, files: [] };
  const self = await exec.all(
    'SELECT consent_id, permissions, start_date_time, end_date_time FROM consents WHERE consent_id = ?',
    [consentId],
  );
  // Unread permissions: read as if it held everything at Detail, so that nothing goes by default.
  const forgotten: Reader = self[0]?.permissions
    ? readerOf(self[0])
    : { consentId, permissions: Object.values(ENDPOINT_ACCESS).flatMap((a) => a.permissions), start: null, end: null };
  const accounts = (await exec.all(
    `SELECT DISTINCT bank, account_id FROM (${[...ACCOUNT_TABLES, 'sync_state']
      .map((t) => `SELECT bank, account_id FROM ${t} WHERE consent_id = ? AND account_id IS NOT NULL`)
      .join(' UNION ')}) a ORDER BY bank, account_id`,
    [...ACCOUNT_TABLES, 'sync_state'].map(() => consentId),
  )) as { bank: string; account_id: string }[];
  // The accounts' write locks before the first write (forget-consent.ts): a worker of another
  // consent over one of them writes before or after this, never between its read and its write.
  await lock(accounts.map((a) => ({ bank: a.bank, accountId: a.account_id })));
  for (const { bank, account_id: accountId } of accounts) {
    // The consents that read this account, the one that synced it last first.
    const readers = (
      await exec.all(
        `SELECT c.consent_id, c.permissions, c.start_date_time, c.end_date_time, max(s.updated_at) AS synced
           FROM sync_state s JOIN consents c ON c.consent_id = s.consent_id
          WHERE s.bank = ? AND s.account_id = ? AND s.consent_id <> ?
          GROUP BY c.consent_id, c.permissions, c.start_date_time, c.end_date_time
          ORDER BY synced DESC, c.consent_id`,
        [bank, accountId, consentId],
      )
    )
      .map(readerOf)
      .filter((reader) => mayRead('accounts', reader, forgotten) !== null);
    for (const heir of readers) {
      for (const table of ACCOUNT_TABLES) {
        const rule = mayRead(table, heir, forgotten);
        if (!rule) continue;
        const n = await exec.run(
          `UPDATE ${table} SET consent_id = ? WHERE consent_id = ? AND bank = ? AND account_id = ?${rule.where}`,
          [heir.consentId, consentId, bank, accountId, ...rule.params],
        );
        if (n > 0) {
          const given = (report.handedOver[heir.consentId] ??= {});
          given[table] = (given[table] ?? 0) + n;
        }
      }
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
  // What is kept per transaction, of the transactions deleted above (keyed as the transaction, no
  // foreign key): their categories (docs/categories.md "Storage"), the check's duplicate
  // suspicions of either row of the pair (docs/continuity.md), and the own-account transfer links
  // either side of which went (docs/transfers.md; the next matching would drop them, but the
  // report and the exports read them).
  const missing = (alias: string, column = 'transaction_id') =>
    `NOT EXISTS (SELECT 1 FROM transactions t WHERE t.bank = ${alias}.bank AND t.account_id = ${alias}.account_id
      AND t.transaction_id = ${alias}.${column})`;
  const sideMissing = (side: 'debit' | 'credit') =>
    `NOT EXISTS (SELECT 1 FROM transactions t WHERE t.bank = transfer_links.${side}_bank
      AND t.account_id = transfer_links.${side}_account_id AND t.transaction_id = transfer_links.${side}_transaction_id)`;
  // And the continuity findings (docs/continuity.md, kept per account): those of an account no
  // longer stored, and those naming a transaction deleted above (the next check judges again).
  const orphans: [string, string][] = [
    ['transaction_categories', missing('transaction_categories')],
    [
      'duplicate_suspicions',
      `${missing('duplicate_suspicions')} OR ${missing('duplicate_suspicions', 'twin_transaction_id')}`,
    ],
    ['transfer_links', `${sideMissing('debit')} OR ${sideMissing('credit')}`],
    [
      'continuity_findings',
      `NOT EXISTS (SELECT 1 FROM accounts a WHERE a.bank = continuity_findings.bank
         AND a.account_id = continuity_findings.account_id)
       OR (continuity_findings.transaction_id IS NOT NULL AND ${missing('continuity_findings')})`,
    ],
  ];
  for (const [table, where] of orphans) {
    const n = await exec.run(`DELETE FROM ${table} WHERE ${where}`, []);
    if (n > 0) report.deleted[table] = n;
  }
  return report;
}
