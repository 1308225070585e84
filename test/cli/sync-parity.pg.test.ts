/** PostgreSQL held to what SQLite is held to: the same cases on PostgreSQL (sync-parity.cases.ts). */
import { postgresDialect } from '../support/postgres';
import { syncParitySuite } from './sync-parity.cases';

syncParitySuite(postgresDialect);
