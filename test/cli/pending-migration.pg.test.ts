/**
 * A PostgreSQL database an older bankdata migrated (its migrations table one entry short of this
 * binary's journal) is refused by the readers, as a SQLite file is (sqlite/open.ts): exit 6,
 * "needs 1 migration(s) before this version can read it", a hint naming `bankdata db migrate`,
 * and the database left as it was (a reader never migrates); `db migrate` applies it and says how
 * many it applied.
 */
import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { expect, it } from 'vitest';
import { readJournal } from '../../src/store/migration-versions';
import { PG_MIGRATIONS_DIR } from '../../src/store/pg/open';
import { createOlderTestDatabase, describePostgres } from '../support/postgres';
import { runCliInProcess } from './cli-process';

const ENV = {
  BANKDATA_DATA_BASE_URL: 'http://127.0.0.1:1',
  BANKDATA_CLIENT_ID: 'client',
  BANKDATA_CLIENT_SECRET: 'pending-migration-test-secret-4b1e',
};

async function migrationRows(url: string): Promise<unknown[]> {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  pool.on('error', () => undefined); // the database is dropped (WITH FORCE) as the pool's end completes
  try {
    return (await pool.query('SELECT hash, created_at::text FROM drizzle.__drizzle_migrations ORDER BY created_at'))
      .rows;
  } finally {
    await pool.end();
  }
}

describePostgres('a PostgreSQL database one migration behind', () => {
  it('is refused by the readers (status, export: exit 6, needs 1 migration) and left unmigrated', async () => {
    const journal = readJournal(PG_MIGRATIONS_DIR);
    const url = await createOlderTestDatabase(journal.length - 1);
    const before = await migrationRows(url);
    expect(before).toHaveLength(journal.length - 1);
    const dir = mkdtempSync(join(tmpdir(), 'bankdata-pending-migration-'));
    chmodSync(dir, 0o700);
    for (const args of [['status'], ['export', 'transactions', '--format', 'csv', '--out', join(dir, 't.csv')]]) {
      const r = await runCliInProcess(['--db', url, '--data-dir', dir, ...args], { cwd: dir, env: ENV });
      const [line = '', hint = ''] = r.stderr.trimEnd().split('\n');
      expect(r.code, `${args[0]}: ${r.stderr}`).toBe(6);
      expect(line).toMatch(/^bankdata: database .*: needs 1 migration\(s\) before this version can read it$/);
      expect(hint).toContain('bankdata db migrate');
    }
    expect(await migrationRows(url)).toEqual(before);
  });

  it('`db migrate` applies the missing migration and says so (and then, run again, that it is up to date)', async () => {
    const journal = readJournal(PG_MIGRATIONS_DIR);
    for (const json of [false, true]) {
      const url = await createOlderTestDatabase(journal.length - 1);
      const migrate = ['--db', url, 'db', 'migrate', ...(json ? ['--json'] : [])];
      const r = await runCliInProcess(migrate, { env: ENV });
      expect(r.code, r.stderr).toBe(0);
      expect(await migrationRows(url)).toHaveLength(journal.length);
      if (json) expect(JSON.parse(r.stdout)).toMatchObject({ applied: 1, backup: null });
      else expect(r.stderr).toMatch(/: applied 1 migration\(s\)$/m);
      const again = await runCliInProcess(migrate, { env: ENV });
      if (json) expect(JSON.parse(again.stdout)).toMatchObject({ applied: 0 });
      else expect(again.stderr).toMatch(/ is up to date$/m);
    }
  });
});
