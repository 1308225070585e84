/** An ended consent read again after a failed window, on SQLite (the cases: ended-consent-reread.cases.ts). */
import { sqliteDialect } from '../support/dialects';
import { endedConsentRereadSuite } from './ended-consent-reread.cases';

endedConsentRereadSuite(sqliteDialect);
