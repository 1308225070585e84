/** check-scale.cases.ts on SQLite. */
import { sqliteDialect } from '../support/dialects';
import { checkScaleSuite } from './check-scale.cases';

checkScaleSuite(sqliteDialect);
