/**
 * One way to run a drizzle `sql` query on either dialect, for the store's modules whose SQL reads
 * the public views (reports, export, continuity): the views have the same names and columns on
 * SQLite and PostgreSQL (docs/postgres.md), so such a query is written once. Rows come back as
 * plain objects keyed by column; callers in src/store parse them (zod) at the boundary. Domain
 * code never sees a runner: it calls the Store's operations.
 *
 * Values differ by driver in one known way: PostgreSQL `numeric` arrives as a string (exact),
 * integers as numbers (the pool's parser, src/store/pg/open.ts), SQLite integers as numbers. With
 * `safeIntegers` every integer of either dialect is a BigInt (PostgreSQL int2, int4 and int8 as
 * SQLite's 64-bit integers), so a row reads the same on both; parse with that in mind.
 */
import type Database from 'better-sqlite3';
import { SQLiteSyncDialect } from 'drizzle-orm/sqlite-core';
import type { SQL } from 'drizzle-orm';

export type SqlRow = Record<string, unknown>;

export interface SqlRunner {
  readonly dialect: 'sqlite' | 'postgres';
  all(query: SQL): Promise<SqlRow[]>;
  get(query: SQL): Promise<SqlRow | undefined>;
  run(query: SQL): Promise<void>;
  /**
   * Streams the rows in batches, never holding the whole result: a cursor on PostgreSQL, the
   * statement's iterator on SQLite (its connection is busy until the iteration ends).
   */
  iterate(query: SQL, batchSize?: number): AsyncGenerator<SqlRow[]>;
  /** As `iterate`, each row an array of values in the select list's order. */
  iterateArrays(query: SQL, batchSize?: number): AsyncGenerator<unknown[][]>;
  /** The names of the query's result columns, in order (the query is not run for its rows). */
  columns(query: SQL): Promise<string[]>;
  /**
   * Runs `work` in one transaction (SQLite: BEGIN IMMEDIATE; PostgreSQL: one connection of the
   * pool), committed when it resolves and rolled back when it throws; `work` uses the runner it
   * is given.
   */
  transaction<T>(work: (runner: SqlRunner) => Promise<T>): Promise<T>;
}

export interface RunnerOptions {
  /** Every integer as a BigInt (exact beyond 2^53), on both dialects. */
  safeIntegers?: boolean;
}

/**
 * SQLite's page cache while a streaming read runs, in KiB: SQLite's own default (2 MB), not the
 * 16 MB better-sqlite3 builds it with. A stream reads each page about once (an export walks an
 * index in its order, docs/benchmarks.md "Export"), so the bigger cache would only hold pages the
 * OS caches anyway, in the process's own memory.
 */
const STREAM_CACHE_KIB = 2048;

const sqliteDialect = new SQLiteSyncDialect();

export function sqliteRunner(sqlite: Database.Database, options: RunnerOptions = {}): SqlRunner {
  const prepare = (query: SQL) => {
    const { sql, params } = sqliteDialect.sqlToQuery(query);
    const statement = sqlite.prepare(sql);
    if (options.safeIntegers) statement.safeIntegers(true);
    return { statement, params };
  };
  /** The statement's rows in batches, read with the streaming page cache (STREAM_CACHE_KIB). */
  async function* batches<R>(rows: () => IterableIterator<R>, batchSize: number): AsyncGenerator<R[]> {
    // Set before the statement runs (a busy connection takes no pragma), put back after it.
    const cacheSize = sqlite.pragma('cache_size', { simple: true }) as number;
    sqlite.pragma(`cache_size = -${STREAM_CACHE_KIB}`);
    try {
      let batch: R[] = [];
      for (const row of rows()) {
        batch.push(row);
        if (batch.length >= batchSize) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length > 0) yield batch;
    } finally {
      sqlite.pragma(`cache_size = ${cacheSize}`);
    }
  }
  const runner: SqlRunner = {
    dialect: 'sqlite',
    all: async (query) => {
      const { statement, params } = prepare(query);
      return statement.all(...params) as SqlRow[];
    },
    get: async (query) => {
      const { statement, params } = prepare(query);
      return statement.get(...params) as SqlRow | undefined;
    },
    run: async (query) => {
      const { statement, params } = prepare(query);
      statement.run(...params);
    },
    iterate: (query, batchSize = 1000) => {
      const { statement, params } = prepare(query);
      return batches(() => statement.iterate(...params) as IterableIterator<SqlRow>, batchSize);
    },
    iterateArrays: (query, batchSize = 1000) => {
      const { statement, params } = prepare(query);
      return batches(() => statement.raw(true).iterate(...params) as IterableIterator<unknown[]>, batchSize);
    },
    columns: async (query) =>
      prepare(query)
        .statement.columns()
        .map((c) => c.name),
    transaction: async (work) => {
      sqlite.exec('BEGIN IMMEDIATE');
      try {
        const result = await work(runner);
        sqlite.exec('COMMIT');
        return result;
      } catch (error) {
        if (sqlite.inTransaction) sqlite.exec('ROLLBACK');
        throw error;
      }
    },
  };
  return runner;
}
