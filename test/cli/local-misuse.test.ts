/**
 * Local misuse, driven through the `bankdata` command (run in process: test/cli/cli-process.ts `runCliInProcess`) on real files (docs/security.md
 * "Local misuse"): an output path that is the database, its WAL, a statement file or a
 * directory (exit 7, nothing replaced); a --db that is a directory, a user's file or a
 * read-only database (its mode is never changed); an output through a symbolic link (its target
 * written) or onto a read-only file (exit 7); a missing or damaged database (exit 6, the
 * path named, nothing created); a database of an older version (read-only commands refuse it
 * with a hint, `db migrate` backs it up and migrates it, every row kept); a base URL whose query
 * holds a secret (never echoed).
 */
import { createHash } from 'node:crypto';
import {
  chmodSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFixtureStore, type FixtureStore } from '../export/fixture-store';
import { createOlderSqliteDatabase } from '../support/older-sqlite';
import { runCliInProcess } from './cli-process';

let fx: FixtureStore;
beforeAll(async () => {
  fx = await createFixtureStore();
});
afterAll(() => fx.cleanup());

const hash = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
const mode = (path: string) => statSync(path).mode & 0o777;
const bankdata = (args: string[], env: Record<string, string> = {}, cwd = fx.dir) =>
  runCliInProcess(args, { cwd, env });

/** One error line and at most one hint line, no stack trace. */
function expectOneLine(stderr: string): void {
  const lines = stderr.trimEnd().split('\n');
  expect(lines[0]).toMatch(/^bankdata: /);
  expect(lines.length).toBeLessThanOrEqual(2);
  if (lines[1] !== undefined) expect(lines[1]).toMatch(/^hint: /);
  expect(stderr).not.toMatch(/\n\s+at /);
}

describe('item 1: no output replaces the database, its WAL/SHM, a statement file, or is a directory', () => {
  it('export --out the database exits 7 naming it; the database is unchanged', async () => {
    const before = hash(fx.path);
    const r = await bankdata(['export', 'transactions', '--format', 'csv', '--db', fx.path, '--out', fx.path]);
    expect(r.code).toBe(7);
    expect(r.stderr).toContain(`${fx.path}: is the database`);
    expectOneLine(r.stderr);
    expect(hash(fx.path)).toBe(before);
  });

  it('SQLite: a symbolic link to the database, its -wal and -shm are the database too', async () => {
    const link = join(fx.dir, 'link.csv');
    symlinkSync(fx.path, link);
    for (const out of [link, `${fx.path}-wal`, `${fx.path}-shm`]) {
      const r = await bankdata(['export', 'accounts', '--format', 'csv', '--db', fx.path, '--out', out]);
      expect(r.code, out).toBe(7);
      expect(r.stderr).toContain('is the database');
    }
  });

  it('a link to a file is written through (the link stays); a read-only file is refused with 7, kept as it was', async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'bankdata-out-'));
    const target = join(elsewhere, 'accounts.csv');
    writeFileSync(target, 'old\n');
    const link = join(fx.dir, 'latest-accounts.csv');
    symlinkSync(target, link);
    const r = await bankdata(['export', 'accounts', '--format', 'csv', '--db', fx.path, '--out', link]);
    expect(r.code, r.stderr).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, 'utf8')).toMatch(/^bank,account_id,/);

    const readOnly = join(fx.dir, 'kept.csv');
    writeFileSync(readOnly, 'kept\n');
    chmodSync(readOnly, 0o444);
    const refused = await bankdata(['export', 'accounts', '--format', 'csv', '--db', fx.path, '--out', readOnly]);
    expect(refused.code).toBe(7);
    expect(refused.stderr).toContain(`${readOnly}: is read-only`);
    expectOneLine(refused.stderr);
    expect(readFileSync(readOnly, 'utf8')).toBe('kept\n');
    expect(mode(readOnly)).toBe(0o444);
  });

  it('a directory, a missing directory (not created), and the statement files are refused with 7; an empty --out is usage (2)', async () => {
    const dir = join(fx.dir, 'a-dir');
    mkdirSync(dir);
    const asDir = await bankdata(['export', 'accounts', '--format', 'csv', '--db', fx.path, '--out', dir]);
    expect(asDir.code).toBe(7);
    expect(asDir.stderr).toContain(`${dir}: is a directory`);

    const missing = join(fx.dir, 'nonexistent', 'dir', 'x.csv');
    const deep = await bankdata(['export', 'accounts', '--format', 'csv', '--db', fx.path, '--out', missing]);
    expect(deep.code).toBe(7);
    expect(deep.stderr).toContain(join(fx.dir, 'nonexistent', 'dir'));
    expect(existsSync(join(fx.dir, 'nonexistent'))).toBe(false);

    const statements = join(fx.dir, 'data', 'statements', 'PNZ');
    mkdirSync(statements, { recursive: true });
    const intoStatements = await bankdata([
      'export',
      'accounts',
      '--format',
      'csv',
      '--db',
      fx.path,
      '--data-dir',
      'data',
      '--out',
      join(statements, 'x.pdf'),
    ]);
    expect(intoStatements.code).toBe(7);
    expect(intoStatements.stderr).toContain('where the statement files are');

    const empty = await bankdata(['export', 'accounts', '--format', 'csv', '--db', fx.path, '--out', '']);
    expect(empty.code).toBe(2);
    expectOneLine(empty.stderr);
  });
});

describe('item 2: the store never changes the permissions of what it did not create', () => {
  it('--db naming a directory: exit 6 naming it, its mode unchanged', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bankdata-dir-'));
    chmodSync(dir, 0o755);
    for (const command of [['status'], ['consents', 'add', 'c0a8012e-7d3b-4f5e-9a61-2b9f4c1d8e70']]) {
      const r = await bankdata(['--db', dir, ...command]);
      expect(r.code).toBe(6);
      expect(r.stderr).toContain(`database ${dir}: is a directory`);
      expectOneLine(r.stderr);
      expect(mode(dir)).toBe(0o755);
    }
  });

  it("--db naming a user's file that is not SQLite: exit 6, bytes and mode unchanged", async () => {
    const file = join(fx.dir, 'notes.txt');
    writeFileSync(file, 'my notes\n');
    chmodSync(file, 0o644);
    const r = await bankdata(['--db', file, 'consents', 'add', 'c0a8012e-7d3b-4f5e-9a61-2b9f4c1d8e70']);
    expect(r.code).toBe(6);
    expect(r.stderr).toContain(`database ${file}: is not a SQLite database`);
    expect(readFileSync(file, 'utf8')).toBe('my notes\n');
    expect(mode(file)).toBe(0o644);
  });

  it('a database the user made read-only (0444) stays 0444 and unchanged after status, export, meta --offline and consents list --offline, which work offline', async () => {
    const copy = join(mkdtempSync(join(tmpdir(), 'bankdata-ro-')), 'bankdata.sqlite');
    fx.store.sqlite.pragma('wal_checkpoint(TRUNCATE)');
    cpSync(fx.path, copy);
    chmodSync(copy, 0o444);
    const before = hash(copy);
    const status = await bankdata(['--db', copy, 'status']);
    expect(status.code, status.stderr).toBe(0);
    const exported = await bankdata(['--db', copy, 'export', 'accounts', '--format', 'csv']);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toContain('acc-0001');
    for (const args of [
      ['meta', '--offline'],
      ['consents', 'list', '--offline'],
    ]) {
      const r = await bankdata(['--db', copy, ...args]);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    }
    expect(mode(copy)).toBe(0o444);
    expect(hash(copy)).toBe(before);
  });
});

describe('items 6 and 7: local failures have their exit code and name the path; readers never create or migrate', () => {
  it('status --db typo.sqlite exits 6 naming it, and creates nothing', async () => {
    const r = await bankdata(['--db', 'typo.sqlite', 'status']);
    expect(r.code).toBe(6);
    expect(r.stderr).toContain(`database ${join(fx.dir, 'typo.sqlite')}: does not exist`);
    expectOneLine(r.stderr);
    expect(existsSync(join(fx.dir, 'typo.sqlite'))).toBe(false);
  });

  it('a damaged database (SQLite header, garbage after) exits 6 naming it', async () => {
    const file = join(fx.dir, 'damaged.sqlite');
    const bytes = readFileSync(fx.path);
    const damaged = Buffer.concat([bytes.subarray(0, 100), Buffer.alloc(bytes.length - 100, 0xa5)]);
    writeFileSync(file, damaged);
    for (const args of [['status'], ['export', 'accounts', '--format', 'csv']]) {
      const r = await bankdata(['--db', file, ...args]);
      expect(r.code, r.stderr).toBe(6);
      expect(r.stderr).toContain(`database ${file}`);
      expectOneLine(r.stderr);
    }
  });

  it('an older database: status and export exit 6 with the `db migrate` hint and leave it as it was; db migrate backs it up and keeps every row', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bankdata-old-'));
    const file = join(dir, 'bankdata.sqlite');
    // A database of an earlier version: every migration but the last applied.
    const old = createOlderSqliteDatabase(file);
    old
      .prepare(
        "INSERT INTO consents (consent_id, registered_at) VALUES ('c0a8012e-7d3b-4f5e-9a61-2b9f4c1d8e70', '2025-03-05T01:00:00.000Z')",
      )
      .run();
    old.close();
    const before = hash(file);

    for (const args of [['status'], ['export', 'accounts', '--format', 'csv'], ['consents', 'list', '--offline']]) {
      const r = await bankdata(['--db', file, ...args], {}, dir);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(6);
      expect(r.stderr).toContain(`database ${file}: needs 1 migration(s)`);
      expect(r.stderr).toContain('hint: run `bankdata db migrate`');
    }
    expect(hash(file)).toBe(before);

    const migrated = await bankdata(['--db', file, 'db', 'migrate'], {}, dir);
    expect(migrated.code, migrated.stderr).toBe(0);
    const backup = /backup in (\S+)/.exec(migrated.stderr)?.[1];
    expect(backup).toBeDefined();
    expect(hash(backup!)).not.toBe('');
    const copy = new Database(backup, { readonly: true });
    expect(copy.prepare('SELECT consent_id FROM consents').all()).toEqual([
      { consent_id: 'c0a8012e-7d3b-4f5e-9a61-2b9f4c1d8e70' },
    ]);
    copy.close();
    expect(mode(backup!)).toBe(0o600);

    const status = await bankdata(['--db', file, 'consents', 'list', '--offline', '--json'], {}, dir);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain('c0a8012e-7d3b-4f5e-9a61-2b9f4c1d8e70');
  });

  it('SQLite: db backup copies a database in use to a new 0600 file, and never over an existing one (7)', async () => {
    const target = join(fx.dir, 'copy.sqlite');
    const r = await bankdata(['--db', fx.path, 'db', 'backup', target]);
    expect(r.code, r.stderr).toBe(0);
    expect(mode(target)).toBe(0o600);
    const copy = new Database(target, { readonly: true });
    expect((copy.prepare('SELECT count(*) AS n FROM accounts').get() as { n: number }).n).toBeGreaterThan(0);
    copy.close();
    const again = await bankdata(['--db', fx.path, 'db', 'backup', target]);
    expect(again.code).toBe(7);
    expect(again.stderr).toContain(`${target}: is a SQLite database`);
  });
});

describe('item 5: a base URL with a query or fragment is refused without echoing it', () => {
  it('the secret in the query never reaches the output', async () => {
    const r = await bankdata(['--db', fx.path, 'meta'], {
      BANKDATA_DATA_BASE_URL: 'https://bank.example/api?client_secret=canary-s3cret-value#frag-canary',
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('with a query and a fragment (not shown)');
    expect(r.stderr).not.toContain('canary');
    expectOneLine(r.stderr);
  });
});
