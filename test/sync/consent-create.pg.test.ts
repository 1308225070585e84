/** Consent creation on PostgreSQL: the same cases as on SQLite (consent-create.cases.ts). */
import { postgresDialect } from '../support/postgres';
import { consentCreateSuite } from './consent-create.cases';

consentCreateSuite(postgresDialect);
