/**
 * A SQLite file of another program (tables of its own, no bankdata migration: a mistyped --db) is
 * refused by every command that opens a database (exit 6, one line and a hint) and left byte for
 * byte as it was: no bankdata table added, its journal mode kept (src/store/sqlite/open.ts
 * `refuseForeignDatabase`). The commands are every leaf of the registered program
 * (store-commands.ts). SQLite only: a PostgreSQL database may hold other applications' schemas.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { runCliInProcess } from './cli-process';
import { STORE_COMMANDS } from './store-commands';

const ENV = {
  BANKDATA_DATA_BASE_URL: 'http://127.0.0.1:1',
  BANKDATA_CLIENT_ID: 'client',
  BANKDATA_CLIENT_SECRET: 'foreign-database-test-secret-5e1b7d',
  BANKDATA_PAYMENTS_BASE_URL: 'http://127.0.0.1:1',
  BANKDATA_PAYMENTS_CLIENT_ID: 'client',
  BANKDATA_PAYMENTS_CLIENT_SECRET: 'foreign-database-test-secret-5e1b7d',
};

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('a SQLite file of another program', () => {
  it('is refused by every command that opens a database (exit 6, a hint) and left as it was', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bankdata-foreign-db-'));
    const file = join(dir, 'notes.db');
    const other = new Database(file);
    other.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT); INSERT INTO notes (text) VALUES ('mine')");
    other.close();
    const before = sha256(file);

    const cases = STORE_COMMANDS.filter((c) => !c.dialects || c.dialects.includes('sqlite'));
    expect(cases.length).toBeGreaterThan(15);
    const wrong: string[] = [];
    for (const c of cases) {
      const args = ['--db', file, '--data-dir', dir, ...c.name.split(' '), ...c.args(dir, file)];
      const r = await runCliInProcess(args, { cwd: dir, env: ENV });
      const [line = '', hint = '', ...rest] = r.stderr.trimEnd().split('\n');
      const right =
        r.code === 6 &&
        line ===
          `bankdata: database ${file}: is not a bankdata database: it holds 1 table(s) of another program and no bankdata migration` &&
        hint === 'hint: name the bankdata database, or a new file, with --db or BANKDATA_DB' &&
        rest.length === 0;
      if (!right) wrong.push(`bankdata ${c.name} ${c.args(dir, file).join(' ')}: exit ${r.code}: ${r.stderr}`);
    }
    expect(wrong).toEqual([]);
    expect(sha256(file)).toBe(before);
    expect(existsSync(`${file}-wal`)).toBe(false);
  });
});

describe('a SQLite file of another drizzle program (a migrations table of another shape)', () => {
  it('is refused as a database that cannot be used (exit 6), not as a bug of ours (exit 70)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bankdata-foreign-drizzle-'));
    const file = join(dir, 'other.db');
    const other = new Database(file);
    other.exec('CREATE TABLE __drizzle_migrations (id INTEGER PRIMARY KEY, name TEXT); CREATE TABLE notes (text TEXT)');
    other.close();
    for (const command of [['status'], ['check'], ['consents', 'add', '3fa85f64-5717-4562-b3fc-2c963f66afa6']]) {
      const r = await runCliInProcess(['--db', file, ...command], { cwd: dir, env: ENV });
      expect(r.code, `${command.join(' ')}: ${r.stderr}`).toBe(6);
      expect(r.stderr).toMatch(/^bankdata: database .*other\.db: cannot be used \(SQLITE_ERROR\)/);
    }
  });
});
