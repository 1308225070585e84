/** A batch of statement files with one bad file, on PostgreSQL: the same cases as on SQLite (statement-file-batch.cases.ts). */
import { postgresDialect } from '../support/postgres';
import { statementFileBatchSuite } from './statement-file-batch.cases';

statementFileBatchSuite(postgresDialect);
