/** The run lease on SQLite (the cases: lease.cases.ts). */
import { sqliteDialect } from '../support/dialects';
import { leaseSuite } from './lease.cases';

leaseSuite(sqliteDialect);
