/** export-order.cases.ts on PostgreSQL. */
import { postgresDialect } from '../support/postgres';
import { exportOrderSuite } from './export-order.cases';

exportOrderSuite(postgresDialect);
