/** report-sql.cases.ts on SQLite. */
import { sqliteDialect } from '../support/dialects';
import { reportSqlSuite } from './report-sql.cases';

reportSqlSuite(sqliteDialect);
