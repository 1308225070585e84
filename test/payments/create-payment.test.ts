/** createPayment with the store on SQLite (the cases: create-payment.cases.ts). */
import { sqliteDialect } from '../support/dialects';
import { createPaymentSuite } from './create-payment.cases';

createPaymentSuite(sqliteDialect);
