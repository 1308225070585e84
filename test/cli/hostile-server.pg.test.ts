/** A hostile server, on PostgreSQL: the same cases as on SQLite (hostile-server.cases.ts). */
import { postgresDialect } from '../support/postgres';
import { hostileServerSuite } from './hostile-server.cases';

hostileServerSuite(postgresDialect);
