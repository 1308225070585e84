/** consents forget hands over only what the other consent may read, on PostgreSQL (forget-heirs.cases.ts). */
import { postgresDialect } from '../support/postgres';
import { forgetHeirsSuite } from './forget-heirs.cases';

forgetHeirsSuite(postgresDialect);
