/** check-sql.cases.ts on PostgreSQL. */
import { postgresDialect } from '../support/postgres';
import { checkSqlSuite } from './check-sql.cases';

checkSqlSuite(postgresDialect);
