/** The sync under faults on SQLite (the cases: sync-faults.cases.ts). */
import { sqliteDialect } from '../support/dialects';
import { syncFaultsSuite } from './sync-faults.cases';

syncFaultsSuite(sqliteDialect);
