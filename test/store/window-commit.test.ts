/** CommitTransactionWindow on SQLite (the cases: window-commit.cases.ts). */
import { sqliteDialect } from '../support/dialects';
import { windowCommitSuite } from './window-commit.cases';

windowCommitSuite(sqliteDialect);
