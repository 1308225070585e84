/** A consent's outcome is its own, on PostgreSQL (the cases: consent-outcome-own.cases.ts). */
import { postgresDialect } from '../support/postgres';
import { consentOutcomeOwnSuite } from './consent-outcome-own.cases';

consentOutcomeOwnSuite(postgresDialect);
