/**
 * `createPaymentsClient`: the Payments API over the Data client's parts: the same HTTP layer,
 * the same token manager (its own token URL and credentials: `{payments_base_url}/oauth2/token`),
 * the same retry policy and `Retry-After` reading. GETs, consent creation and revocation are
 * retried when the service is unavailable; `createPayment` makes ONE attempt, because what
 * follows a failed payment POST is the seed's table, which the caller (src/payments) follows.
 */
import { randomUUID } from 'node:crypto';
import type { DateTime } from 'luxon';
import type { Dispatcher } from 'undici';
import { silentLogger, type Logger } from '../../log';
import { ConfigurationError, ProtocolError } from '../errors';
import { assertTransportAllowed, createHttp, type HttpAnswer, type HttpMethod, type HttpStats, type PaymentsRequestKind } from '../http';
import { parseErrorBody, parseStrict } from '../parse';
import { DEFAULT_RETRY_POLICY, realSleep, withRetry, type RetryDeps, type RetryPolicy } from '../retry';
import { MAX_IDEMPOTENCY_KEY_LENGTH } from '../rules';
import { createTokenProvider, type TokenAuthMethod } from '../token';
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

export interface PaymentsClientOptions {
  /** `{payments_base_url}`: https, or http on a loopback host (the emulator). */
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  tokenAuth?: TokenAuthMethod;
  logger?: Logger;
  /** Per request (default 30 s). */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  now?: () => number;
  dispatcher?: Dispatcher;
}

export interface CreatePaymentOptions {
  /** Required: every payment request carries one, stored before sending (BP713). */
  idempotencyKey: string;
  /** `x-correlation-id` (UUID); default a new one. */
  correlationId?: string;
}

export interface PaymentsClientStats extends HttpStats {
  retries: number;
}

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

function parseBaseUrl(baseUrl: string): URL {
  const fail = (message: string, cause?: unknown) =>
    new ConfigurationError(message, { status: null, code: null, path: '', requestId: null, ...(cause ? { cause } : {}) });
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch (cause) {
    throw fail('the Payments API base URL is not an absolute URL', cause);
  }
  if (url.search || url.hash || url.username || url.password) throw fail('the Payments API base URL must not carry credentials, a query or a fragment');
  assertTransportAllowed(url);
  return url;
}

export function createPaymentsClient(options: PaymentsClientOptions): PaymentsClient {
  const base = parseBaseUrl(options.baseUrl);
  const basePath = base.pathname.replace(/\/+$/, '');
  const logger = options.logger ?? silentLogger;
  const now = options.now ?? Date.now;
  const retryPolicy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...options.retry, retryOn: [{ kind: 'unavailable' }] };
  let retries = 0;
  const retryDeps: RetryDeps = {
    sleep: options.sleep ?? realSleep,
    random: options.random ?? Math.random,
    now,
    onRetry: (info) => {
      retries += 1;
      logger.warn('retrying payments request', { attempt: info.attempt, delayMs: info.delayMs, status: info.error.status, code: info.error.code });
    },
  };
  const http = createHttp({ timeoutMs: options.timeoutMs ?? 30_000, maxResponseBytes: 4 * 1024 * 1024, logger, dispatcher: options.dispatcher });
  const tokens = createTokenProvider({
    tokenUrl: new URL(`${base.origin}${basePath}/oauth2/token`),
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    authMethod: options.tokenAuth ?? 'form',
    http,
    retryPolicy,
    retryDeps,
    now,
    logger,
  });
  const url = (path: string) => new URL(base.origin + basePath + path);

  /** One exchange with the 401 rule (seed Authentication 4): a new token, one retry. */
  async function send(kind: PaymentsRequestKind, method: HttpMethod, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<HttpAnswer> {
    const exchange = (token: string) => ({
      method,
      url: url(path),
      kind,
      headers: {
        accept: 'application/json',
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        // Seed: request-id (UUID) on each request; a new one per attempt.
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
    withRetry(retryPolicy, retryDeps, { method, idempotencyKey }, operation);

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
    grantedScopes: async () => {
      await tokens.getToken();
      return tokens.scopes();
    },
    stats: () => ({ ...http.stats(), retries }),
    serverNow: () => http.serverNow(),
  };
}
