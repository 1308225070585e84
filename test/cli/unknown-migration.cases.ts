/**
 * A database that a newer bankdata migrated (drizzle's migrations table holds a row this
 * binary's journal does not have) is refused by every command that opens it, readers included:
 * exit 6, one line naming the newest migration this binary knows and the one found, and a hint
 * (the newer bankdata, or the copy from before it); the database is left as it was. The commands
 * are every leaf of the registered program (store-commands.ts); run once per dialect by
 * unknown-migration.test.ts and unknown-migration.pg.test.ts.
 */
import { createHash } from 'node:crypto';
import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { openDatabaseStore } from '../../src/store';
import { readJournal } from '../../src/store/migration-versions';
import { MIGRATIONS_DIR } from '../../src/store/sqlite/open';
import { PG_MIGRATIONS_DIR } from '../../src/store/pg/open';
import { execute, queryRows, type DialectSetup } from '../support/dialects';
import { runCliInProcess } from './cli-process';
import { leafCommands, NO_STORE, STORE_COMMANDS } from './store-commands';

/** 2027-01-15T10:20:30Z: what a migration generated after this binary's would carry. */
const FUTURE_WHEN = Date.UTC(2027, 0, 15, 10, 20, 30);
const FUTURE_HASH = createHash('sha256').update('-- a migration of a newer bankdata').digest('hex');

const ENV = {
  BANKDATA_DATA_BASE_URL: 'http://127.0.0.1:1',
  BANKDATA_CLIENT_ID: 'client',
  BANKDATA_CLIENT_SECRET: 'unknown-migration-test-secret-7f3a9c',
  BANKDATA_PAYMENTS_BASE_URL: 'http://127.0.0.1:1',
  BANKDATA_PAYMENTS_CLIENT_ID: 'client',
  BANKDATA_PAYMENTS_CLIENT_SECRET: 'unknown-migration-test-secret-7f3a9c',
};

const MIGRATIONS_TABLE = { sqlite: '__drizzle_migrations', postgres: 'drizzle.__drizzle_migrations' } as const;

export function unknownMigrationSuite(setup: DialectSetup): void {
  const table = MIGRATIONS_TABLE[setup.dialect];
  const newest = readJournal(setup.dialect === 'sqlite' ? MIGRATIONS_DIR : PG_MIGRATIONS_DIR).at(-1)?.tag;

  const rowsSql = `SELECT hash, CAST(created_at AS TEXT) AS created_at FROM ${table} ORDER BY created_at`;

  setup.describe('a database a newer bankdata migrated', () => {
    it('every command of the registry either opens no database or is in the case list', async () => {
      const listed = new Set([...STORE_COMMANDS.map((c) => c.name), ...Object.keys(NO_STORE)]);
      expect((await leafCommands()).filter((name) => !listed.has(name))).toEqual([]);
      expect([...listed].filter((name) => !name.includes(' ') && !name.startsWith('db')).length).toBeGreaterThan(5);
    });

    it('is refused by every command that opens it (exit 6, both migrations named, a hint) and left as it was', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'bankdata-unknown-migration-'));
      chmodSync(dir, 0o700);
      const location = await setup.location();
      const store = await openDatabaseStore(location);
      await execute(store, `INSERT INTO ${table} (hash, created_at) VALUES (?, ?)`, FUTURE_HASH, FUTURE_WHEN);
      const before = await queryRows(store, rowsSql);
      await store.close();

      const cases = STORE_COMMANDS.filter((c) => !c.dialects || c.dialects.includes(setup.dialect));
      expect(cases.length).toBeGreaterThan(15);
      const found = `a migration of 2027-01-15T10:20:30Z (hash ${FUTURE_HASH.slice(0, 12)})`;
      const wrong: string[] = [];
      for (const c of cases) {
        const args = ['--db', location, '--data-dir', dir, ...c.name.split(' '), ...c.args(dir, location)];
        const r = await runCliInProcess(args, { cwd: dir, env: ENV });
        const [line = '', hint = '', ...rest] = r.stderr.trimEnd().split('\n');
        const right =
          r.code === 6 &&
          /^bankdata: database .*: was migrated by a newer bankdata/.test(line) &&
          line.includes(found) &&
          line.includes(`the newest it knows is ${newest}`) &&
          hint.startsWith('hint: use the newer bankdata that migrated it, or restore ') &&
          rest.length === 0;
        if (!right) wrong.push(`bankdata ${c.name} ${c.args(dir, location).join(' ')}: exit ${r.code}: ${r.stderr}`);
      }
      expect(wrong).toEqual([]);

      const after = await openDatabaseStore(location, { readOnly: true }).catch((error: unknown) => error);
      expect(String(after)).toContain('was migrated by a newer bankdata');
      const raw = await openRaw(setup, location);
      try {
        expect(await queryRows(raw.store, rowsSql)).toEqual(before);
      } finally {
        await raw.close();
      }
    });
  });
}

/** The database opened without the store's checks, to read what the commands left. */
async function openRaw(setup: DialectSetup, location: string) {
  if (setup.dialect === 'sqlite') {
    const Database = (await import('better-sqlite3')).default;
    const sqlite = new Database(location, { readonly: true });
    return { store: { dialect: 'sqlite', sqlite } as never, close: () => Promise.resolve(sqlite.close()) };
  }
  const pg = (await import('pg')).default;
  const pool = new pg.Pool({ connectionString: location, max: 1 });
  // pool.end() resolves before its connection has closed; the file's database is dropped (WITH
  // FORCE) right after this test, and the server's "terminating connection" reaching the closing
  // client would otherwise be re-emitted on the pool with no listener: an uncaught exception.
  pool.on('error', () => undefined);
  return { store: { dialect: 'postgres', pool } as never, close: () => pool.end() };
}
