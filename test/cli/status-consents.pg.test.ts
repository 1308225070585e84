/** status-consents.cases.ts on PostgreSQL. */
import { postgresDialect } from '../support/postgres';
import { statusConsentsSuite } from './status-consents.cases';

statusConsentsSuite(postgresDialect);
