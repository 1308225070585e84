/**
 * A migration that fails on PostgreSQL, through the `bankdata` command: drizzle's transaction is
 * rolled back and the command exits 6 with the migration and the server's message (it was exit
 * 70, an internal error), for `db migrate` and for a writer that migrates on open (`sync`).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { expect, it } from 'vitest';
import { readJournal } from '../../src/store/migration-versions';
import { PG_MIGRATIONS_DIR } from '../../src/store/pg/open';
import { createTestDatabase, describePostgres } from '../support/postgres';
import { runCliInProcess } from './cli-process';

const last = readJournal(PG_MIGRATIONS_DIR).at(-1)!;
// What the newest migration creates (its tables, indexes and functions; triggers go with their
// functions; the columns it adds): present before it runs, they make it fail; dropped, it applies.
const lastSql = readFileSync(join(PG_MIGRATIONS_DIR, `${last.tag}.sql`), 'utf8');
const created = (kind: string) =>
  [...lastSql.matchAll(new RegExp(`^CREATE (?:UNIQUE )?${kind} (?:IF NOT EXISTS )?"?(\\w+)"?`, 'gm'))].map(
    (m) => m[1]!,
  );
const addedColumns = [...lastSql.matchAll(/^ALTER TABLE "?(\w+)"? ADD (?:COLUMN )?"?(\w+)"?/gm)].map((m) => ({
  table: m[1]!,
  column: m[2]!,
}));

describePostgres('a PostgreSQL migration that fails', () => {
  it('is rolled back and exits 6 with the migration and the cause; it applies once the cause is gone', async () => {
    const url = await createTestDatabase();
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    pool.on('error', () => undefined);
    const rows = async () =>
      (await pool.query('SELECT hash, created_at::text AS created_at FROM drizzle.__drizzle_migrations ORDER BY 2'))
        .rows;
    try {
      // One migration behind, with what it adds already there: its first CREATE fails.
      await pool.query('DELETE FROM drizzle.__drizzle_migrations WHERE created_at = $1', [last.when]);
      const before = await rows();
      const dir = mkdtempSync(join(tmpdir(), 'bankdata-pg-migrate-'));
      for (const command of [['db', 'migrate'], ['sync']]) {
        const r = await runCliInProcess(['--db', url, '--data-dir', dir, ...command], {
          cwd: dir,
          env: {
            BANKDATA_DATA_BASE_URL: 'http://127.0.0.1:1',
            BANKDATA_CLIENT_ID: 'c',
            BANKDATA_CLIENT_SECRET: 'migrate-failure-test-secret-4b1e',
          },
        });
        expect(r.code, r.stderr).toBe(6);
        const [line, hint, ...rest] = r.stderr.trimEnd().split('\n');
        expect(line).toMatch(/^bankdata: database postgres:\/\/.*: migration /);
        expect(line).toMatch(
          new RegExp(
            `migration ${last.tag} failed and was rolled back: ` +
              '(relation "\\w+" already exists \\(42P07\\)|column "\\w+" of relation "\\w+" already exists \\(42701\\))$',
          ),
        );
        expect(hint).toBe('hint: the database is as it was before; nothing was applied');
        expect(rest).toEqual([]);
        expect(await rows()).toEqual(before);
      }

      const [tables, indexes, functions] = [created('TABLE'), created('INDEX'), created('FUNCTION')];
      expect(tables.length + indexes.length + functions.length + addedColumns.length).toBeGreaterThan(0);
      for (const { table, column } of addedColumns)
        await pool.query(`ALTER TABLE ${table} DROP COLUMN IF EXISTS ${column}`);
      for (const name of functions) await pool.query(`DROP FUNCTION IF EXISTS ${name}() CASCADE`);
      for (const name of indexes) await pool.query(`DROP INDEX IF EXISTS ${name}`);
      for (const name of tables) await pool.query(`DROP TABLE IF EXISTS ${name} CASCADE`);
      const done = await runCliInProcess(['--db', url, 'db', 'migrate'], { cwd: dir });
      expect(done.code, done.stderr).toBe(0);
      expect(await rows()).toHaveLength(before.length + 1);
    } finally {
      await pool.end();
    }
  });
});
