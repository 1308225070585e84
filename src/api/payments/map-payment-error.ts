/**
 * The ONE function that maps a Payments API answer to its error class. Branches on `code`
 * (seed: "Payments API, branch on code"), then on status; it reads `message` only where the
 * bank's API documentation puts a payment there (BP703, BP710), with a strict pattern.
 */
import type { AuthenticationError, UnavailableError } from '../api-errors';
import {
  describeAnswer,
  isUnavailableStatus,
  firstHeader,
  toFreshTokenError,
  toUnavailableError,
  type AnswerFacts,
} from '../map-api-error';
import {
  ConsentCheckError,
  PAYMENT_CODE_ACTIONS,
  PaymentConsentError,
  PaymentIdempotencyError,
  PaymentNotFoundError,
  PaymentOutcomeUnknownError,
  PaymentRefusedError,
  PaymentRequestError,
  PaymentsRequestRejectedError,
  PaymentsScopeError,
  type PaymentsApiError,
} from './payment-errors';
import { BP703_PATTERN, BP710_PATTERN, type PaymentStatus } from '@bankdata/core/payment-schemas';
import { ownValue } from '@bankdata/core/own-value';

/** A Payments API answer that is not a success: the Data API's, without the request kind. */
export type PaymentsErrorAnswer = AnswerFacts;

/** BP703 / BP710: the payment named in the message, or nulls when the pattern does not match. */
export function readNamedPayment(
  code: string,
  message: string | null | undefined,
): { paymentId: string | null; paymentStatus: PaymentStatus | null } {
  const pattern = code === 'BP703' ? BP703_PATTERN : code === 'BP710' ? BP710_PATTERN : null;
  const match = pattern && message ? pattern.exec(message) : null;
  const [, paymentId, status] = match ?? [];
  if (paymentId === undefined || status === undefined) return { paymentId: null, paymentStatus: null };
  const known: readonly string[] = [
    'Pending',
    'AcceptedSettlementInProcess',
    'AcceptedSettlementCompleted',
    'Rejected',
  ];
  return { paymentId, paymentStatus: known.includes(status) ? (status as PaymentStatus) : null };
}

export function toPaymentsError(
  answer: PaymentsErrorAnswer,
): PaymentsApiError | UnavailableError | AuthenticationError {
  const { status } = answer;
  const { code, details, what, said } = describeAnswer(answer);
  // Own keys only: a code named like an object's property (`constructor`) is an unknown code.
  const known = ownValue(PAYMENT_CODE_ACTIONS, code);
  if (code !== null && known) {
    switch (known.kind) {
      case 'consent_state':
        return new PaymentConsentError(`consent cannot take this request, ${what}${said}`, details, known.action);
      case 'invalid_request':
        return new PaymentRequestError(`request refused, ${what}${said}`, details, known.action);
      case 'payment_refused':
        return new PaymentRefusedError(`payment refused, ${what}${said}`, details, known.action);
      case 'payment_not_found':
        return new PaymentNotFoundError(`payment not found, ${what}${said}`, details, known.action);
      case 'idempotency':
        return new PaymentIdempotencyError(
          `idempotency conflict, ${what}${said}`,
          details,
          known.action,
          readNamedPayment(code, answer.message),
        );
      case 'consent_check':
        return new ConsentCheckError(
          `bank refused the consent, no payment sent, ${what}${said}`,
          details,
          firstHeader(answer.headers, 'retry-after'),
        );
      case 'outcome_unknown':
        return new PaymentOutcomeUnknownError(`outcome unknown, ${what}${said}`, details, known.action);
      case 'unavailable':
        return toUnavailableError(answer, details, what, said);
      default:
        break;
    }
  }
  if (status === 401) return toFreshTokenError(answer, details);
  if (status === 403 && code === null)
    return new PaymentsScopeError(
      `the client is not assigned the scope needed, ${what}${said}`,
      details,
      'fix_request',
    );
  if (isUnavailableStatus(status)) return toUnavailableError(answer, details, what, said);
  return new PaymentsRequestRejectedError(`request refused, ${what}${said}`, details, 'fix_request');
}
