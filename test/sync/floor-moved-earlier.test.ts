/** The history floor moved earlier between runs, on SQLite (the cases: floor-moved-earlier.cases.ts). */
import { sqliteDialect } from '../support/dialects';
import { floorMovedEarlierSuite } from './floor-moved-earlier.cases';

floorMovedEarlierSuite(sqliteDialect);
