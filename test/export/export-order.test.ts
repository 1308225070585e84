/** export-order.cases.ts on SQLite. */
import { sqliteDialect } from '../support/dialects';
import { exportOrderSuite } from './export-order.cases';

exportOrderSuite(sqliteDialect);
