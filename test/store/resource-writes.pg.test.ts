/** Resource writes on PostgreSQL: the same cases as on SQLite (resource-writes.cases.ts). */
import { postgresDialect } from '../support/postgres';
import { resourceWritesSuite } from './resource-writes.cases';

resourceWritesSuite(postgresDialect);
