/** A payment's identity is its meaning, on PostgreSQL: the same cases as on SQLite (double-payment.cases.ts). */
import { postgresDialect } from '../support/postgres';
import { doublePaymentSuite } from './double-payment.cases';

doublePaymentSuite(postgresDialect);
