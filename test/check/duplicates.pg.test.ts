/** duplicates.cases.ts on PostgreSQL. */
import { postgresDialect } from '../support/postgres';
import { duplicatesSuite } from './duplicates.cases';

duplicatesSuite(postgresDialect);
