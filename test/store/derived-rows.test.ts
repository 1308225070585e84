/** Rows about transactions written after a read, on SQLite (the cases: derived-rows.cases.ts). */
import { sqliteDialect } from '../support/dialects';
import { derivedRowsSuite } from './derived-rows.cases';

derivedRowsSuite(sqliteDialect);
