/**
 * A migration that fails, through the `bankdata` command (docs/security.md "Versions and
 * migrations"): it is rolled back and reported as exit 6 with the migration and SQLite's message;
 * the copy taken before it is taken once per step (a second `db migrate`, or `sync` under cron,
 * reuses it instead of copying the database again); once the step succeeds, only the newest
 * KEPT_MIGRATION_COPIES pre-migration copies stay beside the database.
 */
import { readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJournal } from '../../src/store/migration-versions';
import { KEPT_MIGRATION_COPIES } from '../../src/store/sqlite/backup';
import { MIGRATIONS_DIR } from '../../src/store/sqlite/open';
import { createFixtureStore, type FixtureStore } from '../export/fixture-store';
import { runCliInProcess } from './cli-process';

let fx: FixtureStore;
beforeAll(async () => {
  fx = await createFixtureStore();
});
afterAll(() => fx.cleanup());

const journal = readJournal(MIGRATIONS_DIR);
const last = journal.at(-1)!;
const previous = journal.at(-2)!;

const copies = () =>
  readdirSync(dirname(fx.path))
    .filter((name) => name.startsWith(`${basename(fx.path)}.before-migrate-`))
    .sort();
const migrationRows = () => {
  const db = new Database(fx.path, { readonly: true });
  try {
    return db.prepare('SELECT hash, created_at FROM __drizzle_migrations ORDER BY created_at').all();
  } finally {
    db.close();
  }
};
// Credentials (never used: the migration fails first) so that sync passes its preflight (src/cli/preflight.ts).
const CREDENTIALS = {
  BANKDATA_DATA_BASE_URL: 'http://127.0.0.1:9',
  BANKDATA_CLIENT_ID: 'client',
  BANKDATA_CLIENT_SECRET: 'not-used',
};
const bankdata = (args: string[]) => runCliInProcess(['--db', fx.path, ...args], { cwd: fx.dir, env: CREDENTIALS });

describe('a migration that fails', () => {
  it('is rolled back with exit 6 and its cause; the copy is taken once per step; the newest copies are kept', async () => {
    // The database one migration behind, with what that migration creates already there: the
    // migration's CREATE TABLE fails, as a migration meeting an unforeseen state would.
    const db = new Database(fx.path);
    db.prepare('DELETE FROM __drizzle_migrations WHERE created_at = ?').run(last.when);
    db.close();
    const rowsBefore = migrationRows();
    const step = `${basename(fx.path)}.before-migrate-${previous.tag}-to-${last.tag}.sqlite`;

    const first = await bankdata(['db', 'migrate']);
    expect(first.code, first.stderr).toBe(6);
    const [line, hint, ...rest] = first.stderr.trimEnd().split('\n');
    // The cause is the newest migration's first object, whichever it is (a table, an index, or a
    // column it adds).
    expect(line).toMatch(
      new RegExp(
        `^bankdata: database ${fx.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: migration ${last.tag} failed and was rolled back: ` +
          '((index|table) \\S+ already exists|duplicate column name: \\S+) \\(SQLITE_ERROR\\)$',
      ),
    );
    expect(hint).toBe(
      `hint: the database is as it was before; nothing was applied; the copy taken before is ${join(dirname(fx.path), step)} (kept: the next attempt uses it)`,
    );
    expect(rest).toEqual([]);
    expect(migrationRows()).toEqual(rowsBefore);
    expect(copies()).toEqual([step]);
    const copyStat = statSync(join(dirname(fx.path), step));

    // Attempts again, by hand and by the nightly sync: the same exit, no second copy.
    for (const args of [['db', 'migrate'], ['sync']]) {
      const again = await bankdata(args);
      expect(again.code, again.stderr).toBe(6);
      expect(again.stderr).toContain(`migration ${last.tag} failed and was rolled back`);
      expect(copies()).toEqual([step]);
    }
    expect(statSync(join(dirname(fx.path), step)).ino).toBe(copyStat.ino);
    expect(statSync(join(dirname(fx.path), step)).mtimeMs).toBe(copyStat.mtimeMs);

    // Older copies from earlier steps, oldest first.
    const older = [0, 1, 2, 3].map((i) => {
      const name = `${basename(fx.path)}.before-migrate-000${i}_old-to-000${i + 1}_old.sqlite`;
      writeFileSync(join(dirname(fx.path), name), 'old copy');
      const at = new Date(Date.UTC(2025, 0, 1 + i));
      utimesSync(join(dirname(fx.path), name), at, at);
      return name;
    });

    // The cause removed, the step succeeds with the copy already taken.
    const fixed = new Database(fx.path);
    // What the newest migration creates, dropped (whatever it is: tables, indexes, triggers).
    const created = readFileSync(join(MIGRATIONS_DIR, `${last.tag}.sql`), 'utf8').matchAll(
      /^CREATE (?:UNIQUE )?(TABLE|INDEX|TRIGGER|VIEW) [`"]?(\w+)[`"]?/gm,
    );
    for (const [, kind, name] of [...created].reverse()) fixed.exec(`DROP ${kind} IF EXISTS ${name}`);
    // And the columns it adds to tables that were there before it.
    const added = readFileSync(join(MIGRATIONS_DIR, `${last.tag}.sql`), 'utf8').matchAll(
      /^ALTER TABLE [`"]?(\w+)[`"]? ADD (?:COLUMN )?[`"]?(\w+)[`"]?/gm,
    );
    for (const [, table, column] of [...added].reverse()) fixed.exec(`ALTER TABLE ${table} DROP COLUMN ${column}`);
    fixed.close();
    const done = await bankdata(['db', 'migrate']);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toContain(
      `applied 1 migration(s) to ${fx.path}; backup in ${join(dirname(fx.path), step)} (taken by an earlier attempt)`,
    );
    expect(migrationRows()).toHaveLength(rowsBefore.length + 1);
    const kept = [step, ...older.slice(-(KEPT_MIGRATION_COPIES - 1))].sort();
    expect(copies()).toEqual(kept);
    for (const name of older.slice(0, older.length - (KEPT_MIGRATION_COPIES - 1)))
      expect(done.stderr).toContain(`removed an older pre-migration copy: ${join(dirname(fx.path), name)}`);
    // The copy is the database before the step: one migration fewer, every row of the fixture.
    const copy = new Database(join(dirname(fx.path), step), { readonly: true });
    expect(copy.prepare('SELECT count(*) AS n FROM __drizzle_migrations').get()).toEqual({ n: rowsBefore.length });
    copy.close();
  });
});
