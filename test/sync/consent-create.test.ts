/** Consent creation on SQLite (the cases: consent-create.cases.ts). */
import { sqliteDialect } from '../support/dialects';
import { consentCreateSuite } from './consent-create.cases';

consentCreateSuite(sqliteDialect);
