/** check-scale.cases.ts on PostgreSQL. */
import { postgresDialect } from '../support/postgres';
import { checkScaleSuite } from './check-scale.cases';

checkScaleSuite(postgresDialect);
