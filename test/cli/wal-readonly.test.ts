/**
 * A WAL database in a directory the reader cannot write (issue 31 item 9; docs/security.md
 * "Versions and migrations"): SQLite cannot create the -shm it reads a WAL database through.
 * When no -wal holds changes the file alone is the database and the reading commands work
 * (status, export, check, report, consents list --offline, meta --offline); a command that
 * writes is refused with exit 6 saying why; a -wal with changes that cannot be read without a
 * -shm is refused with exit 6 saying so, never "this command writes". The commands run as a user
 * who cannot write the directory: this one when it is not root (the directory is 0555), else
 * `nobody` (root writes anywhere).
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFixtureStore, type FixtureStore } from '../export/fixture-store';
import { BIN } from './cli-process';

let fx: FixtureStore;
beforeAll(async () => {
  fx = await createFixtureStore();
});
afterAll(() => {
  for (const dir of lockedDirs) chmodSync(dir, 0o755);
  return fx.cleanup();
});

const lockedDirs: string[] = [];
const asRoot = process.getuid?.() === 0;
const reader = (() => {
  if (!asRoot) return {};
  const id = (flag: string) => Number(spawnSync('id', [flag, 'nobody'], { encoding: 'utf8' }).stdout.trim());
  return { uid: id('-u'), gid: id('-g') };
})();

function run(args: string[], home: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      ...reader,
      cwd: home,
      env: { PATH: process.env.PATH ?? '', HOME: home },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A folder anyone may enter and read; `writable` for anyone, or (false) for no one but root. */
function folder(parent: string, name: string, writable: boolean): string {
  const dir = join(parent, name);
  mkdirSync(dir);
  chmodSync(dir, writable ? 0o777 : 0o755);
  return dir;
}

async function walCopy(dir: string): Promise<string> {
  const file = join(dir, 'bankdata.sqlite');
  const source = new Database(fx.path, { readonly: true });
  await source.backup(file);
  source.close();
  const db = new Database(file);
  expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
  db.close(); // the last connection: the -wal is folded in and removed
  chmodSync(file, 0o644);
  return file;
}

describe('a WAL database in a directory the reader cannot write', () => {
  it('the reading commands work; a writing one is refused with exit 6 saying why', async () => {
    const root = mkdtempSync(join(tmpdir(), 'bankdata-walro-'));
    chmodSync(root, 0o755);
    const home = folder(root, 'home', true);
    const dir = folder(root, 'db', true);
    const file = await walCopy(dir);
    expect(readdirSync(dir)).toEqual(['bankdata.sqlite']);
    chmodSync(dir, 0o555);
    lockedDirs.push(dir);

    const readers = [
      ['status'],
      ['export', 'transactions', '--format', 'csv', '--out', join(home, 'transactions.csv')],
      ['check'],
      ['report', '--out', join(home, 'report.html')],
      ['consents', 'list', '--offline'],
      ['meta', '--offline'],
    ];
    const failed: string[] = [];
    for (const args of readers) {
      const r = await run(['--db', file, '--data-dir', home, ...args], home);
      if (r.code !== 0 || /this command writes|read-only|bankdata: database/.test(args[0] === 'check' ? '' : r.stderr))
        failed.push(`${args.join(' ')}: exit ${r.code}: ${r.stderr}`);
    }
    expect(failed).toEqual([]);
    expect(existsSync(join(home, 'transactions.csv'))).toBe(true);
    expect(existsSync(join(home, 'report.html'))).toBe(true);
    const check = await run(['--db', file, 'check'], home);
    expect(check.stdout).toMatch(/^continuity: /);
    expect(check.stderr).toBe(
      `bankdata: warning: the findings were not stored in v_continuity: ${file} is read-only for this user\n`,
    );

    const writer = await run(['--db', file, 'consents', 'add', '3fa85f64-5717-4562-b3fc-2c963f66afa6'], home);
    expect(writer.code).toBe(6);
    expect(writer.stderr).toMatch(
      new RegExp(`^bankdata: database ${file}: (cannot be written by this user|is read-only for this user)`),
    );
    expect(writer.stderr.trimEnd().split('\n').length).toBeLessThanOrEqual(2);
    expect(readdirSync(dir)).toEqual(['bankdata.sqlite']);
  });

  it('with changes in its -wal and no -shm: exit 6 saying the -shm cannot be made to read them', async () => {
    const root = mkdtempSync(join(tmpdir(), 'bankdata-walro-'));
    chmodSync(root, 0o755);
    const home = folder(root, 'home', true);
    const live = folder(root, 'live', true);
    const file = await walCopy(live);
    // A writer still open: its changes are in the -wal, not yet in the database file.
    const writer = new Database(file);
    writer.pragma('wal_autocheckpoint = 0');
    writer.exec("UPDATE consents SET status = 'Revoked'");
    const dir = folder(root, 'db', true);
    copyFileSync(file, join(dir, 'bankdata.sqlite'));
    copyFileSync(`${file}-wal`, join(dir, 'bankdata.sqlite-wal'));
    writer.close();
    chmodSync(join(dir, 'bankdata.sqlite'), 0o644);
    chmodSync(join(dir, 'bankdata.sqlite-wal'), 0o644);
    chmodSync(dir, 0o555);
    lockedDirs.push(dir);

    const r = await run(['--db', join(dir, 'bankdata.sqlite'), 'status'], home);
    expect(r.code).toBe(6);
    const [line, hint, ...rest] = r.stderr.trimEnd().split('\n');
    expect(line).toBe(
      `bankdata: database ${join(dir, 'bankdata.sqlite')}: cannot be read by this user: its directory is read-only, ` +
        'and SQLite must create bankdata.sqlite-shm to read the changes in bankdata.sqlite-wal (SQLITE_CANTOPEN)',
    );
    expect(hint).toMatch(/^hint: let this user write the directory/);
    expect(rest).toEqual([]);
  });
});
