/** The stored pacing on PostgreSQL: the same cases as on SQLite (pacing.cases.ts). */
import { postgresDialect } from '../support/postgres';
import { pacingSuite } from './pacing.cases';

pacingSuite(postgresDialect);
