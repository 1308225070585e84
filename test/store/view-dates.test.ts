/** view-dates.cases.ts on SQLite. */
import { sqliteDialect } from '../support/dialects';
import { viewDatesSuite } from './view-dates.cases';

viewDatesSuite(sqliteDialect);
