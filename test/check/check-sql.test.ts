/** check-sql.cases.ts on SQLite. */
import { sqliteDialect } from '../support/dialects';
import { checkSqlSuite } from './check-sql.cases';

checkSqlSuite(sqliteDialect);
