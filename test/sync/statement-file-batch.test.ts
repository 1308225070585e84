/** A batch of statement files with one bad file, on SQLite (the cases: statement-file-batch.cases.ts). */
import { sqliteDialect } from '../support/dialects';
import { statementFileBatchSuite } from './statement-file-batch.cases';

statementFileBatchSuite(sqliteDialect);
