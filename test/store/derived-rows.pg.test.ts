/** Rows about transactions written after a read, on PostgreSQL: the same cases as on SQLite (derived-rows.cases.ts). */
import { postgresDialect } from '../support/postgres';
import { derivedRowsSuite } from './derived-rows.cases';

derivedRowsSuite(postgresDialect);
