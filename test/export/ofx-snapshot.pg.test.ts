/** ofx-snapshot.cases.ts on PostgreSQL. */
import { postgresDialect } from '../support/postgres';
import { ofxSnapshotSuite } from './ofx-snapshot.cases';

ofxSnapshotSuite(postgresDialect);
