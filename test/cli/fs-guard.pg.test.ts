/**
 * The file findings of the second review on PostgreSQL (test/cli/fs-guard.cases.ts), and those of
 * `bankdata db copy` from PostgreSQL into a new SQLite file (issue 31 items 3 and 9): a statement
 * file whose stored path leaves the data directory (by `..` or through a symbolic link) is
 * refused and reported, nothing is written or created outside; a damaged statement file is
 * reported (exit 1, not 70) and the rest copied; a copy that fails leaves nothing behind.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, describePostgres, postgresDialect } from '../support/postgres';
import { fsGuardCases, fixtureWithStatementFile, STATEMENT_PATH } from './fs-guard.cases';
import type { FixtureStore } from '../export/fixture-store';
import { runCliInProcess } from './cli-process';

fsGuardCases(postgresDialect);

describePostgres('db copy from PostgreSQL: statement files', () => {
  let fx: FixtureStore & { dataDir: string };
  beforeAll(async () => {
    fx = await fixtureWithStatementFile();
  });
  afterAll(async () => {
    await fx?.cleanup();
  });

  /** A PostgreSQL database holding the fixture (copied by `bankdata db copy`), then `changes` applied with SQL. */
  async function source(...changes: [string, unknown[]][]): Promise<string> {
    const url = await createTestDatabase();
    const into = await runCliInProcess(['db', 'copy', '--from', fx.path, '--to', url, '--data-dir', fx.dataDir]);
    expect(into.code, into.stderr).toBe(0);
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    try {
      for (const [sql, params] of changes) await pool.query(sql, params);
    } finally {
      await pool.end();
    }
    return url;
  }

  const rows = (file: string, sql: string) => {
    const db = new Database(file, { readonly: true });
    try {
      return db.prepare(sql).all();
    } finally {
      db.close();
    }
  };
  const leftovers = (dir: string) =>
    readdirSync(dir, { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('.tmp'));

  it('item 3: a stored path ../../outside/x is refused and reported; nothing is written or created outside (exit 1)', async () => {
    const url = await source(
      [`UPDATE statement_files SET file_path = '../../outside/x' WHERE file_path = $1`, [STATEMENT_PATH]],
      [`UPDATE statements SET file_path = '../../outside/x' WHERE file_path = $1`, [STATEMENT_PATH]],
    );
    const base = mkdtempSync(join(tmpdir(), 'bankdata-copy-'));
    const target = join(base, 'a', 'b', 'copy.sqlite');
    const r = await runCliInProcess(['db', 'copy', '--from', url, '--to', target]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(
      /^bankdata: warning: statement file \.\.\/\.\.\/outside\/x climbs out of the data directory.*statement stmt-2025-02 \(PNZ, account acc-0001\) copied without its file$/m,
    );
    expect(r.stderr).toContain('1 statement file(s) refused');
    expect(existsSync(join(base, 'outside'))).toBe(false);
    // The rows are there; the statement names no file it does not have.
    expect(rows(target, `SELECT statement_id, file_path FROM statements WHERE statement_id = 'stmt-2025-02'`)).toEqual([
      { statement_id: 'stmt-2025-02', file_path: null },
    ]);
    expect(leftovers(base)).toEqual([]);
  });

  it('item 3, the other way: a SQLite file naming ../secret.txt never reads it into PostgreSQL (exit 1)', async () => {
    const other = await fixtureWithStatementFile();
    try {
      const secret = Buffer.from('a file beside the data directory, not a statement');
      writeFileSync(join(other.dir, 'secret.txt'), secret);
      other.store.sqlite
        .prepare('UPDATE statements SET file_path = ?, file_sha256 = ?, file_bytes = ? WHERE file_path = ?')
        .run('../secret.txt', createHash('sha256').update(secret).digest('hex'), secret.byteLength, STATEMENT_PATH);
      const url = await createTestDatabase();
      const r = await runCliInProcess(['db', 'copy', '--from', other.path, '--to', url, '--data-dir', other.dataDir]);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(
        /^bankdata: warning: statement file \.\.\/secret\.txt climbs out of the data directory/m,
      );
      const pool = new pg.Pool({ connectionString: url, max: 1 });
      try {
        const { rows: stored } = await pool.query('SELECT count(*)::int AS n FROM statement_files');
        expect(stored).toEqual([{ n: 0 }]);
        const { rows: named } = await pool.query(
          'SELECT count(*)::int AS n FROM statements WHERE file_path IS NOT NULL',
        );
        expect(named).toEqual([{ n: 0 }]);
      } finally {
        await pool.end();
      }
    } finally {
      await other.cleanup();
    }
  });

  it('item 3: a statements directory that is a symbolic link leading out is never written through (exit 1)', async () => {
    const url = await source();
    const base = mkdtempSync(join(tmpdir(), 'bankdata-copy-'));
    const elsewhere = mkdtempSync(join(tmpdir(), 'bankdata-elsewhere-'));
    mkdirSync(join(base, 'data'));
    symlinkSync(elsewhere, join(base, 'data', 'statements'));
    const target = join(base, 'data', 'copy.sqlite');
    const r = await runCliInProcess(['db', 'copy', '--from', url, '--to', target]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(
      /^bankdata: warning: statement file statements\/PNZ\/abc\/def\.pdf leads out of the data directory/m,
    );
    expect(readdirSync(elsewhere)).toEqual([]);
    expect(rows(target, `SELECT count(*) AS n FROM transactions`)).toEqual([{ n: expect.any(Number) as number }]);
  });

  it('item 9: a damaged statement file is reported (exit 1, not 70); every row is copied and the good files written', async () => {
    const url = await source([
      `UPDATE statement_files SET content = $1 WHERE file_path = $2`,
      [Buffer.from('damaged'), STATEMENT_PATH],
    ]);
    const base = mkdtempSync(join(tmpdir(), 'bankdata-copy-'));
    const target = join(base, 'copy.sqlite');
    const r = await runCliInProcess(['db', 'copy', '--from', url, '--to', target]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(
      /^bankdata: warning: statement file statements\/PNZ\/abc\/def\.pdf does not match its SHA-256/m,
    );
    const counts = JSON.parse(r.stdout) as Record<string, number>;
    expect(rows(target, 'SELECT count(*) AS n FROM transactions')).toEqual([{ n: counts['transactions'] }]);
    expect(counts['transactions']).toBeGreaterThan(0);
    expect(existsSync(join(base, STATEMENT_PATH))).toBe(false);
    expect(leftovers(base)).toEqual([]);
  });

  it('item 9: a copy that fails half way leaves no target file, no temp file and no statement file', async () => {
    const url = await source();
    const base = mkdtempSync(join(tmpdir(), 'bankdata-copy-'));
    // statements/ is a file: the statement file cannot be written, after every row was.
    writeFileSync(join(base, 'statements'), 'in the way');
    const target = join(base, 'copy.sqlite');
    const r = await runCliInProcess(['db', 'copy', '--from', url, '--to', target]);
    expect(r.code, r.stderr).toBe(7);
    expect(readdirSync(base).sort()).toEqual(['.bankdata-data-dir', 'statements']);
  });
});
