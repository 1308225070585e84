/**
 * `createPaymentsClient`: the Payments API over the Data client's parts: the same HTTP layer,
 * the same token manager (its own token URL and credentials: `{payments_base_url}/oauth2/token`),
 * the same retry policy and `Retry-After` reading. GETs, consent creation and revocation are
 * retried when the service is unavailable; `createPayment` makes ONE attempt, because what
 * follows a failed payment POST is the table of docs/payments-contract.md §5, which the caller (src/payments) follows.
 */
import { randomUUID } from 'node:crypto';
import type { DateTime } from 'luxon';
import { createClientCore, type ApiClientOptions, type ClientCoreStats } from '../client-core';
import { ProtocolError } from '../errors';
import type { HttpAnswer, HttpMethod, PaymentsRequestKind } from '../http';
import { parseErrorBody, parseStrict } from '../parse';
import { withRetry } from '../retry';
import { MAX_IDEMPOTENCY_KEY_LENGTH } from '../rules';
import { isTokenFailure } from '../token';
import { toPaymentsError } from './map-error';
import {
  CreatePaymentConsentResponse,
  Payment,
  PaymentConsent,
  type CreatePaymentConsentRequest,
  type CreatePaymentRequest,
  type PaymentConsentId,
  type PaymentId,
} from './schemas';

/** `baseUrl` is `{payments_base_url}`. */
export type PaymentsClientOptions = ApiClientOptions;

export interface CreatePaymentOptions {
  /** Required: every payment request carries one, stored before sending (BP713). */
  idempotencyKey: string;
  /** `x-correlation-id` (UUID); default a new one. */
  correlationId?: string;
}

export type PaymentsClientStats = ClientCoreStats;

export interface PaymentsClient {
  /** One attempt; every failure is mapped (PaymentsApiError, UnavailableError, AuthenticationError). */
  createPayment(body: CreatePaymentRequest, options: CreatePaymentOptions): Promise<Payment>;
  getPayment(paymentId: PaymentId | string): Promise<Payment>;
  getConsent(consentId: PaymentConsentId | string): Promise<PaymentConsent>;
  createConsent(body: CreatePaymentConsentRequest, options?: { idempotencyKey?: string }): Promise<CreatePaymentConsentResponse>;
  revokeConsent(consentId: PaymentConsentId | string): Promise<void>;
  grantedScopes(): Promise<readonly string[]>;
  stats(): PaymentsClientStats;
  serverNow(): DateTime | null;
}

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function createPaymentsClient(options: PaymentsClientOptions): PaymentsClient {
  const core = createClientCore(options, {
    apiName: 'Payments API',
    maxResponseBytes: 4 * 1024 * 1024,
    retryOverrides: { retryOn: [{ kind: 'unavailable' }] },
    onRetry: (info) =>
      core.logger.warn('retrying payments request', { attempt: info.attempt, delayMs: info.delayMs, status: info.error.status, code: info.error.code }),
  });
  const { base, basePath, http, tokens, retryPolicy, retryDeps } = core;
  const url = (path: string) => new URL(base.origin + basePath + path);

  /** One exchange with the 401 rule (docs/bank-api.md §7.4): a new token, one retry. */
  async function send(kind: PaymentsRequestKind, method: HttpMethod, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<HttpAnswer> {
    const exchange = (token: string) => ({
      method,
      url: url(path),
      kind,
      headers: {
        accept: 'application/json',
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        // docs/payments-contract.md §1: request-id (UUID) on each request; a new one per attempt.
        'request-id': randomUUID(),
        ...headers,
        authorization: `Bearer ${token}`,
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const first = await tokens.getToken();
    let answer = await http.send(exchange(first));
    if (answer.status === 401) {
      tokens.invalidate(first);
      answer = await http.send(exchange(await tokens.getToken()));
    }
    if (answer.status >= 200 && answer.status < 300) return answer;
    if (answer.status >= 300 && answer.status < 400) {
      throw new ProtocolError(`redirect (${answer.status}) not followed: the Payments API never redirects`, {
        status: answer.status,
        code: null,
        path: answer.path,
        requestId: answer.requestId,
      });
    }
    const { code, message } = parseErrorBody(answer);
    throw toPaymentsError({ status: answer.status, code, message, headers: answer.headers, path: answer.path, requestId: answer.requestId });
  }

  const retried = <T>(method: HttpMethod, idempotencyKey: string | undefined, operation: () => Promise<T>) =>
    // A token failure already had its retries (token.ts): retrying the call around it would multiply them.
    withRetry(retryPolicy, retryDeps, { method, idempotencyKey, canRetry: (error) => !isTokenFailure(error) }, operation);

  const checkKey = (key: string) => {
    if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH || !UUID_V4.test(key)) {
      // BP299: the key must be a UUID; a caller bug, caught before sending.
      throw new RangeError('idempotency-key must be a lowercase UUID');
    }
  };

  return {
    async createPayment(body, opts) {
      checkKey(opts.idempotencyKey);
      const answer = await send('payment_create', 'POST', '/payments/v1/payments', body, {
        'idempotency-key': opts.idempotencyKey,
        'x-correlation-id': opts.correlationId ?? randomUUID(),
      });
      return parseStrict(Payment, answer, 'payment');
    },
    getPayment: (paymentId) =>
      retried('GET', undefined, async () =>
        parseStrict(Payment, await send('payment', 'GET', `/payments/v1/payments/${encodeURIComponent(paymentId)}`), 'payment'),
      ),
    getConsent: (consentId) =>
      retried('GET', undefined, async () =>
        parseStrict(PaymentConsent, await send('payment_consent', 'GET', `/payments/v1/consents/${encodeURIComponent(consentId)}`), 'payment consent'),
      ),
    createConsent(body, opts = {}) {
      const key = opts.idempotencyKey ?? randomUUID();
      checkKey(key);
      return retried('POST', key, async () =>
        parseStrict(
          CreatePaymentConsentResponse,
          await send('payment_consent_create', 'POST', '/payments/v1/consents', body, { 'idempotency-key': key }),
          'payment consent creation',
        ),
      );
    },
    revokeConsent: (consentId) =>
      retried('DELETE', undefined, async () => {
        await send('payment_consent_revoke', 'DELETE', `/payments/v1/consents/${encodeURIComponent(consentId)}`);
      }),
    grantedScopes: core.grantedScopes,
    stats: core.stats,
    serverNow: core.serverNow,
  };
}
