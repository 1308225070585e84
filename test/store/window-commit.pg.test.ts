/** CommitTransactionWindow on PostgreSQL: the same cases as on SQLite (window-commit.cases.ts). */
import { postgresDialect } from '../support/postgres';
import { windowCommitSuite } from './window-commit.cases';

windowCommitSuite(postgresDialect);
