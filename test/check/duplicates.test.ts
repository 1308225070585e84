/** duplicates.cases.ts on SQLite. */
import { sqliteDialect } from '../support/dialects';
import { duplicatesSuite } from './duplicates.cases';

duplicatesSuite(sqliteDialect);
