/** report-runs.cases.ts on SQLite. */
import { sqliteDialect } from '../support/dialects';
import { reportRunsSuite } from './report-runs.cases';

reportRunsSuite(sqliteDialect);
