/** A consent's outcome is its own, on SQLite (the cases: consent-outcome-own.cases.ts). */
import { sqliteDialect } from '../support/dialects';
import { consentOutcomeOwnSuite } from './consent-outcome-own.cases';

consentOutcomeOwnSuite(sqliteDialect);
