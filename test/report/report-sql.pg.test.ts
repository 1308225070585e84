/** report-sql.cases.ts on PostgreSQL. */
import { postgresDialect } from '../support/postgres';
import { reportSqlSuite } from './report-sql.cases';

reportSqlSuite(postgresDialect);
