/** The sync under faults on PostgreSQL: the same cases and the same world as on SQLite (sync-faults.cases.ts). */
import { postgresDialect } from '../support/postgres';
import { syncFaultsSuite } from './sync-faults.cases';

syncFaultsSuite(postgresDialect);
