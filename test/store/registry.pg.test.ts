/** The consent registry, runs and sync state on PostgreSQL: the same cases as on SQLite (registry.cases.ts). */
import { postgresDialect } from '../support/postgres';
import { registrySuite } from './registry.cases';

registrySuite(postgresDialect);
