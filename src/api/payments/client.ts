/**
 * `createPaymentsClient`: the Payments API over the Data client's parts: the same HTTP layer,
 * the same token manager (its own token URL and credentials: `{payments_base_url}/oauth2/token`),
 * and the same transport (transport.ts: the 401 rule, the 3xx refusal, the retry policy with
 * `Retry-After` and the token veto), with its own error mapper (`toPaymentsError`). GETs,
 * consent creation and revocation are retried when the service is unavailable; `createPayment`
 * makes ONE attempt, because what follows a failed payment POST is the table of
 * docs/payments-contract.md §5, which the caller (src/payments) follows. Its requests are not
 * paced (no pacer given to its transport).
 */
import { randomUUID } from 'node:crypto';
import type { DateTime } from 'luxon';
import { createClientCore, type ApiClientOptions, type ClientCoreStats } from '../client-core';
import type { PaymentsRequestKind } from '../http';
import { parseStrict } from '../parse';
import { MAX_IDEMPOTENCY_KEY_LENGTH } from '@bankdata/core/consent-rules';
import { createTransport } from '../transport';
import { toPaymentsError } from './map-payment-error';
import {
  CreatePaymentConsentResponse,
  Payment,
  PaymentConsent,
  type CreatePaymentConsentRequest,
  type CreatePaymentRequest,
  type PaymentConsentId,
  type PaymentId,
} from '@bankdata/core/payment-schemas';

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
  createConsent(
    body: CreatePaymentConsentRequest,
    options?: { idempotencyKey?: string },
  ): Promise<CreatePaymentConsentResponse>;
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
  });
  const { apiName, base, http, tokens, retryPolicy, retryDeps, logger } = core;
  const t = createTransport<PaymentsRequestKind>({
    apiName,
    base,
    http,
    tokens,
    retryPolicy,
    retryDeps,
    logger,
    mapError: toPaymentsError,
    // docs/payments-contract.md §1: request-id (UUID) on each request; a new one per attempt.
    attemptHeaders: () => ({ 'request-id': randomUUID() }),
  });
  const json = (body: unknown) => JSON.stringify(body);

  const checkKey = (key: string) => {
    if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH || !UUID_V4.test(key)) {
      // BP299: the key must be a UUID; a caller bug, caught before sending.
      throw new RangeError('idempotency-key must be a lowercase UUID');
    }
  };

  return {
    async createPayment(body, opts) {
      checkKey(opts.idempotencyKey);
      const answer = await t.exchange({
        kind: 'payment_create',
        method: 'POST',
        url: t.url('/payments/v1/payments'),
        body: json(body),
        idempotencyKey: opts.idempotencyKey,
        headers: { 'x-correlation-id': opts.correlationId ?? randomUUID() },
        once: true,
      });
      return parseStrict(Payment, answer, 'payment');
    },
    async getPayment(paymentId) {
      const answer = await t.exchange({
        kind: 'payment',
        method: 'GET',
        url: t.url(`/payments/v1/payments/${encodeURIComponent(paymentId)}`),
      });
      return parseStrict(Payment, answer, 'payment');
    },
    async getConsent(consentId) {
      const answer = await t.exchange({
        kind: 'payment_consent',
        method: 'GET',
        url: t.url(`/payments/v1/consents/${encodeURIComponent(consentId)}`),
      });
      return parseStrict(PaymentConsent, answer, 'payment consent');
    },
    async createConsent(body, opts = {}) {
      const key = opts.idempotencyKey ?? randomUUID();
      checkKey(key);
      const answer = await t.exchange({
        kind: 'payment_consent_create',
        method: 'POST',
        url: t.url('/payments/v1/consents'),
        body: json(body),
        idempotencyKey: key,
      });
      return parseStrict(CreatePaymentConsentResponse, answer, 'payment consent creation');
    },
    async revokeConsent(consentId) {
      await t.exchange({
        kind: 'payment_consent_revoke',
        method: 'DELETE',
        url: t.url(`/payments/v1/consents/${encodeURIComponent(consentId)}`),
      });
    },
    grantedScopes: core.grantedScopes,
    stats: core.stats,
    serverNow: core.serverNow,
  };
}
