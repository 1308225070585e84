/** createPayment with the store on PostgreSQL: the same cases as on SQLite (create-payment.cases.ts). */
import { postgresDialect } from '../support/postgres';
import { createPaymentSuite } from './create-payment.cases';

createPaymentSuite(postgresDialect);
