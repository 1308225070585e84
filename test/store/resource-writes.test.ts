/** Resource writes on SQLite (the cases: resource-writes.cases.ts). */
import { sqliteDialect } from '../support/dialects';
import { resourceWritesSuite } from './resource-writes.cases';

resourceWritesSuite(sqliteDialect);
