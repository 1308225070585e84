/** The store operations written once, on PostgreSQL: the same cases as on SQLite (store-ops.cases.ts). */
import { postgresDialect } from '../support/postgres';
import { storeOpsSuite } from './store-ops.cases';

storeOpsSuite(postgresDialect);
