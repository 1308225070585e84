/** Own-account transfers on PostgreSQL: the same cases as on SQLite (transfers.cases.ts). */
import { postgresDialect } from '../support/postgres';
import { transfersSuite } from './transfers.cases';

transfersSuite(postgresDialect);
