/** Categories and payees on SQLite (the cases: categories.cases.ts). */
import { sqliteDialect } from '../support/dialects';
import { categoriesSuite } from './categories.cases';

categoriesSuite(sqliteDialect);
