/**
 * Copies between SQLite and PostgreSQL: every row of every table there and back unchanged, and
 * the filtered copy into a file (--consent, --account, --from) holding exactly the rows asked
 * for, with the file's foreign keys intact.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { nzMidnight } from '@bankdata/core/nz-time';
import { openDatabase } from '../../../src/store/sqlite/open';
import { COPIED_TABLES, copySqliteToPostgres, sqliteColumns } from '../../../src/store/pg/copy-tables';
import { copyPostgresToSqlite, type CopyFilter } from '../../../src/store/pg/copy-to-sqlite';
import { createPool } from '../../../src/store/pg/open';
import { startHarness, type Harness } from '../../fixtures/sync-harness';
import { tempDir } from '../helpers';
import { createTestDatabase, describePostgres } from '../../support/postgres';

function tableRows(db: Database.Database, table: string, where = 'true', params: unknown[] = []): unknown[] {
  const columns = sqliteColumns(db, table).map((c) => `"${c}"`);
  return db
    .prepare(`SELECT ${columns.join(', ')} FROM "${table}" WHERE ${where} ORDER BY ${columns.join(', ')}`)
    .raw(true)
    .all(...params);
}

describePostgres('db copy between SQLite and PostgreSQL', () => {
  let harness: Harness;
  let source: Database.Database;
  let pool: import('pg').Pool;

  beforeAll(async () => {
    harness = await startHarness({ seed: 7, historyDays: 150 });
    expect((await harness.sync()).outcome).toBe('ok');
    source = new Database(harness.store.path, { readonly: true });
    pool = createPool(await createTestDatabase());
    await copySqliteToPostgres(source, pool, { dataDir: harness.dataDir });
  });
  afterAll(async () => {
    source?.close();
    await pool?.end();
    await harness?.close();
  });

  let copyDataDir = '';
  async function copyBack(filter?: CopyFilter): Promise<Database.Database> {
    const dir = tempDir();
    copyDataDir = join(dir, 'data');
    const { sqlite } = openDatabase(join(copyDataDir, 'copy.sqlite'));
    await copyPostgresToSqlite(pool, sqlite, { dataDir: copyDataDir, filter });
    return sqlite;
  }

  it('moves every row of every table from SQLite to PostgreSQL and back unchanged', async () => {
    const copy = await copyBack();
    try {
      for (const table of COPIED_TABLES) expect(tableRows(copy, table), table).toEqual(tableRows(source, table));
      expect(tableRows(source, 'transactions').length).toBeGreaterThan(100);
      // Statement files travel with their rows, byte for byte.
      const paths = source
        .prepare(`SELECT file_path FROM statements WHERE file_path IS NOT NULL`)
        .pluck()
        .all() as string[];
      expect(paths.length).toBeGreaterThan(0);
      for (const path of paths)
        expect(readFileSync(join(copyDataDir, path)).equals(readFileSync(join(harness.dataDir, path))), path).toBe(
          true,
        );
    } finally {
      copy.close();
    }
  });

  it('copies one consent: its accounts, their rows, its customer, and the consents those rows name', async () => {
    const { consent_id: consentId } = source
      .prepare(`SELECT consent_id FROM accounts GROUP BY consent_id ORDER BY count(*) DESC, consent_id LIMIT 1`)
      .get() as { consent_id: string };
    const copy = await copyBack({ consentIds: [consentId] });
    try {
      const accounts = `(bank, account_id) IN (SELECT bank, account_id FROM accounts WHERE consent_id = ?
        UNION SELECT bank, account_id FROM sync_state WHERE consent_id = ?)`;
      for (const table of ['accounts', 'transactions', 'balances', 'statements', 'sync_state']) {
        expect(tableRows(copy, table), table).toEqual(tableRows(source, table, accounts, [consentId, consentId]));
      }
      expect(tableRows(copy, 'accounts').length).toBeGreaterThan(0);
      expect(tableRows(copy, 'payments')).toEqual([]);
      expect(copy.prepare('PRAGMA foreign_key_check').all()).toEqual([]);
      const consents = copy.prepare('SELECT consent_id FROM consents').pluck().all();
      expect(consents).toContain(consentId);
      expect(consents.length).toBeLessThan(source.prepare('SELECT count(*) FROM consents').pluck().get() as number);
    } finally {
      copy.close();
    }
  });

  it('copies one account, from an NZ date: only its transactions booked on or after it', async () => {
    const accountId = source
      .prepare(`SELECT account_id FROM transactions GROUP BY account_id ORDER BY count(*) DESC, account_id LIMIT 1`)
      .pluck()
      .get() as string;
    const dates = source
      .prepare(`SELECT booking_date FROM transactions WHERE account_id = ? ORDER BY booking_date`)
      .pluck()
      .all(accountId) as string[];
    const from = dates[Math.floor(dates.length / 2)]!;
    const copy = await copyBack({ accountIds: [accountId], from });
    try {
      const expected = tableRows(source, 'transactions', 'account_id = ? AND booking_date >= ?', [accountId, from]);
      expect(expected.length).toBeGreaterThan(0);
      expect(tableRows(copy, 'transactions')).toEqual(expected);
      expect(tableRows(copy, 'transactions').length).toBeLessThan(
        tableRows(source, 'transactions', 'account_id = ?', [accountId]).length,
      );
      const fromInstant = nzMidnight(from).toUTC().toISO()!;
      expect(tableRows(copy, 'balances')).toEqual(
        tableRows(source, 'balances', 'account_id = ? AND date_time >= ?', [accountId, fromInstant]),
      );
      expect(copy.prepare('PRAGMA foreign_key_check').all()).toEqual([]);
    } finally {
      copy.close();
    }
  });

  it('refuses to copy a SQLite database whose statement file is missing, and commits nothing', async () => {
    const target = createPool(await createTestDatabase());
    const dir = tempDir();
    const { sqlite } = openDatabase(join(dir, 'data', 'damaged.sqlite'));
    try {
      sqlite.exec(`ATTACH DATABASE '${harness.store.path}' AS src`);
      for (const table of COPIED_TABLES) sqlite.exec(`INSERT INTO main."${table}" SELECT * FROM src."${table}"`);
      sqlite.exec('DETACH DATABASE src');
      const path = sqlite
        .prepare(`SELECT file_path FROM statements WHERE file_path IS NOT NULL LIMIT 1`)
        .pluck()
        .get() as string;
      // The data dir of the damaged copy has every file except this one.
      const { cpSync } = await import('node:fs');
      cpSync(join(harness.dataDir, 'statements'), join(dir, 'data', 'statements'), { recursive: true });
      rmSync(join(dir, 'data', path));
      await expect(copySqliteToPostgres(sqlite, target, { dataDir: join(dir, 'data') })).rejects.toThrow(
        `statement file ${join(dir, 'data', path)} named by the database cannot be read (ENOENT)`,
      );
      const { rows } = await target.query(
        'SELECT (SELECT count(*) FROM consents) + (SELECT count(*) FROM statement_files) AS n',
      );
      expect(rows[0].n).toBe(0);
    } finally {
      sqlite.close();
      await target.end();
    }
  });
});
