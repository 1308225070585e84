/** unknown-migration.cases.ts on PostgreSQL. */
import { postgresDialect } from '../support/postgres';
import { unknownMigrationSuite } from './unknown-migration.cases';

unknownMigrationSuite(postgresDialect);
