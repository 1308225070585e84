/** kill -9 of a `bankdata sync` on PostgreSQL: the same cases and the same rows as on SQLite (sync-crash.cases.ts). */
import { postgresDialect } from '../support/postgres';
import { syncCrashSuite } from './sync-crash.cases';

syncCrashSuite(postgresDialect);
