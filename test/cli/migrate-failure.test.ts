/**
 * A migration that fails, through the `bankdata` command (docs/security.md "Versions and
 * migrations"): it is rolled back and reported as exit 6 with the migration and SQLite's message;
 * one copy is kept per step (a second `db migrate`, or `sync` under cron, copies the database
 * again in its place: the database may have changed since, and a copy from before would lack
 * it); once the step succeeds, only the newest KEPT_MIGRATION_COPIES pre-migration copies stay
 * beside the database.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJournal } from '../../src/store/migration-versions';
import { KEPT_MIGRATION_COPIES } from '../../src/store/sqlite/backup';
import { MIGRATIONS_DIR } from '../../src/store/sqlite/open';
import { createFixtureStore, type FixtureStore } from '../export/fixture-store';
import { createOlderSqliteDatabase } from '../support/older-sqlite';
import { runCliInProcess } from './cli-process';

let fx: FixtureStore;
beforeAll(async () => {
  fx = await createFixtureStore();
});
afterAll(() => fx.cleanup());

const journal = readJournal(MIGRATIONS_DIR);
const last = journal.at(-1)!;
const previous = journal.at(-2)!;

const copiesOf = (database: string) =>
  readdirSync(dirname(database))
    .filter((name) => name.startsWith(`${basename(database)}.before-migrate-`))
    .sort();
const copies = () => copiesOf(fx.path);
/**
 * Makes the next migration fail as one meeting an unforeseen state would, whatever the newest
 * migration holds (a view that is dropped and made again never fails by being there already): its
 * record cannot be written, inside the migration's transaction.
 */
const FAILURE = 'an unforeseen state';
function plantFailure(db: Database.Database): void {
  db.exec(
    `CREATE TRIGGER zz_migration_fails BEFORE INSERT ON __drizzle_migrations BEGIN SELECT RAISE(ABORT, '${FAILURE}'); END`,
  );
}
/** Drops the columns the newest migration adds, so that once the failure is gone it applies again. */
function undoAddedColumns(db: Database.Database): void {
  const text = readFileSync(join(MIGRATIONS_DIR, `${last.tag}.sql`), 'utf8');
  for (const [, table, column] of text.matchAll(/^ALTER TABLE `(\w+)` ADD `(\w+)`/gm))
    db.exec(`ALTER TABLE \`${table}\` DROP COLUMN \`${column}\``);
}
function removeFailure(db: Database.Database): void {
  db.exec('DROP TRIGGER zz_migration_fails');
}
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
  it('is rolled back with exit 6 and its cause; one copy is kept per step; the newest copies are kept', async () => {
    // The database one migration behind, where that migration fails.
    const db = new Database(fx.path);
    db.prepare('DELETE FROM __drizzle_migrations WHERE created_at = ?').run(last.when);
    undoAddedColumns(db);
    plantFailure(db);
    db.close();
    const rowsBefore = migrationRows();
    const step = `${basename(fx.path)}.before-migrate-${previous.tag}-to-${last.tag}.sqlite`;

    const first = await bankdata(['db', 'migrate']);
    expect(first.code, first.stderr).toBe(6);
    const [line, hint, ...rest] = first.stderr.trimEnd().split('\n');
    expect(line).toBe(
      `bankdata: database ${fx.path}: a migration (of ${last.tag}) failed and was rolled back: ${FAILURE} (SQLITE_CONSTRAINT_TRIGGER)`,
    );
    expect(hint).toBe(
      `hint: the database is as it was before; nothing was applied; the copy taken before is ${join(dirname(fx.path), step)} (kept until the next attempt copies the database again)`,
    );
    expect(rest).toEqual([]);
    expect(migrationRows()).toEqual(rowsBefore);
    expect(copies()).toEqual([step]);

    // Attempts again, by hand and by the nightly sync: the same exit, still one copy (taken again in its place).
    for (const args of [['db', 'migrate'], ['sync']]) {
      const again = await bankdata(args);
      expect(again.code, again.stderr).toBe(6);
      expect(again.stderr).toContain(`a migration (of ${last.tag}) failed and was rolled back`);
      expect(copies()).toEqual([step]);
    }

    // Older copies from earlier steps, oldest first.
    const older = [0, 1, 2, 3].map((i) => {
      const name = `${basename(fx.path)}.before-migrate-000${i}_old-to-000${i + 1}_old.sqlite`;
      writeFileSync(join(dirname(fx.path), name), 'old copy');
      const at = new Date(Date.UTC(2025, 0, 1 + i));
      utimesSync(join(dirname(fx.path), name), at, at);
      return name;
    });

    // The cause removed, the step succeeds.
    const fixed = new Database(fx.path);
    removeFailure(fixed);
    fixed.close();
    const done = await bankdata(['db', 'migrate']);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toContain(`applied 1 migration(s) to ${fx.path}; backup in ${join(dirname(fx.path), step)}\n`);
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

  it('the next attempt after one that failed copies the database again: a copy from before lacks what was written since', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bankdata-migrate-again-'));
    try {
      const file = join(dir, 'bankdata.sqlite');
      const consent = (id: string) =>
        `INSERT INTO consents (consent_id, registered_at) VALUES ('${id}', '2026-03-01T00:00:00.000Z')`;
      // A database of the version before, holding a consent, where the newest migration fails.
      const older = createOlderSqliteDatabase(file);
      older.exec(consent('11111111-1111-4111-8111-111111111111'));
      plantFailure(older);
      older.close();
      const migrate = () => runCliInProcess(['--db', file, 'db', 'migrate'], { cwd: dir });
      const step = join(dir, `${basename(file)}.before-migrate-${previous.tag}-to-${last.tag}.sqlite`);

      const first = await migrate();
      expect(first.code, first.stderr).toBe(6);
      expect(copiesOf(file)).toEqual([basename(step)]);

      // Written after that attempt (an older version's sync goes on), then the cause removed.
      const later = new Database(file);
      later.exec(consent('22222222-2222-4222-8222-222222222222'));
      removeFailure(later);
      later.close();

      const done = await migrate();
      expect(done.code, done.stderr).toBe(0);
      expect(copiesOf(file)).toEqual([basename(step)]);
      // The copy is the database just before the step: every consent, the migration not yet applied.
      const copy = new Database(step, { readonly: true });
      try {
        expect(copy.prepare('SELECT consent_id FROM consents ORDER BY consent_id').all()).toEqual([
          { consent_id: '11111111-1111-4111-8111-111111111111' },
          { consent_id: '22222222-2222-4222-8222-222222222222' },
        ]);
        expect(copy.prepare('SELECT count(*) AS n FROM __drizzle_migrations').get()).toEqual({
          n: journal.length - 1,
        });
      } finally {
        copy.close();
      }
      expect(done.stderr).toContain(`applied 1 migration(s) to ${file}; backup in ${step}\n`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
