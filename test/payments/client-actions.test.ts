/**
 * The client action each Payments answer triggers (docs/payments-contract.md §5): the mapping of
 * every code. The create flow against the real emulator, with a store of each dialect, is in
 * create-payment.cases.ts.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AuthenticationError, UnavailableError } from '../../src/api/api-errors';
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
  readNamedPayment,
  toPaymentsError,
} from '../../src/api/payments';
import { BP703_MESSAGE, BP710_MESSAGE } from '@bankdata/core/payment-schemas';

const answer = (status: number, code: string | null, message = 'm') => ({
  status,
  code,
  message,
  headers: { 'retry-after': '2' },
  path: '/payments/v1/payments',
  requestId: 'r',
});

describe("toPaymentsError: every BP code to its class and the bank's client action", () => {
  const expected: Record<string, [new (...args: never[]) => unknown, string]> = {
    BP101: [PaymentConsentError, 'stop_consent_unusable'],
    BP002: [PaymentConsentError, 'stop_consent_unusable'],
    BP003: [PaymentConsentError, 'stop_consent_unusable'],
    BP004: [PaymentConsentError, 'stop_consent_unusable'],
    BP011: [PaymentConsentError, 'stop_consent_unusable'],
    BP015: [PaymentConsentError, 'stop_consent_unusable'],
    BP017: [PaymentConsentError, 'wait_for_authorisation'],
    BP018: [PaymentConsentError, 'stop_consent_unusable'],
    BP021: [PaymentConsentError, 'stop_consent_unusable'],
    BP701: [PaymentConsentError, 'treat_as_done'],
    BP707: [PaymentConsentError, 'revoke_after_settlement'],
    BP035: [PaymentRequestError, 'fix_request'],
    BP214: [PaymentRequestError, 'fix_request'],
    BP216: [PaymentRequestError, 'fix_request'],
    BP235: [PaymentRequestError, 'fix_request'],
    BP240: [PaymentRequestError, 'fix_request'],
    BP265: [PaymentRequestError, 'fix_request'],
    BP276: [PaymentRequestError, 'fix_request'],
    BP283: [PaymentRequestError, 'fix_request'],
    BP287: [PaymentRequestError, 'fix_request'],
    BP288: [PaymentRequestError, 'fix_request'],
    BP289: [PaymentRequestError, 'fix_request'],
    BP290: [PaymentRequestError, 'fix_request'],
    BP291: [PaymentRequestError, 'fix_request'],
    BP292: [PaymentRequestError, 'fix_request'],
    BP293: [PaymentRequestError, 'fix_request'],
    BP299: [PaymentRequestError, 'fix_request'],
    BP036: [PaymentRefusedError, 'new_key_new_attempt'],
    BP044: [PaymentRefusedError, 'refused'],
    BP229: [PaymentRefusedError, 'refused'],
    BP230: [PaymentRefusedError, 'refused'],
    BP262: [PaymentRefusedError, 'refused'],
    BP263: [PaymentRefusedError, 'refused'],
    BP102: [PaymentNotFoundError, 'not_found'],
    BP702: [PaymentIdempotencyError, 'new_key_for_distinct_request'],
    BP703: [PaymentIdempotencyError, 'poll_named_payment'],
    BP708: [PaymentIdempotencyError, 'retry_same_key'],
    BP709: [PaymentIdempotencyError, 'retry'],
    BP710: [PaymentIdempotencyError, 'resolve_by_terminal_status'],
    BP712: [PaymentIdempotencyError, 'get_consent_payments'],
    BP713: [PaymentIdempotencyError, 'always_send_key'],
    BP603: [ConsentCheckError, 'get_consent_then_retry'],
    // The parts the documentation does not show (docs/payments-contract.md §5.1).
    BP013: [PaymentRequestError, 'fix_request'],
    BP047: [PaymentRequestError, 'fix_request'],
    BP048: [PaymentRequestError, 'fix_request'],
    BP049: [PaymentRequestError, 'fix_request'],
    BP009: [PaymentRequestError, 'fix_request'],
    BP023: [PaymentRequestError, 'fix_request'],
    BP024: [PaymentRequestError, 'fix_request'],
    BP030: [PaymentRequestError, 'fix_request'],
    BP038: [PaymentRequestError, 'fix_request'],
    BP705: [PaymentRequestError, 'fix_request'],
    BP256: [PaymentRequestError, 'fix_request'],
    BP257: [PaymentRequestError, 'fix_request'],
    BP258: [PaymentRequestError, 'fix_request'],
    BP259: [PaymentRequestError, 'fix_request'],
    BP260: [PaymentRequestError, 'fix_request'],
    BP261: [PaymentRequestError, 'fix_request'],
    BP270: [PaymentRequestError, 'fix_request'],
    BP014: [PaymentRefusedError, 'refused'],
    BP020: [PaymentRefusedError, 'refused'],
    BP039: [PaymentRefusedError, 'refused'],
    BP045: [PaymentRefusedError, 'refused'],
    BP046: [PaymentRefusedError, 'refused'],
    BP111: [PaymentRefusedError, 'refused'],
    BP277: [PaymentRefusedError, 'refused'],
    BP012: [PaymentRefusedError, 'wait_for_settlement'],
    BP053: [PaymentRefusedError, 'wait_for_settlement'],
    BP025: [PaymentConsentError, 'stop_consent_unusable'],
    BP050: [PaymentConsentError, 'stop_consent_unusable'],
    BP052: [PaymentConsentError, 'stop_consent_unusable'],
    BP051: [PaymentConsentError, 'wait_for_authorisation'],
    BP054: [PaymentConsentError, 'treat_as_done'],
    BP706: [PaymentConsentError, 'treat_as_done'],
    BP108: [PaymentNotFoundError, 'not_found'],
    BP110: [PaymentNotFoundError, 'not_found'],
    BP711: [PaymentIdempotencyError, 'retry_same_key'],
    BP715: [PaymentIdempotencyError, 'retry_refund_new_key'],
    BP903: [PaymentOutcomeUnknownError, 'get_refund_before_retrying'],
    BP904: [PaymentOutcomeUnknownError, 'get_refund_before_retrying'],
    BP905: [PaymentOutcomeUnknownError, 'get_refund_before_retrying'],
  };
  for (const [code, [cls, action]] of Object.entries(expected)) {
    it(`${code} → ${(cls as { name: string }).name}, action ${action}`, () => {
      const error = toPaymentsError(answer(PAYMENT_CODE_ACTIONS[code]!.status, code));
      expect(error).toBeInstanceOf(cls);
      expect((error as { action: string }).action).toBe(action);
      expect(error.code).toBe(code);
    });
  }

  it('every code of the table is covered above', () => {
    expect(Object.keys(PAYMENT_CODE_ACTIONS).sort()).toEqual([...Object.keys(expected), 'BP601', 'BP602'].sort());
  });

  it('BP601 and BP602 are UnavailableError with Retry-After (retried with the same key); 429 and every 5xx without a code too', () => {
    // "For a timeout or other 5xx with no clear answer, the client checks the resource state
    // before resubmitting": a 507 or an edge's 520-524 is no clearer than a 503.
    for (const [status, code] of [
      [503, 'BP601'],
      [503, 'BP602'],
      [429, null],
      [500, null],
      [501, null],
      [502, null],
      [504, null],
      [503, null],
      [505, null],
      [507, null],
      [520, null],
      [524, null],
    ] as const) {
      const error = toPaymentsError(answer(status, code));
      expect(error).toBeInstanceOf(UnavailableError);
      expect((error as UnavailableError).retryAfter).toBe('2');
    }
  });

  it('401 after a fresh token is an AuthenticationError; 403 without code a scope error; an unknown code falls to its status', () => {
    expect(toPaymentsError(answer(401, null))).toBeInstanceOf(AuthenticationError);
    expect(toPaymentsError(answer(403, null))).toBeInstanceOf(PaymentsScopeError);
    expect(toPaymentsError(answer(409, 'BP799'))).toBeInstanceOf(PaymentsRequestRejectedError);
    expect(toPaymentsError(answer(503, 'BP699'))).toBeInstanceOf(UnavailableError);
    // A code named like an object's property is unknown too, not a row of the table.
    const unknown = toPaymentsError(answer(409, 'BP799'));
    for (const code of ['constructor', 'toString', '__proto__']) {
      const error = toPaymentsError(answer(409, code));
      expect(error).toBeInstanceOf(PaymentsRequestRejectedError);
      expect(error.message).toBe(unknown.message.replace('BP799', code));
      expect(toPaymentsError(answer(503, code))).toBeInstanceOf(UnavailableError);
    }
  });

  it('BP703/BP710: the payment is read from the message only by the strict pattern; anything else gives nulls (GET instead)', () => {
    const id = randomUUID();
    expect(readNamedPayment('BP703', BP703_MESSAGE(id, 'Pending'))).toEqual({
      paymentId: id,
      paymentStatus: 'Pending',
    });
    expect(readNamedPayment('BP710', BP710_MESSAGE(id, 'Rejected'))).toEqual({
      paymentId: id,
      paymentStatus: 'Rejected',
    });
    expect(readNamedPayment('BP703', `payment ${id} is in flight`)).toEqual({ paymentId: null, paymentStatus: null });
    expect(readNamedPayment('BP710', BP710_MESSAGE(id, 'Pending'))).toEqual({ paymentId: null, paymentStatus: null });
    expect(readNamedPayment('BP703', `${BP703_MESSAGE(id, 'Pending')} (more)`)).toEqual({
      paymentId: null,
      paymentStatus: null,
    });
  });
});
