/** PostgreSQL held to what SQLite is held to: the SQLite side of the one case list (sync-parity.cases.ts). */
import { sqliteDialect } from '../support/dialects';
import { syncParitySuite } from './sync-parity.cases';

syncParitySuite(sqliteDialect);
