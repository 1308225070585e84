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
 * also read the account itself, at either level. Of several, a row goes to the one that synced the
 * account last; the rest is deleted, and the report says which is which.
 *
 * The account's own row is what the rows of every consent over it point to (the foreign keys of
 * transactions, balances and statements), so it is never deleted while another consent's row does
 * (`keepAccountRow`): it goes to a reader of the account at the level it was read with; else, when
 * other consents' rows point to it, to one of them that reads accounts, at that consent's level
 * (a Basic reader gets it without the Detail fields); else, when none of them reads accounts, it
 * stays at Basic under one of them.
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
import { ACCOUNT_DETAIL_COLUMNS, ACCOUNT_DETAIL_FIELDS } from './rows';
import { accounts as accountsTable } from './sqlite/schema';

export interface ForgetReport {
  consentId: string;
  /** Rows deleted per table. */
  deleted: Record<string, number>;
  /** Rows handed over, per receiving consent, per table: each consent may read what it received. */
  handedOver: Record<string, Record<string, number>>;
  /** Of the accounts rows handed over, per receiving consent, those it received at Basic (the Detail fields blanked). */
  accountsAtBasic: Record<string, number>;
  /**
   * Accounts rows kept at Basic under a consent that reads no accounts, per consent: its own rows
   * of the account point to them (not counted as handed over).
   */
  keptForRows: Record<string, number>;
  /** Statement files (paths relative to the data directory) to remove once committed. */
  files: string[];
}

const ACCOUNT_TABLES = ['transactions', 'balances', 'statements', 'parties', 'accounts'] as const;
type AccountTable = (typeof ACCOUNT_TABLES)[number];
/** The tables with a foreign key to `accounts` (src/store/sqlite/schema.ts, pg/schema.ts). */
const POINTING_TABLES = ['transactions', 'balances', 'statements'] as const;

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

/** True when a consent holding `permissions` reads the account at either level. */
const readsAccounts = (permissions: readonly string[]) => level(permissions, 'accounts') > 0;

const readerOf = (row: Record<string, unknown>): Reader => ({
  consentId: String(row.consent_id),
  permissions: storedPermissions(row.permissions),
  start: typeof row.start_date_time === 'string' ? row.start_date_time : null,
  end: typeof row.end_date_time === 'string' ? row.end_date_time : null,
});

function handedOver(report: ForgetReport, heir: string, table: string, n: number): void {
  const given = (report.handedOver[heir] ??= {});
  given[table] = (given[table] ?? 0) + n;
}

/**
 * The forgotten consent's row of the account, once its other rows are handed over: to the first
 * of `readers` that may read it as it was read (`mayRead`); else, when rows of other consents
 * point to it (they would break the foreign key), to one of those consents, the ones that read
 * accounts first, then the one that synced the account last, at that consent's payload level;
 * else it is deleted with the rest. A row given to a consent below Detail loses the Detail
 * columns and the payload's Detail fields, as a Basic fetch would have returned it.
 */
async function keepAccountRow(
  exec: ForgetSql,
  report: ForgetReport,
  forgotten: Reader,
  { bank, accountId }: { bank: string; accountId: string },
  readers: readonly Reader[],
): Promise<void> {
  const key = [forgotten.consentId, bank, accountId];
  const own = await exec.all('SELECT raw_json FROM accounts WHERE consent_id = ? AND bank = ? AND account_id = ?', key);
  if (own.length === 0) return;
  const heir =
    readers.find((reader) => mayRead('accounts', reader, forgotten) !== null) ??
    (await pointingConsents(exec, forgotten.consentId, bank, accountId))[0];
  if (!heir) return;
  const at = readsAccounts(heir.permissions) ? payloadLevelOf(heir.permissions, 'accounts') : 1;
  if (at === 2) {
    await exec.run(`UPDATE accounts SET consent_id = ? WHERE consent_id = ? AND bank = ? AND account_id = ?`, [
      heir.consentId,
      ...key,
    ]);
  } else {
    const blanked = ACCOUNT_DETAIL_COLUMNS.map((c) => `${accountsTable[c].name} = NULL`).join(', ');
    await exec.run(
      `UPDATE accounts SET consent_id = ?, ${blanked}, raw_json = ? WHERE consent_id = ? AND bank = ? AND account_id = ?`,
      [heir.consentId, basicPayload(String(own[0]?.raw_json)), ...key],
    );
  }
  if (!readsAccounts(heir.permissions)) {
    report.keptForRows[heir.consentId] = (report.keptForRows[heir.consentId] ?? 0) + 1;
    return;
  }
  handedOver(report, heir.consentId, 'accounts', 1);
  if (at < 2) report.accountsAtBasic[heir.consentId] = (report.accountsAtBasic[heir.consentId] ?? 0) + 1;
}

/**
 * The consents other than `forgotten` whose rows point to the account: those that read accounts
 * first, then by their last sync of the account, latest first (one that never synced it after
 * those that did), then by id.
 */
async function pointingConsents(
  exec: ForgetSql,
  forgotten: string,
  bank: string,
  accountId: string,
): Promise<Reader[]> {
  const rows = await exec.all(
    `SELECT c.consent_id, c.permissions, c.start_date_time, c.end_date_time,
       (SELECT max(s.updated_at) FROM sync_state s
         WHERE s.consent_id = c.consent_id AND s.bank = ? AND s.account_id = ?) AS synced
       FROM consents c
      WHERE c.consent_id <> ? AND c.consent_id IN (${POINTING_TABLES.map(
        (t) => `SELECT consent_id FROM ${t} WHERE bank = ? AND account_id = ?`,
      ).join(' UNION ')})`,
    [bank, accountId, forgotten, ...POINTING_TABLES.flatMap(() => [bank, accountId])],
  );
  const compare = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  const reads = (row: Record<string, unknown>) => (readsAccounts(storedPermissions(row.permissions)) ? 0 : 1);
  const synced = (row: Record<string, unknown>) => (typeof row.synced === 'string' ? row.synced : '');
  return rows
    .sort(
      (a, b) =>
        reads(a) - reads(b) || compare(synced(b), synced(a)) || compare(String(a.consent_id), String(b.consent_id)),
    )
    .map(readerOf);
}

/** The account payload as a Basic fetch returns it: without its Detail fields. */
function basicPayload(rawJson: string): string {
  const payload: unknown = JSON.parse(rawJson);
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return rawJson;
  const basic = { ...(payload as Record<string, unknown>) };
  for (const field of ACCOUNT_DETAIL_FIELDS) delete basic[field];
  return JSON.stringify(basic);
}

/** The deletions and hand-overs, in the caller's open transaction (the same SQL on both dialects). */
export async function forgetInTransaction(
  exec: ForgetSql,
  consentId: string,
  lock: (accounts: { bank: string; accountId: string }[]) => Promise<void> = async () => undefined,
): Promise<ForgetReport> {
  const report: ForgetReport = {
    consentId,
    deleted: {},
    handedOver: {},
    accountsAtBasic: {},
    keptForRows: {},
    files: [],
  };
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
      .filter((reader) => readsAccounts(reader.permissions));
    for (const heir of readers) {
      for (const table of ACCOUNT_TABLES) {
        if (table === 'accounts') continue;
        const rule = mayRead(table, heir, forgotten);
        if (!rule) continue;
        const n = await exec.run(
          `UPDATE ${table} SET consent_id = ? WHERE consent_id = ? AND bank = ? AND account_id = ?${rule.where}`,
          [heir.consentId, consentId, bank, accountId, ...rule.params],
        );
        if (n > 0) handedOver(report, heir.consentId, table, n);
      }
    }
    await keepAccountRow(exec, report, forgotten, { bank, accountId }, readers);
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
