import type { RunResult } from 'better-sqlite3';
import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import type { BaseSQLiteDatabase } from 'drizzle-orm/sqlite-core';

/** The drizzle handle over better-sqlite3 (synchronous). */
export type BankdataDb = BetterSQLite3Database;
/** The database or a transaction inside it: what the query helpers run on. */
export type Conn = BaseSQLiteDatabase<'sync', RunResult>;

/**
 * Runs one write unit in one IMMEDIATE transaction: the write lock is taken at BEGIN, so a
 * concurrent writer waits (busy_timeout) instead of failing when a read turns into a write.
 */
export function inWriteTransaction<T>(db: BankdataDb, unit: (tx: Conn) => T): T {
  return db.transaction((tx) => unit(tx), { behavior: 'immediate' });
}
