/**
 * Copies a PostgreSQL database, or the part an analyst asks for, into a new SQLite file (the
 * reverse of copy-tables.ts; docs/postgres.md "Copy"). Filters:
 * - `consentIds`: the accounts those consents hold (accounts.consent_id, or a watermark of one of
 *   them) and every row of those accounts; `accountIds`: those accounts (any bank);
 * - `from` (an NZ date): transactions booked, balances dated and statements ending on or after it;
 *   payments created on or after it.
 * The consents that copied rows name are copied with them (foreign keys hold in the file). With a
 * consent or account filter, payments are not copied: they belong to payment consents, not to the
 * data consents asked for. Rows move as they are, ids included, in one SQLite transaction; rows
 * are read through a server-side cursor, so memory stays bounded.
 *
 * Statement files: each path a row names goes through src/fs/data-dir.ts (it must stay inside
 * the data directory, links resolved) and is written as part of one batch, undone if the copy
 * fails. A file that cannot be copied (its path leaves the data directory, it is not stored, or
 * its bytes do not match their SHA-256) is refused: with `onRefused`, its statements are copied
 * without a file (file columns empty) and the refusal reported; without it, the copy fails.
 */
import type Database from 'better-sqlite3';
import type pg from 'pg';
import { nzMidnight } from '@bankdata/core/nz-time';
import { RefusedStoredPath, StoredFilesBatch, storedPathInDataDir } from '../../fs/data-dir';
import { DamagedStatementFile, readStatementFile } from './statement-files';
import {
  clearStatementFile,
  COPIED_TABLES,
  sqliteColumns,
  type CopiedTable,
  type CopyCounts,
  type RefusedStatementFile,
} from './copy-tables';
import { inPgTransaction } from './open';
import { toStoredInstant } from '../time';

export interface CopyFilter {
  consentIds?: readonly string[];
  accountIds?: readonly string[];
  /** NZ date, YYYY-MM-DD. */
  from?: string;
}

const FETCH_ROWS = 5000;

interface TableQuery {
  where: string;
  params: unknown[];
}

/**
 * `dataDir` is the new file's data dir: the statement files of the copied statements are written
 * there (atomically, owner-only), at the `file_path` their rows name, before the rows commit.
 */
export async function copyPostgresToSqlite(
  pool: pg.Pool,
  sqlite: Database.Database,
  options: {
    dataDir: string;
    filter?: CopyFilter;
    /** Where the files go; the caller undoes it when the copy fails after it (default: one of its own). */
    files?: StoredFilesBatch;
    /** Called for each statement file refused; without it a refusal fails the copy. */
    onRefused?: (refused: RefusedStatementFile) => void;
  },
): Promise<CopyCounts> {
  const files = options.files ?? new StoredFilesBatch(options.dataDir);
  const filter = options.filter ?? {};
  const counts = { statementFiles: 0 } as CopyCounts;
  // One snapshot of the source for every table: rows that reference each other stay together.
  return inPgTransaction(
    pool,
    async (client) => {
      const queries = await planQueries(client, filter);
      sqlite.exec('BEGIN IMMEDIATE');
      try {
        for (const table of COPIED_TABLES) {
          const query = queries[table];
          counts[table] = 0;
          if (!query) continue;
          const columns = sqliteColumns(sqlite, table);
          const insert = sqlite.prepare(
            `INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
          );
          const cursor = `copy_${table}`;
          await client.query(
            `DECLARE ${cursor} NO SCROLL CURSOR FOR SELECT ${columns.map((c) => `"${c}"`).join(', ')} FROM "${table}" WHERE ${query.where}`,
            query.params,
          );
          for (;;) {
            const { rows } = await client.query({ text: `FETCH ${FETCH_ROWS} FROM ${cursor}`, rowMode: 'array' });
            for (const row of rows as unknown[][]) insert.run(row);
            counts[table] += rows.length;
            if (rows.length < FETCH_ROWS) break;
          }
          await client.query(`CLOSE ${cursor}`);
        }
        counts.statementFiles = await writeStatementFiles(sqlite, client, files, options.onRefused);
        sqlite.exec('COMMIT');
      } catch (error) {
        sqlite.exec('ROLLBACK');
        await files.undo();
        throw error;
      }
      return counts;
    },
    { begin: 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY' },
  );
}

async function writeStatementFiles(
  sqlite: Database.Database,
  client: pg.PoolClient,
  files: StoredFilesBatch,
  onRefused: ((refused: RefusedStatementFile) => void) | undefined,
): Promise<number> {
  const paths = sqlite
    .prepare(`SELECT DISTINCT file_path FROM statements WHERE file_path IS NOT NULL ORDER BY file_path`)
    .pluck()
    .all() as string[];
  let written = 0;
  for (const path of paths) {
    let reason: string | null = null;
    try {
      storedPathInDataDir(files.dataDir, path);
      const file = await readStatementFile(client, path);
      if (file) await files.write(path, file.content);
      else reason = 'is named by a statement but not stored in the database';
    } catch (error) {
      if (error instanceof RefusedStoredPath) reason = error.reason;
      else if (error instanceof DamagedStatementFile) reason = 'does not match its SHA-256 (damaged)';
      else throw error;
    }
    if (reason === null) {
      written += 1;
      continue;
    }
    const statements = sqlite
      .prepare(`SELECT bank, account_id AS accountId, statement_id AS statementId FROM statements WHERE file_path = ?`)
      .all(path) as RefusedStatementFile['statements'];
    if (!onRefused) throw new Error(`statement file ${path} ${reason}`);
    onRefused({ filePath: path, reason, statements });
    clearStatementFile(sqlite, path);
  }
  return written;
}

/** The WHERE clause of each table; a table left out is not copied. */
async function planQueries(
  client: pg.PoolClient,
  filter: CopyFilter,
): Promise<Partial<Record<CopiedTable, TableQuery>>> {
  const all: TableQuery = { where: 'true', params: [] };
  const fromInstant = filter.from ? toStoredInstant(nzMidnight(filter.from)) : null;
  const dated = (column: string, value: string | null): TableQuery =>
    value === null ? all : { where: `${column} >= $1`, params: [value] };
  // The decisions of the transactions copied (docs/categories.md "Storage").
  // What is kept per transaction (its category, its duplicate suspicion): those of the rows copied.
  const perTransaction = (where: string, params: unknown[]): TableQuery => ({
    where: `(bank, account_id, transaction_id) IN (SELECT bank, account_id, transaction_id FROM transactions WHERE ${where})`,
    params,
  });
  const byAccount = Boolean(filter.consentIds?.length || filter.accountIds?.length);

  if (!byAccount) {
    return {
      consents: all,
      bank_meta: all,
      accounts: all,
      runs: all,
      rejects: all,
      sync_state: all,
      bank_window: all,
      pacing: all,
      consent_creations: all,
      job_runs: all,
      parties: all,
      // A check's findings: the breaks that end on or after the date.
      continuity_findings: dated('to_date', filter.from ?? null),
      // Own-account transfers: whole, or (with --from, whose rows a pair may straddle) left for the
      // next matching over the copied rows (`bankdata transfers`, or the next sync) to rebuild.
      ...(filter.from ? {} : { transfer_links: all }),
      // The check's duplicate suspicions: those whose balance is dated on or after the date.
      duplicate_suspicions: filter.from ? perTransaction('booking_date >= $1', [filter.from]) : all,
      transactions: dated('booking_date', filter.from ?? null),
      transaction_categories: filter.from ? perTransaction('booking_date >= $1', [filter.from]) : all,
      balances: dated('date_time', fromInstant),
      statements: dated('end_date_time', fromInstant),
      payments: dated('created_nz_date', filter.from ?? null),
      payment_status_history: filter.from
        ? {
            where: `payment_id IN (SELECT payment_id FROM payments WHERE created_nz_date >= $1)`,
            params: [filter.from],
          }
        : all,
      payment_attempts: filter.from
        ? {
            where: `payment_id IS NULL OR payment_id IN (SELECT payment_id FROM payments WHERE created_nz_date >= $1)`,
            params: [filter.from],
          }
        : all,
    };
  }

  // The accounts asked for, as (bank, account_id) pairs.
  const { rows: accountRows } = await client.query<{ bank: string; account_id: string }>(
    `SELECT bank, account_id FROM accounts
     WHERE ($1::text[] IS NOT NULL AND (consent_id = ANY($1)
              OR (bank, account_id) IN (SELECT bank, account_id FROM sync_state WHERE consent_id = ANY($1))))
        OR ($2::text[] IS NOT NULL AND account_id = ANY($2))`,
    [filter.consentIds?.length ? filter.consentIds : null, filter.accountIds?.length ? filter.accountIds : null],
  );
  const banks = accountRows.map((r) => r.bank);
  const ids = accountRows.map((r) => r.account_id);
  const inAccounts = `(bank, account_id) IN (SELECT * FROM unnest($1::text[], $2::text[]))`;
  const accountQuery = (extra?: { column: string; value: string | null }): TableQuery =>
    extra?.value
      ? { where: `${inAccounts} AND ${extra.column} >= $3`, params: [banks, ids, extra.value] }
      : { where: inAccounts, params: [banks, ids] };
  const asked = filter.consentIds ?? [];
  // Every consent a copied row names, and the ones asked for: the file's foreign keys hold.
  const consentsQuery: TableQuery = {
    where: `consent_id = ANY($3::text[]) OR consent_id IN (
      SELECT consent_id FROM accounts WHERE ${inAccounts}
      UNION SELECT consent_id FROM transactions WHERE ${inAccounts}
      UNION SELECT consent_id FROM balances WHERE ${inAccounts}
      UNION SELECT consent_id FROM statements WHERE ${inAccounts}
      UNION SELECT consent_id FROM parties WHERE ${inAccounts}
      UNION SELECT consent_id FROM parties WHERE account_id IS NULL AND consent_id = ANY($3::text[]))`,
    params: [banks, ids, asked],
  };
  return {
    consents: consentsQuery,
    bank_meta: all,
    bank_window: all,
    pacing: all,
    accounts: accountQuery(),
    transactions: accountQuery({ column: 'booking_date', value: filter.from ?? null }),
    transaction_categories: filter.from
      ? perTransaction(`${inAccounts} AND booking_date >= $3`, [banks, ids, filter.from])
      : perTransaction(inAccounts, [banks, ids]),
    balances: accountQuery({ column: 'date_time', value: fromInstant }),
    statements: accountQuery({ column: 'end_date_time', value: fromInstant }),
    // The accounts' owners, and the consenting customer of each consent asked for.
    parties: {
      where: `${inAccounts} OR (account_id IS NULL AND consent_id = ANY($3::text[]))`,
      params: [banks, ids, asked],
    },
    sync_state: accountQuery(),
    runs: all,
    rejects: {
      where: `${inAccounts} OR (account_id IS NULL AND consent_id = ANY($3::text[]))`,
      params: [banks, ids, asked],
    },
    job_runs: all,
    continuity_findings: accountQuery({ column: 'to_date', value: filter.from ?? null }),
    // transfer_links left out: a pair may join an account not copied; the next matching rebuilds them.
    duplicate_suspicions: filter.from
      ? perTransaction(`${inAccounts} AND booking_date >= $3`, [banks, ids, filter.from])
      : perTransaction(inAccounts, [banks, ids]),
    consent_creations: { where: `consent_id = ANY($1::text[])`, params: [asked] },
  };
}
