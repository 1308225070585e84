/**
 * A database made by the previous schema (migrations 0000–0005, version 0.1 views) migrates to
 * version 0.2 of the views (0006) keeping every row of every table, with the 0.1 amount text now
 * in amount_text and a number in amount.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store';
import { MIGRATIONS_DIR } from '../../src/store/sqlite/open';
import { createFixtureStore } from '../export/fixture-store';

const dir = mkdtempSync(join(tmpdir(), 'bankdata-migrate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The migrations folder as it was before 0006: the journal cut after 0005_payment_views. */
function migrationsUpTo(tag: string): string {
  const folder = join(dir, 'migrations-' + tag);
  cpSync(MIGRATIONS_DIR, folder, { recursive: true });
  const journalPath = join(folder, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: { tag: string }[] };
  const last = journal.entries.findIndex((e) => e.tag === tag);
  expect(last).toBeGreaterThan(0);
  journal.entries = journal.entries.slice(0, last + 1);
  writeFileSync(journalPath, JSON.stringify(journal));
  return folder;
}

const TABLES_SQL =
  "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> '__drizzle_migrations' ORDER BY name";

describe('SQLite migration 0006 (natural SQL views)', () => {
  it('migrates a 0.1 database with rows forward, keeping every row; amount_text is the 0.1 amount', async () => {
    // Rows of every kind, written by the current store (the tables are the same in 0005 and 0006).
    const fx = await createFixtureStore();
    const oldPath = join(dir, 'old.sqlite');
    const old = new Database(oldPath);
    migrate(drizzle(old), { migrationsFolder: migrationsUpTo('0005_payment_views') });
    const tables = (old.prepare(TABLES_SQL).all() as { name: string }[]).map((t) => t.name);
    expect(tables).toContain('transactions');
    old.pragma('foreign_keys = OFF'); // copied table by table, parents not first
    old.exec(`ATTACH DATABASE '${fx.path.replaceAll("'", "''")}' AS fx`);
    // The old table's columns only: later migrations (0008) add columns to some tables.
    const columns = Object.fromEntries(
      tables.map((t) => [
        t,
        (old.prepare(`PRAGMA main.table_info(${t})`).all() as { name: string }[]).map((c) => `"${c.name}"`).join(', '),
      ]),
    );
    for (const table of tables)
      old.exec(`INSERT INTO main.${table} (${columns[table]}) SELECT ${columns[table]} FROM fx.${table}`);
    old.exec('DETACH DATABASE fx');
    expect(old.pragma('foreign_key_check')).toEqual([]);
    await fx.cleanup();

    // What the 0.1 views said.
    const v01 = {
      transactions: old
        .prepare(
          'SELECT bank, account_id, transaction_id, amount, balance_after, typeof(amount) AS kind FROM v_transactions ORDER BY 1, 2, 3',
        )
        .all(),
      balances: old.prepare('SELECT bank, account_id, type, amount FROM v_balances ORDER BY 1, 2, 3, 4').all(),
      payments: old.prepare('SELECT payment_id, amount FROM v_payments').all(),
    };
    expect((v01.transactions[0] as { kind: string }).kind).toBe('text');
    const counts = (db: Database.Database) =>
      Object.fromEntries(
        tables.map((t) => [t, (db.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n]),
      );
    const before = counts(old);
    const dump = (db: Database.Database) =>
      tables.map((t) => db.prepare(`SELECT ${columns[t]} FROM ${t} ORDER BY 1`).all());
    const rowsBefore = dump(old);
    expect(before.transactions).toBeGreaterThan(10);
    old.close();

    // The store opens it: drizzle applies 0006 and the later migrations.
    const store = await openStore(oldPath);
    try {
      const db = store.sqlite;
      expect(counts(db)).toEqual(before);
      expect(dump(db)).toEqual(rowsBefore);
      const applied = db.prepare('SELECT count(*) AS n FROM __drizzle_migrations').get() as { n: number };
      const journal = JSON.parse(readFileSync(join(MIGRATIONS_DIR, 'meta', '_journal.json'), 'utf8')) as {
        entries: unknown[];
      };
      expect(applied.n).toBe(journal.entries.length);
      expect(
        db
          .prepare(
            'SELECT bank, account_id, transaction_id, amount_text AS amount, balance_after_text AS balance_after, typeof(amount) AS kind FROM v_transactions ORDER BY 1, 2, 3',
          )
          .all(),
      ).toEqual(v01.transactions.map((r) => ({ ...(r as object), kind: 'real' })));
      expect(
        db.prepare('SELECT bank, account_id, type, amount_text AS amount FROM v_balances ORDER BY 1, 2, 3, 4').all(),
      ).toEqual(v01.balances);
      expect(db.prepare('SELECT payment_id, amount_text AS amount FROM v_payments').all()).toEqual(v01.payments);
      expect(db.prepare('SELECT count(*) AS n FROM v_transactions WHERE amount > 1000').get()).toEqual({ n: 1 });
    } finally {
      await store.close();
    }
  });
});
