/** A payment's identity is its meaning, on SQLite (the cases: double-payment.cases.ts). */
import { sqliteDialect } from '../support/dialects';
import { doublePaymentSuite } from './double-payment.cases';

doublePaymentSuite(sqliteDialect);
