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
  /** Runs a write and returns how many rows it changed. */
  changes(query: SQL): Promise<number>;
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
  transaction<T>(work: (runner: SqlRunner) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /**
   * Runs `work` on one read snapshot: every read through the runner it is given, streams
   * included, sees the database as it was when the snapshot began, whatever another connection or
   * process commits meanwhile (a sync). For reads only. SQLite: a read transaction on this
   * connection, its snapshot taken at once, holding the connection (the gate) until `work`
   * settles; PostgreSQL: REPEATABLE READ, READ ONLY, on one connection of the pool (a cursor on it
   * too). Inside a transaction it joins it.
   */
  snapshot<T>(work: (runner: SqlRunner) => Promise<T>): Promise<T>;
}

export interface TransactionOptions {
  /**
   * A transaction that writes many rows into tables with change-log triggers (a sync's window,
   * the categories' decisions). SQLite: from then on the connection keeps its temporary files in
   * memory (`temp_store = MEMORY`, set before BEGIN). Each such insert writes two tables (the row
   * and its change-log entry, docs/changes.md), so SQLite journals the statement, and to a
   * temporary file that was some 260 small writes per request of a sync and two thirds of its
   * insert time (docs/benchmarks.md "Sync backfill and nightly runs"). Connections that only read
   * much and write little (`bankdata check`, report, export) keep the default, files: their sorts
   * over a million rows stay out of memory. PostgreSQL: no effect.
   */
  manyRows?: boolean;
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

/**
 * One queue per SQLite connection. better-sqlite3 runs a statement at once, but an operation
 * written over the runner awaits between the statements of its transaction: without the queue a
 * statement of another operation could run inside that open transaction (and be committed or
 * rolled back with it). So a transaction, a stream and a synchronous unit (`sqliteExclusive`)
 * hold the connection until they settle, and a top-level statement waits while it is held; when
 * nothing holds it, a statement runs at once, as before.
 */
interface Gate {
  held: boolean;
  waiting: (() => void)[];
}

const gates = new WeakMap<Database.Database, Gate>();
/** Connections set to `temp_store = MEMORY` by a transaction of many rows (TransactionOptions). */
const memoryTempStore = new WeakSet<Database.Database>();

function gateOf(sqlite: Database.Database): Gate {
  let gate = gates.get(sqlite);
  if (!gate) {
    gate = { held: false, waiting: [] };
    gates.set(sqlite, gate);
  }
  return gate;
}

/** Waits for the connection (first come, first served) and holds it; returns the release. */
async function acquire(gate: Gate): Promise<() => void> {
  if (gate.held) await new Promise<void>((resolve) => gate.waiting.push(resolve));
  gate.held = true;
  return () => {
    const next = gate.waiting.shift();
    // Handed straight to the next waiter: nothing can slip in between.
    if (next) next();
    else gate.held = false;
  };
}

/** Runs `work` holding the connection: after any operation that holds it, before any that asks later. */
async function holding<T>(gate: Gate, work: () => T | Promise<T>): Promise<T> {
  const release = await acquire(gate);
  try {
    return await work();
  } finally {
    release();
  }
}

/**
 * Runs a unit on the raw SQLite connection in its turn, never inside another operation's
 * transaction or stream. Its one caller is the store's `close` (sqlite/sqlite-store.ts); the
 * window commit and the lease run in `runner.transaction`, forget through the store operation.
 * A unit must not call the outer runner: that waits for the connection this unit holds.
 */
export function sqliteExclusive<T>(sqlite: Database.Database, unit: () => T | Promise<T>): Promise<T> {
  return holding(gateOf(sqlite), unit);
}

/** How many prepared statements a runner keeps (by text): a store sends the same few dozen again and again. */
const STATEMENT_CACHE = 256;

export function sqliteRunner(sqlite: Database.Database, options: RunnerOptions = {}): SqlRunner {
  const gate = gateOf(sqlite);
  const cache = new Map<string, Database.Statement>();
  const render = (query: SQL) => sqliteDialect.sqlToQuery(query);
  /** A statement for all / get / run, prepared once per text (never one in raw mode or iterating). */
  const cached = (query: SQL) => {
    const { sql, params } = render(query);
    let statement = cache.get(sql);
    if (!statement) {
      statement = sqlite.prepare(sql);
      if (options.safeIntegers) statement.safeIntegers(true);
      if (cache.size >= STATEMENT_CACHE) cache.clear();
      cache.set(sql, statement);
    }
    return { statement, params };
  };
  const prepare = (query: SQL) => {
    const { sql, params } = render(query);
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
  /** A stream holds the connection from its first batch to its end (the statement keeps it busy). */
  async function* held<R>(stream: () => AsyncGenerator<R>): AsyncGenerator<R> {
    const release = await acquire(gate);
    try {
      yield* stream();
    } finally {
      release();
    }
  }
  /** Now when the connection is free (a statement runs whole before anything else), else in turn. */
  const statement = <T>(run: () => Promise<T>): Promise<T> => (gate.held ? holding(gate, run) : run());

  /** The runner inside a transaction (or a held connection): statements run directly. */
  const direct: SqlRunner = {
    dialect: 'sqlite',
    all: async (query) => {
      const { statement, params } = cached(query);
      return statement.all(...params) as SqlRow[];
    },
    get: async (query) => {
      const { statement, params } = cached(query);
      return statement.get(...params) as SqlRow | undefined;
    },
    run: async (query) => {
      const { statement, params } = cached(query);
      statement.run(...params);
    },
    changes: async (query) => {
      const { statement, params } = cached(query);
      return statement.run(...params).changes;
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
    // Already in the transaction (or holding the connection): `work` joins it.
    transaction: (work) => work(direct),
    snapshot: (work) => work(direct),
  };

  return {
    dialect: 'sqlite',
    all: (query) => statement(() => direct.all(query)),
    get: (query) => statement(() => direct.get(query)),
    run: (query) => statement(() => direct.run(query)),
    changes: (query) => statement(() => direct.changes(query)),
    iterate: (query, batchSize) => held(() => direct.iterate(query, batchSize)),
    iterateArrays: (query, batchSize) => held(() => direct.iterateArrays(query, batchSize)),
    columns: (query) => statement(() => direct.columns(query)),
    transaction: (work, options) =>
      holding(gate, async () => {
        // Outside any transaction (SQLite refuses the change inside one): the gate is held.
        if (options?.manyRows && !memoryTempStore.has(sqlite)) {
          sqlite.pragma('temp_store = MEMORY');
          memoryTempStore.add(sqlite);
        }
        return inSqliteTransaction(sqlite, 'BEGIN IMMEDIATE', () => work(direct));
      }),
    snapshot: (work) =>
      holding(gate, () => {
        // The streams read in it are closed before it ends: one its reader left open (an output
        // that failed mid-stream: the pipeline rejects before it closes its source) keeps the
        // connection busy, and SQLite then refuses the ROLLBACK.
        const streams = new Set<AsyncGenerator<unknown>>();
        const opened = <R>(stream: AsyncGenerator<R>): AsyncGenerator<R> => (streams.add(stream), stream);
        const inner: SqlRunner = {
          ...direct,
          iterate: (query, batchSize) => opened(direct.iterate(query, batchSize)),
          iterateArrays: (query, batchSize) => opened(direct.iterateArrays(query, batchSize)),
          transaction: (w) => w(inner),
          snapshot: (w) => w(inner),
        };
        // A deferred transaction reads one snapshot from its first read on (WAL: a writer in
        // another connection or process commits meanwhile, unseen here); that read is made now.
        return inSqliteTransaction(sqlite, 'BEGIN', async () => {
          sqlite.prepare('SELECT count(*) FROM sqlite_master').get();
          try {
            return await work(inner);
          } finally {
            for (const stream of streams) await stream.return(undefined);
          }
        });
      }),
  };
}

/** `work` inside a transaction begun with `begin`: committed when it resolves, rolled back when it throws. */
async function inSqliteTransaction<T>(sqlite: Database.Database, begin: string, work: () => Promise<T>): Promise<T> {
  sqlite.exec(begin);
  try {
    const result = await work();
    sqlite.exec('COMMIT');
    return result;
  } catch (error) {
    // The work's own error is the one raised: a ROLLBACK SQLite refuses does not hide it.
    try {
      if (sqlite.inTransaction) sqlite.exec('ROLLBACK');
    } catch {
      // Left as it is: the connection's next BEGIN says so.
    }
    throw error;
  }
}
