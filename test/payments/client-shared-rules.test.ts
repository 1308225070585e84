/**
 * The Payments client rides the Data client's transport (src/api/transport.ts): the 401 rule
 * (docs/bank-api.md §7.4: a new token, one retry), the 3xx refusal, the retry policy with its
 * token veto, and errors mapped by the Payments API's own mapper. Answers the emulator never
 * gives on cue (a 401 for a valid token, a redirect) come from a tiny local server.
 */
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createDataApiClient } from '../../src/api/client';
import { AuthenticationError, ProtocolError, UnavailableError } from '../../src/api/api-errors';
import { PaymentRequestError } from '../../src/api/payments';
import { createPaymentsClient } from '../../src/api/payments/client';
import { DEFAULT_RETRY_POLICY } from '../../src/api/retry';
import { errorBody, json, startLocalServer, type LocalServer } from '../api/local-server';

const CONSENT = '5d1f0c2a-8e4b-4c6d-9f7a-0b1c2d3e4f50';
const PAYMENT = '0b8f5f7e-3f4b-4d0e-9a43-1b2c3d4e5f60';
const KEY = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const request = {
  consent_id: CONSENT,
  amount: { total: '12.50', currency: 'NZD' as const },
  pcr: { particulars: 'rent' },
};
const payment = {
  payment_id: PAYMENT,
  consent_id: CONSENT,
  status: 'Pending',
  creation_timestamp: '2026-03-10T10:00:00+13:00',
  status_updated_timestamp: '2026-03-10T10:00:00+13:00',
  amount: request.amount,
  pcr: request.pcr,
  idempotency_key: KEY,
};

describe('the Payments client follows the shared transport rules', () => {
  let server: LocalServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  const waits: number[] = [];
  const paymentsClient = (s: LocalServer) => {
    waits.length = 0;
    return createPaymentsClient({
      baseUrl: s.baseUrl,
      clientId: 'client',
      clientSecret: 'local-secret-value',
      sleep: async (ms) => void waits.push(ms),
      random: () => 0.5,
    });
  };
  const tokenRequests = (s: LocalServer) => s.seen.filter((r) => r.url === '/oauth2/token');
  const calls = (s: LocalServer, url: string) => s.seen.filter((r) => r.url === url);
  /** Answers each call to the API (token requests aside) with the next of `replies`. */
  const scripted = (replies: ((res: ServerResponse) => void)[]) => {
    let n = 0;
    return (_req: unknown, res: ServerResponse) => replies[Math.min(n++, replies.length - 1)]!(res);
  };
  const unauthorised = (res: ServerResponse) => {
    res.writeHead(401, { 'www-authenticate': 'Bearer error="invalid_token"' });
    res.end();
  };

  it('a 401 on createPayment gets one new token and one retry, with the same idempotency key and a new request-id; then it pays', async () => {
    server = await startLocalServer(scripted([unauthorised, (res) => json(res, 201, payment)]));
    const created = await paymentsClient(server).createPayment(request, { idempotencyKey: KEY });
    expect(created.payment_id).toBe(PAYMENT);
    expect(tokenRequests(server)).toHaveLength(2);
    const posts = calls(server, '/payments/v1/payments');
    expect(posts).toHaveLength(2);
    expect(posts.map((p) => p.headers['idempotency-key'])).toEqual([KEY, KEY]);
    const ids = posts.map((p) => String(p.headers['request-id']));
    for (const id of ids) expect(id).toMatch(UUID);
    expect(new Set(ids).size).toBe(2);
    expect(JSON.parse(posts[1]!.body)).toEqual(request);
    expect(waits).toEqual([]);
  });

  it('a second 401 is an authentication error (no third request)', async () => {
    server = await startLocalServer(scripted([unauthorised]));
    const error = await paymentsClient(server)
      .getPayment(PAYMENT)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ status: 401 });
    expect(calls(server, `/payments/v1/payments/${PAYMENT}`)).toHaveLength(2);
    expect(tokenRequests(server)).toHaveLength(2);
  });

  it('a 302 is refused, never followed, with the same ProtocolError text as the Data client (naming its own API)', async () => {
    server = await startLocalServer((_req, res) => {
      res.writeHead(302, { location: 'https://elsewhere.example/somewhere' });
      res.end();
    });
    const paymentsError = await paymentsClient(server)
      .getPayment(PAYMENT)
      .catch((e: unknown) => e);
    const dataError = await createDataApiClient({
      baseUrl: server.baseUrl,
      clientId: 'client',
      clientSecret: 'local-secret-value',
    })
      .getMeta()
      .catch((e: unknown) => e);
    expect(paymentsError).toBeInstanceOf(ProtocolError);
    expect(paymentsError).toMatchObject({ status: 302 });
    expect((paymentsError as ProtocolError).message).toBe(
      'redirect (302) not followed: the Payments API never redirects',
    );
    expect((dataError as ProtocolError).message).toBe('redirect (302) not followed: the Data API never redirects');
    expect(server.seen.filter((r) => r.url.includes('elsewhere'))).toHaveLength(0);
    expect(calls(server, `/payments/v1/payments/${PAYMENT}`)).toHaveLength(1);
  });

  it('createPayment makes ONE attempt: a 503 with Retry-After is not retried (the caller follows docs/payments-contract.md §5)', async () => {
    server = await startLocalServer((_req, res) => json(res, 503, errorBody(503), { 'retry-after': '2' }));
    const error = await paymentsClient(server)
      .createPayment(request, { idempotencyKey: KEY })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnavailableError);
    expect(calls(server, '/payments/v1/payments')).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('a revocation answered 503 with Retry-After is retried after the wait the bank asked for', async () => {
    server = await startLocalServer(
      scripted([
        (res) => json(res, 503, errorBody(503), { 'retry-after': '2' }),
        (res) => {
          res.writeHead(204);
          res.end();
        },
      ]),
    );
    const client = paymentsClient(server);
    await client.revokeConsent(CONSENT);
    expect(calls(server, `/payments/v1/consents/${CONSENT}`).map((r) => r.method)).toEqual(['DELETE', 'DELETE']);
    expect(waits).toEqual([2000]);
    expect(client.stats().retries).toBe(1);
  });

  it('a BP-coded refusal is mapped by the Payments mapper (BP299 → PaymentRequestError), not retried', async () => {
    server = await startLocalServer((_req, res) =>
      json(res, 400, errorBody(400, 'BP299', 'Header request-id is not a UUID')),
    );
    const error = await paymentsClient(server)
      .getConsent(CONSENT)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaymentRequestError);
    expect(error).toMatchObject({ code: 'BP299', status: 400 });
    expect(calls(server, `/payments/v1/consents/${CONSENT}`)).toHaveLength(1);
  });

  it('a token request that keeps failing is not retried again around the call (the token veto)', async () => {
    server = await startLocalServer((_req, res) => json(res, 503, errorBody(503)), { answerTokens: false });
    const error = await paymentsClient(server)
      .getPayment(PAYMENT)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnavailableError);
    // The token request had the policy's attempts; the GET around it was never sent nor retried.
    expect(tokenRequests(server)).toHaveLength(DEFAULT_RETRY_POLICY.maxAttempts);
    expect(calls(server, `/payments/v1/payments/${PAYMENT}`)).toHaveLength(0);
    expect(waits).toHaveLength(DEFAULT_RETRY_POLICY.maxAttempts - 1);
  });
});
