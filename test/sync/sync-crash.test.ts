/** kill -9 of a `bankdata sync` on SQLite (the cases: sync-crash.cases.ts). */
import { sqliteDialect } from '../support/dialects';
import { syncCrashSuite } from './sync-crash.cases';

syncCrashSuite(sqliteDialect);
