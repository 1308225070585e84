/** The latest runs' state and job on SQLite (the cases: run-states.cases.ts). */
import { sqliteDialect } from '../support/dialects';
import { runStatesSuite } from './run-states.cases';

runStatesSuite(sqliteDialect);
