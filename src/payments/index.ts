/** Payments: create (stored idempotency key, the code-action table), track, reconcile. */
export {
  checkPaymentArguments,
  createPayment,
  PaymentNotMadeError,
  type CreatePaymentDeps,
  type CreatePaymentResult,
} from './create';
export { checkPaymentRequest, PaymentRuleError, type PaymentRequestInput } from './request';
export { syncPayments, trackPayments, type TrackDeps, type TrackOptions, type TrackResult } from './track';
export {
  listReconciliationIssues,
  reconciliationSummary,
  type AmbiguousMatch,
  type ReconciliationIssues,
  type ReconciliationSummary,
  type TransactionRef,
  type UnmatchedPayment,
} from './reconcile';
