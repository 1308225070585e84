/**
 * The SQLite implementation of the Store (../store.ts): the shared operations (../store-of.ts)
 * bound to a runner over better-sqlite3, and the few SQLite parts. The driver is synchronous;
 * the runner holds the connection for an operation's awaited transaction (../sql-runner.ts), so
 * operations never interleave. `SqliteStore` adds the raw handles for tests only; domain code
 * receives a `Store`.
 */
import type Database from 'better-sqlite3';
import type { BankdataDb } from './db';
import { openDatabase, type OpenDatabaseOptions } from './open';
import { beginSqliteRun, fencedRunner, SqliteRuns } from '../run-work';
import type { Store } from '../store';
import { storeOf } from '../store-of';
import { sqliteExclusive, sqliteRunner } from '../sql-runner';
import { systemClock, type Clock } from '../time';
import { commitTransactionWindow } from './window-commit';

export interface OpenStoreOptions extends OpenDatabaseOptions {
  /** The clock for every `now` left out (tests fix it). */
  now?: Clock;
}

/** The SQLite store with its raw handles, for tests that look at tables directly. */
export interface SqliteStore extends Store {
  readonly db: BankdataDb;
  readonly sqlite: Database.Database;
}

/** Opens the database (writing: creating it, its directory and the schema as needed; see open.ts). */
export async function openStore(path: string, options: OpenStoreOptions = {}): Promise<SqliteStore> {
  const { sqlite, db, path: file } = openDatabase(path, options);
  const runner = sqliteRunner(sqlite);
  // This process's runs: a unit of theirs commits only while its run still holds the lease (a
  // process paused past the lease's expiry and taken over must not write over the new run).
  const runs = new SqliteRuns();
  const unitRunner = (unit: Parameters<SqliteRuns['fenceOf']>[0]) => fencedRunner(runner, runs.fenceOf(unit));
  const store = storeOf({
    path: file,
    dialect: 'sqlite',
    runner,
    exact: sqliteRunner(sqlite, { safeIntegers: true }),
    clock: options.now ?? systemClock,
    close: () =>
      sqliteExclusive(sqlite, () => {
        sqlite.close();
      }),
    // Per-row prepared statements, run synchronously in the runner's transaction: the sync's hot path.
    commitTransactionWindow: (input) => commitTransactionWindow(unitRunner(input), db, sqlite, input),
    unitRunner,
    // One process per run under the single-run lease; PostgreSQL shares a run through its work queue.
    beginRun: (input) => beginSqliteRun(runner, input, runs),
  });
  return { ...store, db, sqlite };
}
