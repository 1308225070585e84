/** The latest runs' state and job on PostgreSQL: the same cases as on SQLite (run-states.cases.ts). */
import { postgresDialect } from '../support/postgres';
import { runStatesSuite } from './run-states.cases';

runStatesSuite(postgresDialect);
