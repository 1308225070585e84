/** The alert store on SQLite (the cases: alerts.cases.ts). */
import { sqliteDialect } from '../support/dialects';
import { alertsSuite } from './alerts.cases';

alertsSuite(sqliteDialect);
