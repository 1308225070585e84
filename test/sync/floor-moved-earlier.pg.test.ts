/** The history floor moved earlier between runs, on PostgreSQL (the cases: floor-moved-earlier.cases.ts). */
import { postgresDialect } from '../support/postgres';
import { floorMovedEarlierSuite } from './floor-moved-earlier.cases';

floorMovedEarlierSuite(postgresDialect);
