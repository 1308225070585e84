/** consents forget hands over only what the other consent may read, on SQLite (the cases: forget-heirs.cases.ts). */
import { sqliteDialect } from '../support/dialects';
import { forgetHeirsSuite } from './forget-heirs.cases';

forgetHeirsSuite(sqliteDialect);
