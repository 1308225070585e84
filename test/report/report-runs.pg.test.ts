/** report-runs.cases.ts on PostgreSQL. */
import { postgresDialect } from '../support/postgres';
import { reportRunsSuite } from './report-runs.cases';

reportRunsSuite(postgresDialect);
