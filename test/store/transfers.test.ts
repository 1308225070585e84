/** Own-account transfers on SQLite (the cases: transfers.cases.ts). */
import { sqliteDialect } from '../support/dialects';
import { transfersSuite } from './transfers.cases';

transfersSuite(sqliteDialect);
