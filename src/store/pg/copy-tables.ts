/**
 * Copies every row of every table from a SQLite database into a migrated, empty PostgreSQL
 * database, in one PostgreSQL transaction: the kernel of `bankdata db copy` (SQLite → PostgreSQL).
 * Both dialects have the same tables and columns (src/store/pg/schema.ts mirrors
 * src/store/schema.ts; test/store/pg/schema.pg.test.ts holds them to it), so rows move as they
 * are, ids included; identity sequences then continue after the largest id copied.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import type pg from 'pg';
import { readStoredFile, RefusedStoredPath } from '../../fs/data-dir';
import { UsageError } from '../../errors';
import { inPgTransaction, poolLocation } from './open';

/** A statement file a copy did not bring (src/fs/data-dir.ts refused its path, or it is missing or damaged). */
export interface RefusedStatementFile {
  filePath: string;
  reason: string;
  /** The statements that name it: copied without a file. */
  statements: { bank: string; accountId: string; statementId: string }[];
}

const CLEAR_FILE_COLUMNS =
  'file_path = NULL, file_content_type = NULL, file_sha256 = NULL, file_bytes = NULL, file_fetched_at = NULL';

/** The copied statements that name `filePath` keep their rows without a file (a sync fetches it again). */
export function clearStatementFile(sqlite: Database.Database, filePath: string): void {
  sqlite.prepare(`UPDATE statements SET ${CLEAR_FILE_COLUMNS} WHERE file_path = ?`).run(filePath);
}

/** Tables in foreign-key order. Not copied: `lease` (a run lock, never data), `nz_offsets`
 * (SQLite only: PostgreSQL has the time zone database), PostgreSQL's worker tables
 * (`run_consents`, `run_workers`, `rate_budget`: coordination of runs in progress), and the change
 * feed's log (`change_log`, `change_log_horizon`, `change_log_identity`: positions of one
 * database; the copy's own triggers log its rows as they arrive, its migration gave its log an id
 * of its own, and its consumers start again without a cursor). */
export const COPIED_TABLES = [
  'consents',
  'bank_meta',
  'accounts',
  'balances',
  'transactions',
  // Each transaction's category (docs/categories.md "Storage"): keyed as its transaction, no foreign key.
  'transaction_categories',
  'statements',
  'parties',
  'runs',
  'rejects',
  'sync_state',
  'bank_window',
  'pacing',
  'consent_creations',
  'job_runs',
  'payments',
  'payment_status_history',
  'payment_attempts',
  'continuity_findings',
  'transfer_links',
  'duplicate_suspicions',
] as const;
export type CopiedTable = (typeof COPIED_TABLES)[number];
/** Tables whose `id` is an identity column in PostgreSQL. */
const IDENTITY_TABLES: readonly CopiedTable[] = [
  'balances',
  'parties',
  'rejects',
  'continuity_findings',
  'transfer_links',
];
/** PostgreSQL allows 65535 bind parameters per statement. */
const MAX_PARAMS = 60_000;

/**
 * What the copy did with text PostgreSQL cannot store (U+0000, NUL; an older SQLite database may
 * hold it, from before the sync kept such records aside): `keptAside` rows of the synced tables
 * went to the target's `rejects` instead (with the rows of an account kept aside), `escaped`
 * values of the other tables were written with each NUL as the six characters `\u0000`.
 */
export interface NulCounts {
  keptAside: number;
  escaped: number;
}

export type CopyCounts = Record<CopiedTable, number> & { statementFiles: number };

/** The synced tables, whose rows keep their wire record in raw_json: a row holding a NUL is kept aside. */
const SYNCED_RESOURCE: Partial<Record<CopiedTable, string>> = {
  accounts: 'account',
  balances: 'balance',
  transactions: 'transaction',
  statements: 'statement',
  parties: 'party',
};
const NUL = '\u0000';

/** The column names of a SQLite table, in order. */
export function sqliteColumns(sqlite: Database.Database, table: string): string[] {
  return (sqlite.prepare(`SELECT name FROM pragma_table_info(?) ORDER BY cid`).all(table) as { name: string }[]).map(
    (c) => c.name,
  );
}

/**
 * `dataDir` is the SQLite database's data dir: each statement file its rows name is read from
 * there (its path through src/fs/data-dir.ts: inside the data directory, links resolved),
 * checked against its SHA-256 and stored in `statement_files`. A file that is refused (its path
 * leaves the data directory, it is missing, or it does not match) stops the copy (nothing is
 * committed) unless `onRefused` is given: then its statements are copied without a file (file
 * columns empty, so a row never names a file that is not there) and the refusal reported.
 */
export async function copySqliteToPostgres(
  sqlite: Database.Database,
  pool: pg.Pool,
  options: { dataDir: string; onRefused?: (refused: RefusedStatementFile) => void },
): Promise<CopyCounts & { nul: NulCounts }> {
  const counts = { statementFiles: 0, nul: { keptAside: 0, escaped: 0 } } as CopyCounts & { nul: NulCounts };
  const keptAside: KeptAside[] = [];
  /** Accounts kept aside (`bank account_id`): their balances, transactions and statements follow them. */
  const accountsAside = new Set<string>();
  // One snapshot of the source for every table and the statement files: a sync committing while
  // the copy runs (a window's rows and its watermark) is in the copy whole or not at all, never a
  // watermark past rows the copy lacks. A read transaction, its snapshot taken by its first read.
  const ownSnapshot = !sqlite.inTransaction;
  if (ownSnapshot) {
    sqlite.exec('BEGIN');
    sqlite.prepare('SELECT count(*) FROM sqlite_master').get();
  }
  try {
    return await inPgTransaction(pool, async (client) => {
      await refuseHeld(client, poolLocation(pool));
      for (const table of COPIED_TABLES) {
        const columns = sqliteColumns(sqlite, table);
        const resource = SYNCED_RESOURCE[table];
        const col = (name: string) => columns.indexOf(name);
        const [bankAt, accountAt, consentAt, rawAt] = [
          col('bank'),
          col('account_id'),
          col('consent_id'),
          col('raw_json'),
        ];
        const rowsPerInsert = Math.max(1, Math.floor(MAX_PARAMS / columns.length));
        const select = sqlite.prepare(`SELECT ${columns.map(quote).join(', ')} FROM ${quote(table)}`).raw(true);
        let batch: unknown[][] = [];
        counts[table] = 0;
        const flush = async (): Promise<void> => {
          if (batch.length === 0) return;
          await client.query(insertSql(table, columns, batch.length), batch.flat());
          counts[table] += batch.length;
          batch = [];
        };
        for (const row of select.iterate() as Iterable<unknown[]>) {
          const nulAt = row.findIndex((v) => typeof v === 'string' && v.includes(NUL));
          const accountKey = accountAt >= 0 ? `${String(row[bankAt])} ${String(row[accountAt])}` : '';
          if (resource !== undefined && (nulAt >= 0 || accountsAside.has(accountKey))) {
            if (table === 'accounts') accountsAside.add(accountKey);
            keptAside.push({
              resource,
              bank: String(row[bankAt]),
              consentId: (row[consentAt] as string | null) ?? null,
              accountId: accountAt >= 0 ? ((row[accountAt] as string | null) ?? null) : null,
              reason:
                nulAt >= 0
                  ? `copied from SQLite: ${columns[nulAt]} holds a NUL character (U+0000), which PostgreSQL cannot store as text`
                  : `copied from SQLite: its account ${String(row[accountAt])} was kept aside (a NUL character)`,
              rawPayload: escapeNul(String(row[rawAt])),
            });
            continue;
          }
          if (nulAt >= 0) counts.nul.escaped += 1;
          batch.push(row.map((v) => (typeof v === 'string' ? escapeNul(v) : toPgValue(v))));
          if (batch.length >= rowsPerInsert) await flush();
        }
        await flush();
      }
      counts.statementFiles = await copyStatementFiles(sqlite, client, options.dataDir, options.onRefused);
      for (const table of IDENTITY_TABLES) {
        await client.query(
          `SELECT setval(pg_get_serial_sequence($1, 'id'), coalesce((SELECT max(id) FROM ${quote(table)}), 0) + 1, false)`,
          [table],
        );
      }
      // After the sequences moved: the rows kept aside take new ids after the copied rejects.
      const now = new Date().toISOString();
      for (const reject of keptAside) {
        await client.query(
          `INSERT INTO rejects (resource, bank, consent_id, account_id, reason, raw_payload, run_id, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, NULL, $7)`,
          [reject.resource, reject.bank, reject.consentId, reject.accountId, reject.reason, reject.rawPayload, now],
        );
      }
      counts.nul.keptAside = keptAside.length;
      return counts;
    });
  } finally {
    if (ownSnapshot && sqlite.inTransaction) sqlite.exec('ROLLBACK');
  }
}

/**
 * Refuses a target one of whose tables holds a row (exit 2): a copy goes into an empty database,
 * never merged into another's rows (a database where `bankdata meta` or a payment was already
 * stored has no consent, and was merged into, or refused as an internal error). Checked in the
 * copy's own transaction, so every caller passes it; `db copy` checks it before the target is
 * migrated too (src/cli/db-copy.ts), so that an older bankdata's database holding data is refused
 * as it is, not migrated first (the older version's workers would then refuse it). `change_log_identity`
 * holds its one row in every new database (its migration makes the log's id): not data.
 */
export async function refuseHeld(client: pg.Pool | pg.PoolClient, location: string): Promise<void> {
  const tables = await client.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables
     WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`,
  );
  for (const { name } of tables.rows) {
    if (name === 'change_log_identity') continue;
    if ((await client.query(`SELECT 1 FROM ${quote(name)} LIMIT 1`)).rowCount)
      throw new UsageError(
        `${location} already holds data (table ${name}); a copy goes into an empty database`,
        'create a new database (createdb) and copy into it',
      );
  }
}

interface KeptAside {
  resource: string;
  bank: string;
  consentId: string | null;
  accountId: string | null;
  reason: string;
  rawPayload: string;
}

/** Each NUL as the six characters `\u0000` (raw_json from JSON.stringify never holds one). */
function escapeNul(text: string): string {
  return text.includes(NUL) ? text.replaceAll(NUL, '\\u0000') : text;
}

async function copyStatementFiles(
  sqlite: Database.Database,
  client: pg.PoolClient,
  dataDir: string,
  onRefused: ((refused: RefusedStatementFile) => void) | undefined,
): Promise<number> {
  const files = sqlite
    .prepare(
      `SELECT DISTINCT file_path, file_content_type, file_sha256, file_fetched_at FROM statements
       WHERE file_path IS NOT NULL ORDER BY file_path`,
    )
    .all() as { file_path: string; file_content_type: string; file_sha256: string; file_fetched_at: string }[];
  let copied = 0;
  for (const file of files) {
    let content: Buffer | null = null;
    let reason: string;
    try {
      content = await readStoredFile(dataDir, file.file_path);
      reason = 'does not match the SHA-256 the database holds';
    } catch (error) {
      if (error instanceof RefusedStoredPath) reason = error.reason;
      else reason = `named by the database cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
    }
    if (content && createHash('sha256').update(content).digest('hex') === file.file_sha256) {
      await client.query(
        `INSERT INTO statement_files (file_path, content_type, sha256, bytes, content, stored_at) VALUES ($1, $2, $3, $4, $5, $6)`,
        [file.file_path, file.file_content_type, file.file_sha256, content.byteLength, content, file.file_fetched_at],
      );
      copied += 1;
      continue;
    }
    if (!onRefused) throw new Error(`statement file ${join(dataDir, file.file_path)} ${reason}`);
    const statements = sqlite
      .prepare(`SELECT bank, account_id AS accountId, statement_id AS statementId FROM statements WHERE file_path = ?`)
      .all(file.file_path) as RefusedStatementFile['statements'];
    onRefused({ filePath: file.file_path, reason, statements });
    await client.query(`UPDATE statements SET ${CLEAR_FILE_COLUMNS} WHERE file_path = $1`, [file.file_path]);
  }
  return copied;
}

function insertSql(table: string, columns: string[], rows: number): string {
  const tuples: string[] = [];
  for (let r = 0; r < rows; r++) {
    tuples.push(`(${columns.map((_, c) => `$${r * columns.length + c + 1}`).join(', ')})`);
  }
  return `INSERT INTO ${quote(table)} (${columns.map(quote).join(', ')}) VALUES ${tuples.join(', ')}`;
}

/** better-sqlite3 gives numbers and bigints; node-postgres sends a bigint as its decimal text. */
function toPgValue(value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}

function quote(identifier: string): string {
  return `"${identifier.replace(/"/g, '""')}"`;
}
