/** ofx-snapshot.cases.ts on SQLite. */
import { sqliteDialect } from '../support/dialects';
import { ofxSnapshotSuite } from './ofx-snapshot.cases';

ofxSnapshotSuite(sqliteDialect);
