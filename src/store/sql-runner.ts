/**
 * One way to run a drizzle `sql` query on either dialect, for the store's modules whose SQL reads
 * the public views (reports, export, continuity): the views have the same names and columns on
 * SQLite and PostgreSQL (docs/postgres.md), so such a query is written once. Rows come back as
 * plain objects keyed by column; callers in src/store parse them (zod) at the boundary. Domain
 * code never sees a runner: it calls the Store's operations.
 *
 * Values differ by driver in one known way: PostgreSQL `numeric` and `bigint` arrive as strings
 * (exact), SQLite integers as numbers (or BigInt with `safeIntegers`). Parse with that in mind.
 */
import type Database from 'better-sqlite3';
import { PgDialect } from 'drizzle-orm/pg-core';
import { SQLiteSyncDialect } from 'drizzle-orm/sqlite-core';
import type { SQL } from 'drizzle-orm';
import type pg from 'pg';
import Cursor from 'pg-cursor';

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
}

const sqliteDialect = new SQLiteSyncDialect();
const pgDialect = new PgDialect();

export function sqliteRunner(sqlite: Database.Database, options: { safeIntegers?: boolean } = {}): SqlRunner {
  const prepare = (query: SQL) => {
    const { sql, params } = sqliteDialect.sqlToQuery(query);
    const statement = sqlite.prepare(sql);
    if (options.safeIntegers) statement.safeIntegers(true);
    return { statement, params };
  };
  return {
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
    async *iterate(query, batchSize = 1000) {
      const { statement, params } = prepare(query);
      let batch: SqlRow[] = [];
      for (const row of statement.iterate(...params) as IterableIterator<SqlRow>) {
        batch.push(row);
        if (batch.length >= batchSize) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length > 0) yield batch;
    },
  };
}

export function postgresRunner(pool: pg.Pool): SqlRunner {
  const toQuery = (query: SQL) => {
    const { sql, params } = pgDialect.sqlToQuery(query);
    return { text: sql, values: params };
  };
  return {
    dialect: 'postgres',
    all: async (query) => (await pool.query<SqlRow>(toQuery(query))).rows,
    get: async (query) => (await pool.query<SqlRow>(toQuery(query))).rows[0],
    run: async (query) => {
      await pool.query(toQuery(query));
    },
    async *iterate(query, batchSize = 1000) {
      const { text, values } = toQuery(query);
      const client = await pool.connect();
      const cursor = client.query(new Cursor<SqlRow>(text, values));
      try {
        for (;;) {
          const rows = await cursor.read(batchSize);
          if (rows.length === 0) break;
          yield rows;
        }
      } finally {
        await cursor.close();
        client.release();
      }
    },
  };
}
