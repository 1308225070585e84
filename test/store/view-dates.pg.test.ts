/** view-dates.cases.ts on PostgreSQL. */
import { postgresDialect } from '../support/postgres';
import { viewDatesSuite } from './view-dates.cases';

viewDatesSuite(postgresDialect);
