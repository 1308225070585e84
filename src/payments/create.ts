/**
 * One payment, made so that a crash and a rerun never pay twice: the idempotency key and the
 * body are stored BEFORE the request is sent (BP713), a rerun of the same request resumes the
 * stored key, and every answer is handled as the seed's idempotency and availability tables say:
 *
 * | Answer | Action |
 * |---|---|
 * | 201 | record the payment |
 * | BP601, BP602, 429 | retry with the same key (after Retry-After when sent) |
 * | BP603 | GET the consent; retry with the same key while it is Authorised |
 * | 500, 502, 504, 503 without code, timeout, dropped | no clear answer: GET the consent's payments for our key; adopt it, else retry with the same key |
 * | BP702 | the key belongs to another payload: this distinct request takes a fresh key |
 * | BP703 | poll the named payment (message, strict pattern; else GET the consent): adopt it, never resubmit |
 * | BP708, BP709 | retry with the same key |
 * | BP710 | Rejected: resubmit with a fresh key; AcceptedSettlementCompleted: adopt it, do not resubmit |
 * | BP712 | GET the consent's payments first: adopt ours, else retry with the same key |
 * | BP036 | refused: the attempt ends; a new attempt (a rerun) takes a new key |
 * | other codes | the attempt ends with the code |
 */
import { randomUUID } from 'node:crypto';
import { UnavailableError } from '../api/errors';
import {
  ConsentCheckError,
  PaymentIdempotencyError,
  PaymentRefusedError,
  PaymentsApiError,
  type PaymentsClient,
} from '../api/payments';
import type { Payment } from '../api/payments/schemas';
import { backoffDelayMs, DEFAULT_RETRY_POLICY, realSleep, retryDelayMs, type RetryPolicy } from '../api/retry';
import { silentLogger, type Logger } from '../log';
import type { Store } from '../store';
import { canonicalRequest, checkPaymentRequest, type PaymentRequestInput } from './request';
import { findUnansweredAttempt, insertAttempt, recordPayment, updateAttempt } from './payment-store';

export interface CreatePaymentDeps {
  client: PaymentsClient;
  store: Store;
  logger?: Logger;
  now?: () => Date;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  /** Sends in all before giving up (the attempt stays open: a rerun resumes its key). Default 8. */
  maxSends?: number;
  retry?: Partial<RetryPolicy>;
}

export interface CreatePaymentResult {
  payment: Payment;
  idempotencyKey: string;
  /** The stored key of an earlier run was resumed. */
  resumed: boolean;
  /** Requests sent to POST /payments. */
  sends: number;
}

/** The flow ended without a payment that stands: the last answer is the cause. */
export class PaymentNotMadeError extends Error {
  constructor(
    message: string,
    readonly idempotencyKey: string,
    override readonly cause: unknown,
  ) {
    super(message, { cause });
    this.name = 'PaymentNotMadeError';
  }
}

export async function createPayment(deps: CreatePaymentDeps, input: PaymentRequestInput): Promise<CreatePaymentResult> {
  const { client, store } = deps;
  const logger = deps.logger ?? silentLogger;
  const now = deps.now ?? (() => new Date());
  const sleep = deps.sleep ?? realSleep;
  const random = deps.random ?? Math.random;
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...deps.retry };
  const maxSends = deps.maxSends ?? 8;

  // The consent says what may be sent: a single consent sends neither amount nor PCR (BP235).
  const consent = await client.getConsent(input.consentId);
  const body = checkPaymentRequest(consent, input);
  const requestJson = canonicalRequest(body);

  const open = findUnansweredAttempt(store.db, input.consentId, requestJson);
  let key = open?.idempotencyKey ?? randomUUID();
  const resumed = open !== null;
  if (!open) insertAttempt(store.db, { idempotencyKey: key, consentId: input.consentId, requestJson, now: now() });
  if (resumed) logger.info('resuming a payment request sent before without a stored answer', { idempotency_key: key });

  const adopt = (payment: Payment): CreatePaymentResult => {
    recordPayment(store.db, payment, now());
    updateAttempt(store.db, key, { state: 'created', paymentId: payment.payment_id, now: now() });
    return { payment, idempotencyKey: key, resumed, sends };
  };
  /** A fresh key for the same request, where the seed allows one (BP702, BP710 Rejected). */
  const freshKey = (reason: string, paymentId: string | null) => {
    updateAttempt(store.db, key, { state: 'superseded', paymentId, outcomeCode: reason, now: now() });
    key = randomUUID();
    insertAttempt(store.db, { idempotencyKey: key, consentId: input.consentId, requestJson, now: now() });
  };
  /** Our key's payment, from the consent's payments (each carries its idempotency_key). */
  const findOurs = async (): Promise<Payment | null> => {
    const current = await client.getConsent(input.consentId);
    return current.payments.find((p) => p.idempotency_key === key) ?? null;
  };

  let sends = 0;
  let last: unknown = null;
  for (let attempt = 1; attempt <= maxSends; attempt++) {
    try {
      sends += 1;
      return adopt(await client.createPayment(body, { idempotencyKey: key }));
    } catch (error) {
      last = error;
      const wait = () => sleep(error instanceof UnavailableError ? retryDelayMs(policy, attempt, error, { now: Date.now, random }) : backoffDelayMs(policy, attempt, random));
      logger.warn('payment request answered', { attempt, code: codeOf(error), status: statusOf(error) });
      if (error instanceof UnavailableError) {
        const clear = error.status === 429 || (error.status === 503 && (error.code === 'BP601' || error.code === 'BP602'));
        if (!clear) {
          // No clear answer: check the resource before resubmitting (seed "Availability").
          const ours = await findOurs();
          if (ours) return adopt(ours);
        }
        await wait();
        continue;
      }
      if (error instanceof ConsentCheckError) {
        const current = await client.getConsent(input.consentId);
        if (current.status !== 'Authorised') {
          updateAttempt(store.db, key, { state: 'failed', outcomeCode: error.code, outcomeMessage: `consent is ${current.status}`, now: now() });
          throw new PaymentNotMadeError(`the bank refused consent ${input.consentId}, now ${current.status}; no payment was sent (BP603)`, key, error);
        }
        await sleep(retryDelayMs(policy, attempt, new UnavailableError('BP603', { status: 503, code: 'BP603', path: error.path, requestId: error.requestId }, error.retryAfter), { now: Date.now, random }));
        continue;
      }
      if (error instanceof PaymentIdempotencyError) {
        const resolved = await resolveConflict(error);
        if (resolved === 'retry') {
          await wait();
          continue;
        }
        if (resolved === 'fresh') continue;
        return adopt(resolved);
      }
      if (error instanceof PaymentsApiError) {
        const state = error instanceof PaymentRefusedError ? 'refused' : 'failed';
        updateAttempt(store.db, key, { state, outcomeCode: error.code, outcomeMessage: error.message, now: now() });
        throw error;
      }
      throw error;
    }
  }
  throw new PaymentNotMadeError(
    `no answer settled the payment request after ${sends} sends; a rerun resumes key ${key} and cannot pay twice`,
    key,
    last,
  );

  async function resolveConflict(error: PaymentIdempotencyError): Promise<Payment | 'retry' | 'fresh'> {
    switch (error.code) {
      case 'BP702':
        // Our body is what was stored with the key, so another request owns this key: a
        // distinct request takes a unique key (seed).
        freshKey('BP702', null);
        return 'fresh';
      case 'BP703': {
        // Poll the named payment; when the message cannot be read, GET the consent instead.
        if (error.paymentId) return client.getPayment(error.paymentId);
        const ours = await findOurs();
        if (ours) return ours;
        return 'retry';
      }
      case 'BP708':
      case 'BP709':
        return 'retry';
      case 'BP710': {
        const named = error.paymentId ? await client.getPayment(error.paymentId) : await findOurs();
        if (!named) return 'retry';
        if (named.status === 'Rejected') {
          recordPayment(store.db, named, now());
          freshKey('BP710', named.payment_id);
          return 'fresh';
        }
        return named;
      }
      case 'BP712': {
        const ours = await findOurs();
        return ours ?? 'retry';
      }
      default:
        updateAttempt(store.db, key, { state: 'failed', outcomeCode: error.code, outcomeMessage: error.message, now: now() });
        throw error;
    }
  }
}

function codeOf(error: unknown): string | null {
  return error instanceof PaymentsApiError || error instanceof UnavailableError ? error.code : null;
}
function statusOf(error: unknown): number | null {
  return error instanceof PaymentsApiError || error instanceof UnavailableError ? error.status : null;
}
