import type { RunResult } from 'better-sqlite3';
import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import type { BaseSQLiteDatabase } from 'drizzle-orm/sqlite-core';

/** The drizzle handle over better-sqlite3 (synchronous). */
export type BankdataDb = BetterSQLite3Database;
/** The database or a transaction inside it: what the query helpers run on. */
export type Conn = BaseSQLiteDatabase<'sync', RunResult>;
