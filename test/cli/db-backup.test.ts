/**
 * `bankdata db backup` when it cannot make a good copy (issue 31 item 9; docs/security.md
 * "Versions and migrations"): onto a full disk it exits 7 and leaves no file (a 0-byte file
 * used to stay and make the rerun fail with "already exists"); from a damaged database it exits 6
 * and leaves no file (it used to exit 0 with a damaged copy). The full disk is a small tmpfs
 * mounted in a user and mount namespace of the command's own (`unshare -Urm`), so the test
 * needs no privilege; the listing of what was left is taken inside that namespace.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, openSync, closeSync, writeSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFixtureStore, type FixtureStore } from '../export/fixture-store';
import { BIN, runCliInProcess, spawnCli } from './cli-process';

let fx: FixtureStore;
beforeAll(async () => {
  fx = await createFixtureStore();
});
afterAll(() => fx.cleanup());

describe('db backup', () => {
  it('onto a full disk: exit 7 naming the file and the full disk, nothing left, the rerun the same', () => {
    const mountPoint = mkdtempSync(join(tmpdir(), 'bankdata-full-'));
    const target = join(mountPoint, 'backup.sqlite');
    const script = [
      'mount -t tmpfs -o size=16k tmpfs "$1" || exit 99',
      'shift',
      'for attempt in 1 2; do "$@"; echo "exit $?"; echo "left: $(ls -A "$MNT" | tr "\\n" " ")"; done',
    ].join('\n');
    const run = spawnSync(
      'unshare',
      ['-Urm', 'sh', '-c', script, 'sh', mountPoint, process.execPath, BIN, '--db', fx.path, 'db', 'backup', target],
      { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', MNT: mountPoint } },
    );
    expect(run.status, `unshare -Urm with a tmpfs mount must work here: ${run.stderr}`).toBe(0);
    expect(run.stdout.split('\n').filter(Boolean)).toEqual(['exit 7', 'left: ', 'exit 7', 'left: ']);
    const lines = run.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    for (const line of lines)
      expect(line).toBe(
        `bankdata: ${target}: could not be written: the disk is full (SQLITE_FULL); no backup was written`,
      );
  });

  it('of a damaged database: exit 6 naming the database and the damage, no file left', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bankdata-damaged-'));
    const damaged = join(dir, 'damaged.sqlite');
    const source = new Database(fx.path, { readonly: true });
    await source.backup(damaged);
    source.close();
    // The transactions table's root page overwritten: the schema and the migrations table still read.
    const db = new Database(damaged, { readonly: true });
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    const { rootpage } = db.prepare("SELECT rootpage FROM sqlite_master WHERE name = 'transactions'").get() as {
      rootpage: number;
    };
    db.close();
    const fd = openSync(damaged, 'r+');
    writeSync(fd, Buffer.alloc(pageSize - 8, 0x5a), 0, pageSize - 8, (rootpage - 1) * pageSize + 8);
    closeSync(fd);
    mkdirSync(join(dir, 'out'));
    const target = join(dir, 'out', 'backup.sqlite');

    const r = await runCliInProcess(['--db', damaged, 'db', 'backup', target], { cwd: dir });
    expect(r.code, r.stderr).toBe(6);
    const [line, hint, ...rest] = r.stderr.trimEnd().split('\n');
    expect(line).toMatch(new RegExp(`^bankdata: database ${damaged}: is damaged \\(.+\\); no backup was written$`));
    expect(hint).toMatch(/^hint: restore an earlier backup/);
    expect(rest).toEqual([]);
    expect(existsSync(target)).toBe(false);
    expect(readdirSync(join(dir, 'out'))).toEqual([]);
  });

  it('stopped by Ctrl-C (SIGINT) while it copies: ends by the signal, and neither the backup nor its temp file is left', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bankdata-stopped-'));
    const big = join(dir, 'big.sqlite');
    // The fixture whole (its WAL's pages too: a copy of the main file alone may hold none of its tables).
    const source = new Database(fx.path, { readonly: true });
    source.prepare('VACUUM INTO ?').run(big);
    source.close();
    // 96 MB of pages, so the copy lasts long enough to be caught in the act.
    const db = new Database(big);
    db.exec('CREATE TABLE zz_filler (b BLOB)');
    const fill = db.prepare('INSERT INTO zz_filler VALUES (randomblob(1048576))');
    db.transaction(() => {
      for (let i = 0; i < 96; i++) fill.run();
    })();
    db.close();
    mkdirSync(join(dir, 'out'));
    const target = join(dir, 'out', 'backup.sqlite');

    const run = spawnCli(['--db', big, 'db', 'backup', target], { cwd: dir });
    let ended: number | NodeJS.Signals | undefined;
    void run.exited.then((how) => (ended = how));
    // The temp file appears when the copy starts; the signal goes then (a tight poll, not a sleep).
    while (ended === undefined && !readdirSync(join(dir, 'out')).some((name) => name.endsWith('.tmp')))
      await new Promise((r) => setImmediate(r));
    expect(ended, `the backup ended before its temp file was seen: ${run.stderr()}`).toBeUndefined();
    run.child.kill('SIGINT');
    expect(await run.exited).toBe('SIGINT');
    expect(readdirSync(join(dir, 'out'))).toEqual([]);
  });
});
