/** The pacing kept between runs, on PostgreSQL: the same cases as on SQLite (pacing-memory.cases.ts). */
import { postgresDialect } from '../support/postgres';
import { pacingMemorySuite } from './pacing-memory.cases';

pacingMemorySuite(postgresDialect);
