/** A hostile server, on SQLite: the one case list of hostile-server.cases.ts. */
import { sqliteDialect } from '../support/dialects';
import { hostileServerSuite } from './hostile-server.cases';

hostileServerSuite(sqliteDialect);
