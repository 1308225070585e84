/** The change feed on SQLite (the cases: change-feed.cases.ts). */
import { sqliteDialect } from '../support/dialects';
import { changeFeedCrashSuite, changeFeedSuite } from './change-feed.cases';

changeFeedSuite(sqliteDialect);
changeFeedCrashSuite(sqliteDialect);
