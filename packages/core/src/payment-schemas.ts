/**
 * The Payments API wire contract (docs/payments-contract.md) as zod schemas, shared by the
 * client and the emulator: one contract, judged the same way on both sides. Paths and bodies
 * the bank's API documentation leaves unshown are our choices, written in that document.
 */
import { z } from 'zod';
import { CONSENT_STATUSES, DateTimeString, UUID_PATTERN, consentFlowSchema, type ConsentId } from './schemas';

export type PaymentId = string & { readonly __brand: 'PaymentId' };
export type PaymentConsentId = ConsentId;

export const PaymentIdSchema = z
  .string()
  .regex(UUID_PATTERN, 'payment_id must be a lowercase UUID')
  .transform((s) => s as PaymentId);
export const PaymentConsentIdSchema = z
  .string()
  .regex(UUID_PATTERN, 'consent_id must be a lowercase UUID')
  .transform((s) => s as PaymentConsentId);

/** The Payments API scopes, in the order the bank's API documentation lists them. */
export const PAYMENTS_SCOPES = [
  'view:metadata',
  'view:single_consent',
  'create:single_consent',
  'view:enduring_consent',
  'create:enduring_consent',
  'revoke:single_consent',
  'revoke:enduring_consent',
  'view:payment',
  'create:payment',
  'view:transaction',
  'create:quick_payment',
  'view:quick_payment',
  'create:refund',
  'view:refund',
  'create:subscription',
  'view:subscription',
  'delete:subscription',
] as const;
export type PaymentsScope = (typeof PAYMENTS_SCOPES)[number];

/**
 * Payment amounts (our choice): NZD only, 1–13 integer digits and at most 2 decimals, above
 * zero. A decimal string, never a float.
 */
export const PAYMENT_AMOUNT_PATTERN = /^\d{1,13}(\.\d{1,2})?$/;
export const PaymentAmount = z.object({
  total: z
    .string()
    .regex(PAYMENT_AMOUNT_PATTERN, 'total must be a decimal string with at most 2 decimals')
    .refine((s) => /[1-9]/.test(s), 'total must be above zero'),
  currency: z.literal('NZD'),
});
export type PaymentAmount = z.infer<typeof PaymentAmount>;

/** BECS particulars, code, reference: at most 12 printable ASCII characters each; particulars required. */
const pcrField = z
  .string()
  .max(12)
  .regex(/^[\x20-\x7e]*$/, 'printable ASCII only');
export const Pcr = z.object({
  particulars: pcrField.min(1),
  code: pcrField.optional(),
  reference: pcrField.optional(),
});
export type Pcr = z.infer<typeof Pcr>;

/** Statuses (the bank names Rejected and AcceptedSettlementCompleted; the in-flight ones are ours). */
export const PAYMENT_STATUSES = [
  'Pending',
  'AcceptedSettlementInProcess',
  'AcceptedSettlementCompleted',
  'Rejected',
] as const;
export const PaymentStatus = z.enum(PAYMENT_STATUSES);
export type PaymentStatus = z.infer<typeof PaymentStatus>;
export const TERMINAL_PAYMENT_STATUSES: readonly PaymentStatus[] = ['AcceptedSettlementCompleted', 'Rejected'];
export function isTerminalPaymentStatus(status: PaymentStatus): boolean {
  return TERMINAL_PAYMENT_STATUSES.includes(status);
}

/** When a payment or a payment consent was created, and when its status last changed. */
const createdAndStatusUpdated = {
  creation_timestamp: DateTimeString,
  status_updated_timestamp: DateTimeString,
};

/** POST /payments/v1/payments (docs/payments-contract.md §3.1). */
export const CreatePaymentRequest = z.object({
  consent_id: PaymentConsentIdSchema,
  amount: PaymentAmount.optional(),
  pcr: Pcr.optional(),
});
export type CreatePaymentRequest = z.input<typeof CreatePaymentRequest>;

/** The payment record: the body of GET /payments/v1/payments/{id} and of the 201 of the POST. */
export const Payment = z.object({
  payment_id: PaymentIdSchema,
  consent_id: PaymentConsentIdSchema,
  status: PaymentStatus,
  ...createdAndStatusUpdated,
  amount: PaymentAmount,
  pcr: Pcr,
  /** The idempotency-key the payment was created with, when one was sent (our choice). */
  idempotency_key: z.string().optional(),
});
export type Payment = z.infer<typeof Payment>;

export const PAYMENT_CONSENT_TYPES = ['single', 'enduring', 'quick_payment'] as const;
export const PaymentConsentType = z.enum(PAYMENT_CONSENT_TYPES);
export type PaymentConsentType = z.infer<typeof PaymentConsentType>;

export const PAYMENT_PERIODS = ['day', 'week', 'fortnight', 'month', 'year'] as const;
export const PaymentPeriod = z.enum(PAYMENT_PERIODS);
export type PaymentPeriod = z.infer<typeof PaymentPeriod>;

export const PaymentConsentStatus = z.enum(CONSENT_STATUSES);
export type PaymentConsentStatus = z.infer<typeof PaymentConsentStatus>;

export const PaymentsConsentFlow = consentFlowSchema(z.string());
export type PaymentsConsentFlow = z.infer<typeof PaymentsConsentFlow>;

/** A payment consent's flow and terms: what the POST asks for and the GET shows again. */
const paymentConsentTerms = {
  flow: PaymentsConsentFlow,
  amount: PaymentAmount.optional(),
  pcr: Pcr.optional(),
  from_timestamp: DateTimeString.optional(),
  expiry_timestamp: DateTimeString.optional(),
  period: PaymentPeriod.optional(),
  maximum_amount_period: PaymentAmount.optional(),
  maximum_amount_payment: PaymentAmount.optional(),
};

/** GET /payments/v1/consents/{consent_id} (our path): the consent and its payments (seed: `payments`). */
export const PaymentConsent = z.object({
  consent_id: PaymentConsentIdSchema,
  type: PaymentConsentType,
  status: PaymentConsentStatus,
  ...createdAndStatusUpdated,
  ...paymentConsentTerms,
  /** Oldest first: payments[0] is the first payment (seed). */
  payments: z.array(Payment),
});
export type PaymentConsent = z.infer<typeof PaymentConsent>;

/** POST /payments/v1/consents (our path). */
export const CreatePaymentConsentRequest = z.object({
  type: z.enum(['single', 'enduring']),
  ...paymentConsentTerms,
});
export type CreatePaymentConsentRequest = z.input<typeof CreatePaymentConsentRequest>;

export const CreatePaymentConsentResponse = z.object({
  consent_id: PaymentConsentIdSchema,
  redirect_uri: z.string().optional(),
});
export type CreatePaymentConsentResponse = z.infer<typeof CreatePaymentConsentResponse>;

/**
 * BP703 and BP710 name the payment only in `message` (seed). The exact sentences (our choice);
 * the client reads them with these strict patterns and falls back to a GET when they do not match.
 */
export const BP703_MESSAGE = (paymentId: string, status: string) =>
  `Payment ${paymentId} is still in flight with status ${status}; poll it and do not resubmit`;
export const BP703_PATTERN =
  /^Payment ([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}) is still in flight with status (\w+); poll it and do not resubmit$/;
export const BP710_MESSAGE = (paymentId: string, status: string) =>
  `Idempotency key already used by payment ${paymentId}, which is now ${status}`;
export const BP710_PATTERN =
  /^Idempotency key already used by payment ([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}), which is now (AcceptedSettlementCompleted|Rejected)$/;
