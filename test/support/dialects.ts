/**
 * One store suite, both dialects. A suite is written once against `Store` (and `queryRows` for
 * the views a test reads back) and run by two thin files: `x.test.ts` with `sqliteDialect` and
 * `x.pg.test.ts` with `postgresDialect` from ./postgres.ts (a file named *.pg.test.ts makes the
 * run start the server), so `npm test` runs each case once per dialect. Cases whose behaviour is
 * one dialect's own (SQLite's exit-4 lease, PostgreSQL's work queue) stay in that dialect's
 * files. This module never imports ./postgres.ts, which is for the *.pg.test.ts files.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe } from 'vitest';
import { openDatabaseStore, type Clock, type SqliteStore, type Store } from '../../src/store';
import type { PgStore } from '../../src/store/pg/pg-store';

export type Dialect = 'sqlite' | 'postgres';

export interface DialectSetup {
  dialect: Dialect;
  /** describe() for this dialect: PostgreSQL's skips (or fails under CI) without a server. */
  describe(name: string, body: () => void): void;
  /** Where a fresh, empty database of this dialect is: a file path or a postgres:// URL. */
  location(): Promise<string>;
}

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

export const sqliteDialect: DialectSetup = {
  dialect: 'sqlite',
  describe: (name, body) => describe(`${name} [sqlite]`, body),
  location: () => {
    const dir = mkdtempSync(join(tmpdir(), 'bankdata-dialect-'));
    dirs.push(dir);
    return Promise.resolve(join(dir, 'db', 'bankdata.sqlite'));
  },
};

export type StoreSuite = (setup: DialectSetup) => void;

/** The context a suite's tests get: the dialect and a fresh store of it, closed after each test. */
export interface DialectContext {
  dialect: Dialect;
  open(options?: { now?: Clock }): Promise<Store>;
  /** A second store on the database of a store `open` gave: another connection, as another process's would be. */
  reopen(store: Store, options?: { now?: Clock }): Promise<Store>;
}

/** Defines a suite over both dialects; the returned function runs it for one. */
export function storeSuite(name: string, body: (d: DialectContext) => void): StoreSuite {
  return (setup) =>
    setup.describe(name, () => {
      const opened: Store[] = [];
      const locations = new Map<Store, string>();
      afterEach(async () => {
        for (const store of opened.splice(0)) await store.close();
        locations.clear();
      });
      body({
        dialect: setup.dialect,
        async open(options = {}) {
          const location = await setup.location();
          const store = await openDatabaseStore(location, options);
          opened.push(store);
          locations.set(store, location);
          return store;
        },
        async reopen(first, options = {}) {
          const location = locations.get(first);
          if (location === undefined) throw new Error('reopen: a store this suite did not open');
          const store = await openDatabaseStore(location, options);
          opened.push(store);
          return store;
        },
      });
    });
}

export type Row = Record<string, unknown>;

/** `?` placeholders as PostgreSQL's `$1, $2, …` (the tests' SQL has no `?` inside its strings). */
const numbered = (sql: string): string => {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
};

/** PostgreSQL's numeric (text in node-pg) read as SQLite reads its REAL: a number. */
const NUMERIC_OID = 1700;

/**
 * Rows of a query over the public views (or tables) of either store, with `?` placeholders. Values
 * come as SQLite gives them: integers and computed numbers as numbers, texts as texts, byte for byte.
 */
export async function queryRows<T extends Row = Row>(store: Store, sql: string, ...params: unknown[]): Promise<T[]> {
  if (store.dialect === 'sqlite') return (store as SqliteStore).sqlite.prepare(sql).all(...params) as T[];
  const result = await (store as PgStore).pool.query<Row>(numbered(sql), params);
  const numeric = new Set(result.fields.filter((f) => f.dataTypeID === NUMERIC_OID).map((f) => f.name));
  return result.rows.map(
    (row) =>
      Object.fromEntries(
        Object.entries(row).map(([k, v]) => [k, numeric.has(k) && typeof v === 'string' ? Number(v) : v]),
      ) as T,
  );
}

/** Runs a statement that returns no rows (an UPDATE a test uses to set up a state), `?` placeholders. */
export async function execute(store: Store, sql: string, ...params: unknown[]): Promise<void> {
  if (store.dialect === 'sqlite') {
    (store as SqliteStore).sqlite.prepare(sql).run(...params);
    return;
  }
  await (store as PgStore).pool.query(numbered(sql), params);
}

/** The first row of `queryRows`, or undefined. */
export async function queryRow<T extends Row = Row>(
  store: Store,
  sql: string,
  ...params: unknown[]
): Promise<T | undefined> {
  return (await queryRows<T>(store, sql, ...params))[0];
}
