/**
 * The PostgreSQL SqlRunner (../sql-runner.ts) over a node-postgres pool: reads with a cursor in
 * batches, integers as BigInt on request (`safeIntegers`). Apart from sql-runner.ts so that the
 * SQLite path never loads node-postgres.
 */
import type { SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import pg from 'pg';
import Cursor from 'pg-cursor';
import type { RunnerOptions, SqlRow, SqlRunner } from '../sql-runner';
import { inPgTransaction } from './open';

const pgDialect = new PgDialect();

const INTEGER_OIDS = new Set([20, 21, 23]); // int8, int2, int4

/** Type parsers for `safeIntegers`: integers as BigInt, every other type as the pool parses it. */
function bigintTypes(pool: pg.Pool) {
  type Parse = (oid: number, format: 'text' | 'binary') => unknown;
  const fallback = ((pool as { options?: { types?: { getTypeParser: Parse } } }).options?.types?.getTypeParser ??
    pg.types.getTypeParser) as Parse;
  return {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
      INTEGER_OIDS.has(oid) && format !== 'binary'
        ? (text: string) => BigInt(text)
        : fallback(oid, format ?? 'text')) as typeof pg.types.getTypeParser,
  };
}

export function postgresRunner(pool: pg.Pool, options: RunnerOptions = {}): SqlRunner {
  const types = options.safeIntegers ? bigintTypes(pool) : undefined;
  return pgRunner(pool, types);
}

type PgTypes = ReturnType<typeof bigintTypes> | undefined;

/** A runner over the pool, or over one connection (inside a transaction). */
function pgRunner(on: pg.Pool | pg.PoolClient, types: PgTypes): SqlRunner {
  const toQuery = (query: SQL) => {
    const { sql, params } = pgDialect.sqlToQuery(query);
    return { text: sql, values: params, ...(types ? { types } : {}) };
  };
  async function* cursorBatches<R>(query: SQL, batchSize: number, rowMode?: 'array'): AsyncGenerator<R[]> {
    const { text, values } = toQuery(query);
    const pooled = on instanceof pg.Pool ? await on.connect() : null;
    const client = pooled ?? (on as pg.PoolClient);
    const cursor = client.query(
      new Cursor<R>(text, values, { ...(rowMode ? { rowMode } : {}), ...(types ? { types } : {}) }),
    );
    try {
      for (;;) {
        const rows = await cursor.read(batchSize);
        if (rows.length === 0) break;
        yield rows;
      }
    } finally {
      await cursor.close();
      pooled?.release();
    }
  }
  return {
    dialect: 'postgres',
    all: async (query) => (await on.query<SqlRow>(toQuery(query))).rows,
    get: async (query) => (await on.query<SqlRow>(toQuery(query))).rows[0],
    run: async (query) => {
      await on.query(toQuery(query));
    },
    changes: async (query) => (await on.query(toQuery(query))).rowCount ?? 0,
    iterate: (query, batchSize = 1000) => cursorBatches<SqlRow>(query, batchSize),
    iterateArrays: (query, batchSize = 1000) => cursorBatches<unknown[]>(query, batchSize, 'array'),
    columns: async (query) => {
      const { text, values } = toQuery(query);
      const result = await on.query({ text: `SELECT * FROM (${text}) AS q LIMIT 0`, values });
      return result.fields.map((f) => f.name);
    },
    transaction: async (work) => {
      if (!(on instanceof pg.Pool)) return work(pgRunner(on, types));
      return inPgTransaction(on, (client) => work(pgRunner(client, types)));
    },
    snapshot: async (work) => {
      if (!(on instanceof pg.Pool)) return work(pgRunner(on, types));
      // One connection, its snapshot taken by its first statement: every read and cursor of `work` on it.
      return inPgTransaction(on, (client) => work(pgRunner(client, types)), {
        begin: 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY',
      });
    },
  };
}
