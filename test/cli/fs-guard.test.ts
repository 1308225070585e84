/** The file findings of the second review on SQLite (test/cli/fs-guard.cases.ts). */
import { sqliteDialect } from '../support/dialects';
import { fsGuardCases } from './fs-guard.cases';

fsGuardCases(sqliteDialect);
