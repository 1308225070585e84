/** unknown-migration.cases.ts on SQLite. */
import { sqliteDialect } from '../support/dialects';
import { unknownMigrationSuite } from './unknown-migration.cases';

unknownMigrationSuite(sqliteDialect);
