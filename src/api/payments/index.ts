/** What the rest of bankdata uses from the Payments API client. */
export {
  createPaymentsClient,
  type CreatePaymentOptions,
  type PaymentsClient,
  type PaymentsClientOptions,
  type PaymentsClientStats,
} from './client';
export * from './payment-errors';
export { readNamedPayment, toPaymentsError, type PaymentsErrorAnswer } from './map-payment-error';
export * from '@bankdata/core/payment-schemas';
