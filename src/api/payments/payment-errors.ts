/**
 * Payments API error classes, one per kind, and the client action for each BP code
 * (`PAYMENT_CODE_ACTIONS`: docs/payments-contract.md §5 is its spec).
 * 429, 5xx, timeouts and dropped connections stay the Data client's `UnavailableError` and a
 * refused token its `AuthenticationError`: the same failure, the same class, the same retry code.
 */
import { AnswerError, type ApiErrorDetails } from '../api-errors';
import type { PaymentStatus } from '@bankdata/core/payment-schemas';

export type PaymentsErrorKind =
  | 'consent_state'
  | 'invalid_request'
  | 'payment_refused'
  | 'idempotency'
  | 'payment_not_found'
  | 'consent_check'
  | 'scope_missing'
  | 'request_rejected'
  | 'outcome_unknown';

/** What the client does next (docs/payments-contract.md §5). */
export type PaymentsClientAction =
  /** The consent cannot pay (ended, revoked, unknown, a quick payment): stop, a new consent is needed. */
  | 'stop_consent_unusable'
  /** Not yet authorised (BP017): wait for the customer, then try again. */
  | 'wait_for_authorisation'
  /** Revoke answered "already revoked" (BP701): treat as done. */
  | 'treat_as_done'
  /** A payment still settles (BP707): revoke later. */
  | 'revoke_after_settlement'
  /** Fix the request or the configuration; never retried. */
  | 'fix_request'
  /** BP036: the bank refused for this period; a new attempt needs a new idempotency-key. */
  | 'new_key_new_attempt'
  /** Over a limit: refused, not retried. */
  | 'refused'
  /** BP702: the key belongs to another payload; a distinct request takes a unique key. */
  | 'new_key_for_distinct_request'
  /** BP703: poll the named payment; do not resubmit. */
  | 'poll_named_payment'
  /** BP708, BP711, BP601, BP602: retry with the same key (after Retry-After when sent). */
  | 'retry_same_key'
  /** BP709: retry. */
  | 'retry'
  /** BP710: Rejected → resubmit with a fresh key; AcceptedSettlementCompleted → do not resubmit. */
  | 'resolve_by_terminal_status'
  /** BP712: GET the consent's payments first. */
  | 'get_consent_payments'
  /** BP713: always send the idempotency-key header (a client bug). */
  | 'always_send_key'
  /** BP603: GET the consent before retrying. */
  | 'get_consent_then_retry'
  /** BP102, BP108, BP110: no such payment, fixed recurring payment or refund. */
  | 'not_found'
  /** BP012, BP053: the payment (or its charge) has not settled yet; refund it once it has. */
  | 'wait_for_settlement'
  /** BP715: the charge went out while the refund was in process; retry the refund with a new key. */
  | 'retry_refund_new_key'
  /** BP903–BP905: the card processor's answer is unknown; GET the refund before retrying (never blind). */
  | 'get_refund_before_retrying';

/** Every BP code this client knows: its HTTP status (seed) and the client action. */
export const PAYMENT_CODE_ACTIONS: Readonly<
  Record<string, { status: number; kind: PaymentsErrorKind | 'unavailable'; action: PaymentsClientAction }>
> = {
  // Consent state (docs/payments-contract.md §5).
  BP101: { status: 404, kind: 'consent_state', action: 'stop_consent_unusable' },
  BP002: { status: 422, kind: 'consent_state', action: 'stop_consent_unusable' },
  BP003: { status: 422, kind: 'consent_state', action: 'stop_consent_unusable' },
  BP004: { status: 422, kind: 'consent_state', action: 'stop_consent_unusable' },
  BP011: { status: 422, kind: 'consent_state', action: 'stop_consent_unusable' },
  BP015: { status: 422, kind: 'consent_state', action: 'stop_consent_unusable' },
  BP017: { status: 422, kind: 'consent_state', action: 'wait_for_authorisation' },
  BP018: { status: 422, kind: 'consent_state', action: 'stop_consent_unusable' },
  BP021: { status: 422, kind: 'consent_state', action: 'stop_consent_unusable' },
  BP701: { status: 409, kind: 'consent_state', action: 'treat_as_done' },
  BP707: { status: 409, kind: 'consent_state', action: 'revoke_after_settlement' },
  // Request validation.
  BP035: { status: 422, kind: 'invalid_request', action: 'fix_request' },
  BP214: { status: 400, kind: 'invalid_request', action: 'fix_request' },
  BP216: { status: 400, kind: 'invalid_request', action: 'fix_request' },
  BP235: { status: 400, kind: 'invalid_request', action: 'fix_request' },
  BP240: { status: 400, kind: 'invalid_request', action: 'fix_request' },
  BP265: { status: 400, kind: 'invalid_request', action: 'fix_request' },
  BP276: { status: 400, kind: 'invalid_request', action: 'fix_request' },
  BP283: { status: 400, kind: 'invalid_request', action: 'fix_request' },
  BP287: { status: 400, kind: 'invalid_request', action: 'fix_request' },
  BP288: { status: 400, kind: 'invalid_request', action: 'fix_request' },
  BP289: { status: 400, kind: 'invalid_request', action: 'fix_request' },
  BP290: { status: 400, kind: 'invalid_request', action: 'fix_request' },
  BP291: { status: 400, kind: 'invalid_request', action: 'fix_request' },
  BP292: { status: 400, kind: 'invalid_request', action: 'fix_request' },
  BP293: { status: 400, kind: 'invalid_request', action: 'fix_request' },
  BP299: { status: 400, kind: 'invalid_request', action: 'fix_request' },
  // Payments and limits.
  BP036: { status: 422, kind: 'payment_refused', action: 'new_key_new_attempt' },
  BP044: { status: 422, kind: 'payment_refused', action: 'refused' },
  BP229: { status: 400, kind: 'payment_refused', action: 'refused' },
  BP230: { status: 400, kind: 'payment_refused', action: 'refused' },
  BP262: { status: 400, kind: 'payment_refused', action: 'refused' },
  BP263: { status: 400, kind: 'payment_refused', action: 'refused' },
  BP102: { status: 404, kind: 'payment_not_found', action: 'not_found' },
  BP020: { status: 422, kind: 'payment_refused', action: 'refused' },
  BP277: { status: 400, kind: 'payment_refused', action: 'refused' },
  // Refunds (the bank's API documentation names them; this client sends no refund yet).
  BP012: { status: 422, kind: 'payment_refused', action: 'wait_for_settlement' },
  BP013: { status: 422, kind: 'invalid_request', action: 'fix_request' },
  BP014: { status: 422, kind: 'payment_refused', action: 'refused' },
  BP039: { status: 422, kind: 'payment_refused', action: 'refused' },
  BP045: { status: 422, kind: 'payment_refused', action: 'refused' },
  BP046: { status: 422, kind: 'payment_refused', action: 'refused' },
  BP047: { status: 422, kind: 'invalid_request', action: 'fix_request' },
  BP048: { status: 422, kind: 'invalid_request', action: 'fix_request' },
  BP049: { status: 422, kind: 'invalid_request', action: 'fix_request' },
  BP053: { status: 422, kind: 'payment_refused', action: 'wait_for_settlement' },
  BP110: { status: 404, kind: 'payment_not_found', action: 'not_found' },
  BP111: { status: 404, kind: 'payment_refused', action: 'refused' },
  BP903: { status: 502, kind: 'outcome_unknown', action: 'get_refund_before_retrying' },
  BP904: { status: 502, kind: 'outcome_unknown', action: 'get_refund_before_retrying' },
  BP905: { status: 502, kind: 'outcome_unknown', action: 'get_refund_before_retrying' },
  // Fixed recurring payments.
  BP009: { status: 422, kind: 'invalid_request', action: 'fix_request' },
  BP023: { status: 422, kind: 'invalid_request', action: 'fix_request' },
  BP024: { status: 422, kind: 'invalid_request', action: 'fix_request' },
  BP025: { status: 422, kind: 'consent_state', action: 'stop_consent_unusable' },
  BP030: { status: 422, kind: 'invalid_request', action: 'fix_request' },
  BP038: { status: 422, kind: 'invalid_request', action: 'fix_request' },
  BP108: { status: 404, kind: 'payment_not_found', action: 'not_found' },
  BP705: { status: 409, kind: 'invalid_request', action: 'fix_request' },
  BP706: { status: 409, kind: 'consent_state', action: 'treat_as_done' },
  // Card payments.
  BP050: { status: 422, kind: 'consent_state', action: 'stop_consent_unusable' },
  BP051: { status: 422, kind: 'consent_state', action: 'wait_for_authorisation' },
  BP052: { status: 422, kind: 'consent_state', action: 'stop_consent_unusable' },
  BP054: { status: 422, kind: 'consent_state', action: 'treat_as_done' },
  BP256: { status: 400, kind: 'invalid_request', action: 'fix_request' },
  BP257: { status: 400, kind: 'invalid_request', action: 'fix_request' },
  BP258: { status: 400, kind: 'invalid_request', action: 'fix_request' },
  BP259: { status: 400, kind: 'invalid_request', action: 'fix_request' },
  BP260: { status: 400, kind: 'invalid_request', action: 'fix_request' },
  BP261: { status: 400, kind: 'invalid_request', action: 'fix_request' },
  BP270: { status: 400, kind: 'invalid_request', action: 'fix_request' },
  // Idempotency and concurrency (all 409; docs/payments-contract.md §5).
  BP702: { status: 409, kind: 'idempotency', action: 'new_key_for_distinct_request' },
  BP703: { status: 409, kind: 'idempotency', action: 'poll_named_payment' },
  BP708: { status: 409, kind: 'idempotency', action: 'retry_same_key' },
  BP709: { status: 409, kind: 'idempotency', action: 'retry' },
  BP710: { status: 409, kind: 'idempotency', action: 'resolve_by_terminal_status' },
  BP712: { status: 409, kind: 'idempotency', action: 'get_consent_payments' },
  BP713: { status: 409, kind: 'idempotency', action: 'always_send_key' },
  BP711: { status: 409, kind: 'idempotency', action: 'retry_same_key' },
  BP715: { status: 409, kind: 'idempotency', action: 'retry_refund_new_key' },
  // Availability (all 503).
  BP601: { status: 503, kind: 'unavailable', action: 'retry_same_key' },
  BP602: { status: 503, kind: 'unavailable', action: 'retry_same_key' },
  BP603: { status: 503, kind: 'consent_check', action: 'get_consent_then_retry' },
};

export type PaymentsErrorDetails = ApiErrorDetails;

export abstract class PaymentsApiError extends AnswerError<PaymentsErrorKind> {
  /** The client action for this answer (docs/payments-contract.md §5). */
  readonly action: PaymentsClientAction;

  constructor(message: string, details: PaymentsErrorDetails, action: PaymentsClientAction) {
    super(message, details);
    this.action = action;
  }

  override toJSON(): Record<string, unknown> {
    // `action` right after `kind`, where log lines and `--json` output have always shown it.
    const { name, kind, ...answer } = super.toJSON();
    return { name, kind, action: this.action, ...answer };
  }
}

/** The base of one kind of Payments API error: its kind, and the name logs and `--json` output show. */
function paymentsErrorClass<K extends PaymentsErrorKind>(kind: K, name: string) {
  return class extends PaymentsApiError {
    readonly kind = kind;
    override readonly name: string = name;
  };
}

/** The consent cannot take this request: ended, revoked, unknown, not yet authorised, a quick payment. */
export class PaymentConsentError extends paymentsErrorClass('consent_state', 'PaymentConsentError') {}

/** The request is wrong: fix it or the configuration. */
export class PaymentRequestError extends paymentsErrorClass('invalid_request', 'PaymentRequestError') {}

/** The bank or a limit refused the payment or refund (BP036, BP044, BP229, BP230, BP262, BP263, …). */
export class PaymentRefusedError extends paymentsErrorClass('payment_refused', 'PaymentRefusedError') {}

/** 409 BP702, 703, 708, 709, 710, 711, 712, 713, 715; BP703 and BP710 name the payment in `message`. */
export class PaymentIdempotencyError extends paymentsErrorClass('idempotency', 'PaymentIdempotencyError') {
  /** From the message by a strict pattern (BP703, BP710); null when it did not match: GET instead. */
  readonly paymentId: string | null;
  readonly paymentStatus: PaymentStatus | null;
  constructor(
    message: string,
    details: PaymentsErrorDetails,
    action: PaymentsClientAction,
    named: { paymentId: string | null; paymentStatus: PaymentStatus | null },
  ) {
    super(message, details, action);
    this.paymentId = named.paymentId;
    this.paymentStatus = named.paymentStatus;
  }
  override toJSON() {
    return { ...super.toJSON(), paymentId: this.paymentId, paymentStatus: this.paymentStatus };
  }
}

/** BP102, BP108, BP110: the payment (fixed recurring payment, refund) does not exist, or is another merchant's. */
export class PaymentNotFoundError extends paymentsErrorClass('payment_not_found', 'PaymentNotFoundError') {}

/** BP603: the bank refused the consent and sent no payment; GET the consent before retrying. */
export class ConsentCheckError extends paymentsErrorClass('consent_check', 'ConsentCheckError') {
  constructor(
    message: string,
    details: PaymentsErrorDetails,
    readonly retryAfter: string | null,
  ) {
    super(message, details, 'get_consent_then_retry');
  }
}

/**
 * BP903–BP905 (502): the card processor's answer is unknown, so the refund may or may not exist.
 * Never retried blind as an unavailable service: GET the refund first.
 */
export class PaymentOutcomeUnknownError extends paymentsErrorClass('outcome_unknown', 'PaymentOutcomeUnknownError') {}

/** 403 without code: the client was not assigned the scope. */
export class PaymentsScopeError extends paymentsErrorClass('scope_missing', 'PaymentsScopeError') {}

/** Any other refusal (an unknown code on a 4xx, 400 without code, 404/405 of a path). */
export class PaymentsRequestRejectedError extends paymentsErrorClass(
  'request_rejected',
  'PaymentsRequestRejectedError',
) {}
