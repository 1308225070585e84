/** The pacing kept between runs, on SQLite (the cases: pacing-memory.cases.ts). */
import { sqliteDialect } from '../support/dialects';
import { pacingMemorySuite } from './pacing-memory.cases';

pacingMemorySuite(sqliteDialect);
