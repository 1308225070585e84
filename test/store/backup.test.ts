/**
 * The online backup of a SQLite database (src/store/sqlite/backup.ts `backupDatabase`: `bankdata
 * db backup`, and the copy `db migrate` and `sync` take before a migration; docs/security.md
 * "Versions and migrations") while other connections commit. SQLite's backup API copies 100
 * pages a step and, unless the copy holds one read snapshot across its steps, starts again from
 * page 1 whenever another connection wrote the source between two steps: under a sync committing
 * that often, the copy of a large database never finished (found by review).
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect, it } from 'vitest';
import { openDatabaseStore } from '../../src/store';
import { backupDatabase } from '../../src/store/sqlite/backup';
import { tempDir } from './helpers';

const BETTER_SQLITE3 = createRequire(import.meta.url).resolve('better-sqlite3');

/** A writer in a process of its own: commits one row after another until it is killed. */
const CHILD_WRITER = `
const Database = require(process.argv[1]);
const db = new Database(process.argv[2]);
db.pragma('busy_timeout = 10000');
const insert = db.prepare("INSERT INTO zz_writes (writer) VALUES ('child')");
insert.run();
process.stdout.write('committing\\n');
for (;;) insert.run();
`;

const rowsOf = (file: string, writer: string): number => {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM zz_writes WHERE writer = ?').get(writer) as { n: number }).n;
  } finally {
    db.close();
  }
};

it('completes while other connections keep committing, and the copy is one whole, consistent snapshot', async () => {
  const dir = tempDir();
  const path = join(dir, 'bankdata.sqlite');
  await (await openDatabaseStore(path)).close();
  // About 1000 pages of 4 KiB: ten steps of the backup API and more, each of which another
  // connection's commit in between would send back to page 1.
  const setup = new Database(path);
  setup.exec('CREATE TABLE zz_filler (b BLOB); CREATE TABLE zz_writes (id INTEGER PRIMARY KEY, writer TEXT NOT NULL)');
  const fill = setup.prepare('INSERT INTO zz_filler VALUES (randomblob(4000))');
  setup.transaction(() => {
    for (let i = 0; i < 1000; i++) fill.run();
  })();
  setup.close();

  const child = spawn(process.execPath, ['-e', CHILD_WRITER, BETTER_SQLITE3, path], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // A writer in this process too, on a connection of its own: one commit every turn of the event
  // loop, so between every two steps of the copy (each step waits for the next turn).
  const near = new Database(path);
  near.pragma('busy_timeout = 10000');
  const insertNear = near.prepare("INSERT INTO zz_writes (writer) VALUES ('near')");
  let writing = true;
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout.once('data', () => resolve());
      child.once('exit', (code) => reject(new Error(`the writer process ended (${code}) before committing`)));
    });
    const before = { child: rowsOf(path, 'child'), near: rowsOf(path, 'near') };
    const tick = () => {
      if (!writing) return;
      insertNear.run();
      setImmediate(tick);
    };
    setImmediate(tick);

    const target = join(dir, 'backup.sqlite');
    let safety: NodeJS.Timeout | undefined;
    // Only a bound on a failure (a copy that starts again for ever), never a measure of success.
    const outcome = await Promise.race([
      backupDatabase(path, target).then(() => 'copied'),
      new Promise<string>((resolve) => (safety = setTimeout(() => resolve('still copying after 60 s'), 60_000))),
    ]);
    clearTimeout(safety);
    writing = false;
    expect(outcome).toBe('copied');

    const copy = new Database(target, { readonly: true });
    try {
      expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
      expect((copy.prepare('SELECT count(*) AS n FROM zz_filler').get() as { n: number }).n).toBe(1000);
      // Every row committed before the copy began, and no gap: one snapshot, not pages of several.
      const held = copy.prepare('SELECT count(*) AS n, max(id) AS top FROM zz_writes').get() as {
        n: number;
        top: number;
      };
      expect(held.n).toBe(held.top);
      const copied = (writer: string) =>
        (copy.prepare('SELECT count(*) AS n FROM zz_writes WHERE writer = ?').get(writer) as { n: number }).n;
      expect(copied('child')).toBeGreaterThanOrEqual(before.child);
      expect(copied('near')).toBeGreaterThanOrEqual(before.near);
      // The database moved on while it was copied (this process's writer committed between the
      // copy's steps) ...
      expect(rowsOf(path, 'near')).toBeGreaterThan(copied('near'));
      // ... and the other process still commits after it: the copy never held it out.
      const seen = rowsOf(path, 'child');
      while (rowsOf(path, 'child') === seen) await new Promise((resolve) => setTimeout(resolve, 10));
    } finally {
      copy.close();
    }
  } finally {
    writing = false;
    near.close();
    if (child.exitCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGTERM');
    await exited;
  }
});
