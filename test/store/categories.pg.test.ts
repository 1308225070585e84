/** Categories and payees on PostgreSQL: the same cases as on SQLite (categories.cases.ts). */
import { postgresDialect } from '../support/postgres';
import { categoriesSuite } from './categories.cases';

categoriesSuite(postgresDialect);
