/** The alert store on PostgreSQL: the same cases as on SQLite (alerts.cases.ts). */
import { postgresDialect } from '../support/postgres';
import { alertsSuite } from './alerts.cases';

alertsSuite(postgresDialect);
