/** The consent registry, runs and sync state on SQLite (the cases: registry.cases.ts). */
import { sqliteDialect } from '../support/dialects';
import { registrySuite } from './registry.cases';

registrySuite(sqliteDialect);
