/** status-consents.cases.ts on SQLite. */
import { sqliteDialect } from '../support/dialects';
import { statusConsentsSuite } from './status-consents.cases';

statusConsentsSuite(sqliteDialect);
