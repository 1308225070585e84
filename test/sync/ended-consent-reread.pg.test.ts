/** An ended consent read again after a failed window, on PostgreSQL (the cases: ended-consent-reread.cases.ts). */
import { postgresDialect } from '../support/postgres';
import { endedConsentRereadSuite } from './ended-consent-reread.cases';

endedConsentRereadSuite(postgresDialect);
