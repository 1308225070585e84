/** The stored pacing on SQLite (the cases: pacing.cases.ts). */
import { sqliteDialect } from '../support/dialects';
import { pacingSuite } from './pacing.cases';

pacingSuite(sqliteDialect);
