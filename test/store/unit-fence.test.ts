/** Unit writes fenced by the run's lease on SQLite (the cases: unit-fence.cases.ts). */
import { sqliteDialect } from '../support/dialects';
import { unitFenceSuite } from './unit-fence.cases';

unitFenceSuite(sqliteDialect);
