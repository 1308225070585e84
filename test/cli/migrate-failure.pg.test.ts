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

// The newest migration that creates something (tables, indexes, functions; triggers go with their
// functions; or columns it adds): present before it runs, they make it fail; dropped, it applies.
// A newer one that only alters what exists (0016: the text columns' collation), or drops what it
// creates first (0022: the change feed's triggers re-created), runs after it.
const creating = (tag: string) => {
  const text = readFileSync(join(PG_MIGRATIONS_DIR, `${tag}.sql`), 'utf8');
  const dropped = (kind: string, name: string) => new RegExp(`^DROP ${kind} IF EXISTS "?${name}"?\\b`, 'm').test(text);
  const created = (kind: string) =>
    [...text.matchAll(new RegExp(`^CREATE (?:UNIQUE )?${kind} (?:IF NOT EXISTS )?"?(\\w+)"?`, 'gm'))]
      .map((m) => m[1]!)
      .filter((name) => !dropped(kind, name));
  const addedColumns = [...text.matchAll(/^ALTER TABLE "?(\w+)"? ADD (?:COLUMN )?"?(\w+)"?/gm)].map((m) => ({
    table: m[1]!,
    column: m[2]!,
  }));
  const [tables, indexes, functions] = [created('TABLE'), created('INDEX'), created('FUNCTION')];
  return tables.length + indexes.length + functions.length + addedColumns.length > 0
    ? { tables, indexes, functions, addedColumns }
    : null;
};
const journal = readJournal(PG_MIGRATIONS_DIR);
const targetAt = journal.findLastIndex((entry) => creating(entry.tag) !== null);
const target = journal[targetAt]!;
const { tables, indexes, functions, addedColumns } = creating(target.tag)!;
/** The migrations from the target on: not recorded, so the command applies them again in order. */
const fromTarget = journal.slice(targetAt);

describePostgres('a PostgreSQL migration that fails', () => {
  it('is rolled back and exits 6 with the migration and the cause; it applies once the cause is gone', async () => {
    const url = await createTestDatabase();
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    pool.on('error', () => undefined);
    const rows = async () =>
      (await pool.query('SELECT hash, created_at::text AS created_at FROM drizzle.__drizzle_migrations ORDER BY 2'))
        .rows;
    try {
      // Behind from the target on, with what the target adds already there: its first CREATE fails.
      await pool.query('DELETE FROM drizzle.__drizzle_migrations WHERE created_at >= $1', [target.when]);
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
            `migration ${target.tag} failed and was rolled back: ` +
              '(relation "\\w+" already exists \\(42P07\\)|column "\\w+" of relation "\\w+" already exists \\(42701\\))$',
          ),
        );
        expect(hint).toBe('hint: the database is as it was before; nothing was applied');
        expect(rest).toEqual([]);
        expect(await rows()).toEqual(before);
      }

      for (const { table, column } of addedColumns)
        await pool.query(`ALTER TABLE ${table} DROP COLUMN IF EXISTS ${column}`);
      for (const name of functions) await pool.query(`DROP FUNCTION IF EXISTS ${name}() CASCADE`);
      for (const name of indexes) await pool.query(`DROP INDEX IF EXISTS ${name}`);
      for (const name of tables) await pool.query(`DROP TABLE IF EXISTS ${name} CASCADE`);
      const done = await runCliInProcess(['--db', url, 'db', 'migrate'], { cwd: dir });
      expect(done.code, done.stderr).toBe(0);
      expect(await rows()).toHaveLength(before.length + fromTarget.length);
    } finally {
      await pool.end();
    }
  });
});
