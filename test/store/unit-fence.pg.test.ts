/** Unit writes fenced by the worker's lease of the consent on PostgreSQL: the same cases as on SQLite (unit-fence.cases.ts). */
import { postgresDialect } from '../support/postgres';
import { unitFenceSuite } from './unit-fence.cases';

unitFenceSuite(postgresDialect);
