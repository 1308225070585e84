import { afterEach, describe, expect, it } from 'vitest';
import { createDataApiClient } from '../../src/api/client';
import { ConfigurationError, IdempotencyError, UnavailableError } from '../../src/api/api-errors';
import { DEFAULT_RETRY_POLICY, parseRetryAfterMs, retryDelayMs, withRetry } from '../../src/api/retry';
import { backoffDelayMs } from '../../src/backoff';
import type { ConsentId } from '@bankdata/core/schemas';
import { errorBody, json, startLocalServer, type LocalServer } from './local-server';

const unavailable = (retryAfter: string | null = null, serverDate: string | null = null) =>
  new UnavailableError(
    '503',
    { status: 503, code: 'BDT601', path: '/v1/meta', requestId: null },
    retryAfter,
    serverDate,
  );

describe('Retry-After (RFC 9110 10.2.3)', () => {
  const now = Date.parse('2025-03-05T10:00:00Z');
  it('reads integer seconds', () => {
    expect(parseRetryAfterMs('7', now)).toBe(7000);
    expect(parseRetryAfterMs(' 0 ', now)).toBe(0);
  });
  it('reads an HTTP-date against the reference instant', () => {
    expect(parseRetryAfterMs('Wed, 05 Mar 2025 10:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfterMs('Wed, 05 Mar 2025 09:59:00 GMT', now)).toBe(0);
  });
  it('ignores garbage', () => {
    for (const value of ['soon', '-5', '1.5', '', '7 seconds', 'Wed, 32 Mar 2025 10:00:30 GMT']) {
      expect(parseRetryAfterMs(value, now)).toBeNull();
    }
    expect(parseRetryAfterMs(null, now)).toBeNull();
  });
});

describe('delay per the policy (docs/bank-api.md §7.4)', () => {
  const clock = (random: number, now = 0) => ({ random: () => random, now: () => new Date(now) });
  it('backs off exponentially from 1 s with full jitter', () => {
    expect([1, 2, 3, 4].map((a) => backoffDelayMs(DEFAULT_RETRY_POLICY, a, () => 0.99999))).toEqual([
      999, 1999, 3999, 7999,
    ]);
    expect(backoffDelayMs(DEFAULT_RETRY_POLICY, 4, () => 0)).toBe(0);
    expect(backoffDelayMs(DEFAULT_RETRY_POLICY, 3, () => 0.5)).toBe(2000);
  });
  it('caps the backoff at 60 s', () => {
    expect(backoffDelayMs(DEFAULT_RETRY_POLICY, 7, () => 0.99999)).toBe(59_999);
    expect(backoffDelayMs(DEFAULT_RETRY_POLICY, 30, () => 0.99999)).toBe(59_999);
  });
  it('honours Retry-After, no retry when it is longer than the cap (never sooner than the bank allows), backoff on garbage', () => {
    expect(retryDelayMs(DEFAULT_RETRY_POLICY, 1, unavailable('12'), clock(0.5))).toBe(12_000);
    expect(retryDelayMs(DEFAULT_RETRY_POLICY, 1, unavailable('60'), clock(0.5))).toBe(60_000);
    expect(retryDelayMs(DEFAULT_RETRY_POLICY, 1, unavailable('61'), clock(0.5))).toBeNull();
    expect(retryDelayMs(DEFAULT_RETRY_POLICY, 1, unavailable('3600'), clock(0.5))).toBeNull();
    expect(retryDelayMs(DEFAULT_RETRY_POLICY, 2, unavailable('later'), clock(0.5))).toBe(1000);
  });
  it('R-ERR-3 waits, then backs off: a request refused again waits its Retry-After and a backoff that grows', () => {
    expect(retryDelayMs(DEFAULT_RETRY_POLICY, 1, unavailable('12'), clock(0.5))).toBe(12_000);
    expect(retryDelayMs(DEFAULT_RETRY_POLICY, 2, unavailable('12'), clock(0.5))).toBe(12_500);
    expect(retryDelayMs(DEFAULT_RETRY_POLICY, 3, unavailable('12'), clock(0.5))).toBe(13_000);
    expect(retryDelayMs(DEFAULT_RETRY_POLICY, 4, unavailable('12'), clock(0.5))).toBe(14_000);
    // Never sooner than asked (a draw of 0), never past the longest wait.
    expect(retryDelayMs(DEFAULT_RETRY_POLICY, 4, unavailable('12'), clock(0))).toBe(12_000);
    expect(retryDelayMs(DEFAULT_RETRY_POLICY, 4, unavailable('59'), clock(0.99))).toBe(60_000);
  });
  it("judges an HTTP-date against the answer's Date header, not the local clock", () => {
    const error = unavailable('Wed, 05 Mar 2025 10:00:20 GMT', 'Wed, 05 Mar 2025 10:00:00 GMT');
    // Local clock a day ahead of the server: the server's own Date still gives 20 s.
    expect(retryDelayMs(DEFAULT_RETRY_POLICY, 1, error, clock(0.5, Date.parse('2025-03-06T10:00:00Z')))).toBe(20_000);
    const noDate = unavailable('Wed, 05 Mar 2025 10:00:20 GMT');
    expect(retryDelayMs(DEFAULT_RETRY_POLICY, 1, noDate, clock(0.5, Date.parse('2025-03-05T10:00:05Z')))).toBe(15_000);
  });
});

describe('withRetry', () => {
  const deps = (sleeps: number[]) => ({
    sleep: async (ms: number) => void sleeps.push(ms),
    random: () => 0.5,
    now: () => new Date(0),
  });
  it('R-ERR-3 makes at most 5 attempts, then throws the last error', async () => {
    const sleeps: number[] = [];
    let calls = 0;
    await expect(
      withRetry(DEFAULT_RETRY_POLICY, deps(sleeps), { method: 'GET' }, async () => {
        calls++;
        throw unavailable();
      }),
    ).rejects.toBeInstanceOf(UnavailableError);
    expect(calls).toBe(5);
    expect(sleeps).toEqual([500, 1000, 2000, 4000]);
  });
  it('R-ERR-4 never retries a 4xx other than 429 (BDT704 aside)', async () => {
    let calls = 0;
    const refused = new ConfigurationError('x', { status: 400, code: 'BDT211', path: '/v1/consents', requestId: null });
    await expect(
      withRetry(DEFAULT_RETRY_POLICY, deps([]), { method: 'GET' }, async () => {
        calls++;
        throw refused;
      }),
    ).rejects.toBe(refused);
    expect(calls).toBe(1);
  });
  it('R-IDEM-3 retries BDT704 (request with this key still in progress)', async () => {
    let calls = 0;
    const result = await withRetry(
      DEFAULT_RETRY_POLICY,
      deps([]),
      { method: 'POST', idempotencyKey: 'k' },
      async () => {
        if (++calls < 3)
          throw new IdempotencyError('x', { status: 409, code: 'BDT704', path: '/v1/consents', requestId: null });
        return 'done';
      },
    );
    expect(result).toBe('done');
    expect(calls).toBe(3);
  });
  it('R-IDEM-2 does not retry BDT701 (key reused with another body)', async () => {
    let calls = 0;
    await expect(
      withRetry(DEFAULT_RETRY_POLICY, deps([]), { method: 'POST', idempotencyKey: 'k' }, async () => {
        calls++;
        throw new IdempotencyError('x', { status: 409, code: 'BDT701', path: '/v1/consents', requestId: null });
      }),
    ).rejects.toBeInstanceOf(IdempotencyError);
    expect(calls).toBe(1);
  });
  it('never retries a POST without an idempotency key', async () => {
    let calls = 0;
    await expect(
      withRetry(DEFAULT_RETRY_POLICY, deps([]), { method: 'POST' }, async () => {
        calls++;
        throw unavailable();
      }),
    ).rejects.toBeInstanceOf(UnavailableError);
    expect(calls).toBe(1);
  });
});

// Exact timing over real HTTP: a tiny local server, the client's sleep injected (no real waits).
describe('client retries over HTTP', () => {
  let server: LocalServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const clientFor = (s: LocalServer, sleeps: number[]) =>
    createDataApiClient({
      baseUrl: s.baseUrl,
      clientId: 'client',
      clientSecret: 'local-secret-value',
      sleep: async (ms) => void sleeps.push(ms),
      random: () => 0.5,
    });

  it('R-ERR-3 waits Retry-After seconds on 429 and retries the same request; refused again, waits it and backs off', async () => {
    let n = 0;
    server = await startLocalServer((req, res) => {
      if (++n <= 2) json(res, 429, errorBody(429), { 'retry-after': '3' });
      else json(res, 200, []);
    });
    const sleeps: number[] = [];
    await expect(clientFor(server, sleeps).getMeta()).resolves.toEqual([]);
    // The second wait: the 3 s asked, and the first backoff's draw (0.5 × 1 s).
    expect(sleeps).toEqual([3000, 3500]);
    expect(server.seen.filter((r) => r.url === '/v1/meta')).toHaveLength(3);
  });

  it("waits until an HTTP-date Retry-After, measured from the answer's Date", async () => {
    let n = 0;
    server = await startLocalServer((req, res) => {
      if (++n === 1) {
        json(res, 503, errorBody(503, 'BDT602'), {
          date: 'Wed, 05 Mar 2025 10:00:00 GMT',
          'retry-after': 'Wed, 05 Mar 2025 10:00:42 GMT',
        });
      } else json(res, 200, []);
    });
    const sleeps: number[] = [];
    await clientFor(server, sleeps).getMeta();
    expect(sleeps).toEqual([42_000]);
  });

  it('a Retry-After longer than the 60 s cap: no retry sooner than it allows, the error surfaces at once (a later run tries again)', async () => {
    server = await startLocalServer((req, res) => json(res, 503, errorBody(503, 'BDT601'), { 'retry-after': '86400' }));
    const sleeps: number[] = [];
    const error = await clientFor(server, sleeps)
      .getMeta()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnavailableError);
    expect((error as UnavailableError).code).toBe('BDT601');
    expect(sleeps).toEqual([]);
    expect(server.seen.filter((r) => r.url === '/v1/meta')).toHaveLength(1);
  });

  it('backs off with jitter on 500/502/504 without Retry-After', async () => {
    const statuses = [500, 502, 504];
    server = await startLocalServer((req, res) => {
      const status = statuses.shift();
      if (status) json(res, status, errorBody(status));
      else json(res, 200, []);
    });
    const sleeps: number[] = [];
    await clientFor(server, sleeps).getMeta();
    expect(sleeps).toEqual([500, 1000, 2000]);
  });

  it('R-ERR-4 retries POST consent with the same idempotency-key on every attempt (503, then BDT704)', async () => {
    const replies = [() => errorBody(503, 'BDT603'), () => errorBody(409, 'BDT704')];
    server = await startLocalServer((req, res) => {
      const next = replies.shift();
      if (next) {
        const body = next();
        json(res, body.status as number, body);
      } else json(res, 201, { consent_id: '0b7b6e4c-1f0e-4a53-9b1e-2f4d5c6a7b80' });
    });
    const sleeps: number[] = [];
    const body = {
      flow: { detail: { type: 'decoupled' as const }, flow_hint: { type: 'decoupled' as const, bank: 'PNZ' as const } },
      permissions: ['ReadAccountsDetail' as const],
      start_date_time: '2025-03-01T00:00:00+13:00',
    };
    const created = await clientFor(server, sleeps).createConsent(body);
    expect(created.consent_id).toBe('0b7b6e4c-1f0e-4a53-9b1e-2f4d5c6a7b80' as ConsentId);
    const posts = server.seen.filter((r) => r.url === '/v1/consents');
    expect(posts).toHaveLength(3);
    const keys = posts.map((p) => p.headers['idempotency-key']);
    expect(keys[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(keys).size).toBe(1);
    expect(posts.every((p) => p.body === JSON.stringify(body))).toBe(true);
  });

  it('retries the token request on 503 (it changes nothing, so no key is needed)', async () => {
    let tokenCalls = 0;
    server = await startLocalServer(
      (req, res) => {
        if (req.url === '/oauth2/token') {
          if (++tokenCalls === 1) json(res, 503, errorBody(503), { 'retry-after': '2' });
          else
            json(res, 200, {
              access_token: 'tok-123456789',
              token_type: 'Bearer',
              expires_in: 3600,
              scope: 'read:meta',
            });
        } else json(res, 200, []);
      },
      { answerTokens: false },
    );
    const sleeps: number[] = [];
    await clientFor(server, sleeps).getMeta();
    expect(tokenCalls).toBe(2);
    expect(sleeps).toEqual([2000]);
    const form = new URLSearchParams(server.seen[0]!.body);
    expect([form.get('grant_type'), form.get('client_id'), form.get('client_secret')]).toEqual([
      'client_credentials',
      'client',
      'local-secret-value',
    ]);
  });

  it('does not retry a 400', async () => {
    server = await startLocalServer((req, res) => json(res, 400, errorBody(400, 'BDT212')));
    const sleeps: number[] = [];
    await expect(clientFor(server, sleeps).getMeta()).rejects.toBeInstanceOf(ConfigurationError);
    expect(sleeps).toEqual([]);
    expect(server.seen.filter((r) => r.url === '/v1/meta')).toHaveLength(1);
  });
});
