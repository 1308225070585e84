/** The store operations written once, on SQLite (the cases: store-ops.cases.ts). */
import { sqliteDialect } from '../support/dialects';
import { storeOpsSuite } from './store-ops.cases';

storeOpsSuite(sqliteDialect);
