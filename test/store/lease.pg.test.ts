/** The run lease on PostgreSQL: the same cases as on SQLite (lease.cases.ts). */
import { postgresDialect } from '../support/postgres';
import { leaseSuite } from './lease.cases';

leaseSuite(postgresDialect);
