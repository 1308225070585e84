/** PostgreSQL held to what SQLite is held to: the same cases on PostgreSQL (sync-parity.cases.ts). */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { expect, it } from 'vitest';
import { readJournal } from '../../src/store/migration-versions';
import { PG_MIGRATIONS_DIR } from '../../src/store/pg/open';
import { createOlderTestDatabase, describePostgres, postgresDialect } from '../support/postgres';
import { runCliInProcess } from './cli-process';
import { syncParitySuite } from './sync-parity.cases';

syncParitySuite(postgresDialect);

/** How many migrations the database holds (drizzle's table). */
async function migrationsApplied(url: string): Promise<number> {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  pool.on('error', () => undefined); // the database is dropped (WITH FORCE) as the pool's end completes
  try {
    return (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations')).rows[0]!.n;
  } finally {
    await pool.end();
  }
}

describePostgres('sync --dry-run on a PostgreSQL database one migration behind', () => {
  it('is refused as the readers refuse it (exit 6, needs 1 migration, `db migrate`) and is not migrated', async () => {
    const journal = readJournal(PG_MIGRATIONS_DIR);
    const url = await createOlderTestDatabase(journal.length - 1);
    const dir = mkdtempSync(join(tmpdir(), 'bankdata-parity-dry-'));
    const r = await runCliInProcess(['sync', '--dry-run'], {
      cwd: dir,
      env: {
        BANKDATA_DATA_BASE_URL: 'http://127.0.0.1:9',
        BANKDATA_CLIENT_ID: 'client',
        BANKDATA_CLIENT_SECRET: 'sync-parity-test-secret-5d2c',
        BANKDATA_DATA_DIR: join(dir, 'data'),
        BANKDATA_DB: url,
      },
    });
    const [line = '', hint = ''] = r.stderr.trimEnd().split('\n');
    expect(r.code, r.stderr).toBe(6);
    expect(line).toMatch(/^bankdata: database .*: needs 1 migration\(s\) before this version can read it$/);
    expect(hint).toContain('bankdata db migrate');
    expect(await migrationsApplied(url)).toBe(journal.length - 1);
  });
});
