/**
 * Knobs and faults: each fault kind reachable, Retry-After forms, the rate limit (429), the
 * request log, latency, and determinism (same seed and start give the same bytes).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DateTime } from 'luxon';
import { startEmulator, type StartedEmulator } from '../src';
import { Api, START, consentBody, expectErrorBody, issueToken, startTest } from './helpers';

let emu: StartedEmulator;
let api: Api;
let consent: string;
beforeAll(async () => {
  ({ emu, api } = await startTest());
  consent = await api.authorisedConsent();
});
afterAll(() => emu.close());

const NONE = { bdt601: 0, bdt602: 0, bdt603: 0, bdt604: 0, http500: 0, http502: 0, http504: 0, drop: 0 };
const accounts = () => api.get(`/v1/accounts?consent_id=${consent}`);

describe('fault kinds (docs/bank-api.md §7.3: BDT601–604 are 503)', () => {
  it.each(['bdt601', 'bdt602', 'bdt603', 'bdt604'] as const)(
    'answers 503 %s with Retry-After seconds when its rate is 1',
    async (kind) => {
      await api.token();
      emu.updateSettings({ faults: { ...NONE, [kind]: 1 }, faultRetryAfterSeconds: 7 });
      try {
        const res = await accounts();
        expectErrorBody(res, 503, kind.toUpperCase());
        expect(res.headers.get('retry-after')).toBe('7');
        expect(emu.requests().at(-1)).toMatchObject({ status: 503, code: kind.toUpperCase(), fault: kind });
      } finally {
        emu.updateSettings({ faults: NONE, faultRetryAfterSeconds: 1 });
      }
    },
  );

  it.each([
    ['http500', 500],
    ['http502', 502],
    ['http504', 504],
  ] as const)('answers %s with an error body without code', async (kind, status) => {
    await api.token();
    emu.updateSettings({ faults: { ...NONE, [kind]: 1 } });
    try {
      expectErrorBody(await accounts(), status);
    } finally {
      emu.updateSettings({ faults: NONE });
    }
  });

  it('drops the connection without an answer, and logs it with status 0', async () => {
    await api.token();
    emu.updateSettings({ faults: { ...NONE, drop: 1 } });
    try {
      await expect(accounts()).rejects.toThrow();
      expect(emu.requests().at(-1)).toMatchObject({ status: 0, fault: 'drop', consent_id: consent });
    } finally {
      emu.updateSettings({ faults: NONE });
    }
  });

  it('sends no Retry-After when faultRetryAfterSeconds is null, and an HTTP-date on the data clock when asked', async () => {
    await api.token();
    emu.updateSettings({ faults: { ...NONE, bdt601: 1 }, faultRetryAfterSeconds: null });
    try {
      expect((await accounts()).headers.get('retry-after')).toBeNull();
      emu.updateSettings({ faultRetryAfterSeconds: 30, retryAfterHttpDate: true });
      const res = await accounts();
      const retryAt = DateTime.fromHTTP(res.headers.get('retry-after') ?? '');
      const date = DateTime.fromHTTP(res.headers.get('date') ?? '');
      expect(retryAt.isValid).toBe(true);
      expect(retryAt.diff(date, 'seconds').seconds).toBe(30);
    } finally {
      emu.updateSettings({ faults: NONE, faultRetryAfterSeconds: 1, retryAfterHttpDate: false });
    }
  });

  it('creates the consent before a 500 on POST, so a retry with the same key replays it', async () => {
    await api.token();
    emu.updateSettings({ faults: { ...NONE, http500: 1 } });
    const body = consentBody(emu);
    let failed;
    try {
      failed = await api.call('POST', '/v1/consents', { body, headers: { 'idempotency-key': 'fault-retry-1' } });
    } finally {
      emu.updateSettings({ faults: NONE });
    }
    expectErrorBody(failed, 500);
    const created = emu.requests().at(-1)!.consent_id!;
    const retry = await api.call('POST', '/v1/consents', { body, headers: { 'idempotency-key': 'fault-retry-1' } });
    expect(retry.status).toBe(201);
    expect(retry.json.consent_id).toBe(created);
  });

  it('creates nothing on a 503 for POST, so the retry creates the consent', async () => {
    await api.token();
    const before = (await api.control('GET', '/state')).json.consents.length;
    emu.updateSettings({ faults: { ...NONE, bdt603: 1 } });
    const body = consentBody(emu);
    try {
      expectErrorBody(
        await api.call('POST', '/v1/consents', { body, headers: { 'idempotency-key': 'fault-503' } }),
        503,
        'BDT603',
      );
    } finally {
      emu.updateSettings({ faults: NONE });
    }
    expect((await api.control('GET', '/state')).json.consents.length).toBe(before);
    expect((await api.call('POST', '/v1/consents', { body, headers: { 'idempotency-key': 'fault-503' } })).status).toBe(
      201,
    );
  });

  it('takes faults after every check: a bad request still gets its own answer', async () => {
    await api.token();
    emu.updateSettings({ faults: { ...NONE, bdt601: 1 } });
    try {
      expectErrorBody(await api.get('/v1/accounts?consent_id=00000000-0000-4000-8000-000000000000'), 404, 'BDT101');
    } finally {
      emu.updateSettings({ faults: NONE });
    }
  });

  it('sets a profile over HTTP (PUT /__emulator/settings) and draws deterministically from the emulator seed', async () => {
    const kinds = async (e: StartedEmulator, a: Api) => {
      await a.token();
      expect((await a.control('PUT', '/settings', { faults: 'heavy' })).json.faults.bdt601).toBeGreaterThan(0);
      const statuses: number[] = [];
      for (let i = 0; i < 60; i++) {
        try {
          statuses.push((await a.get('/v1/meta')).status);
        } catch {
          statuses.push(0);
        }
      }
      await a.control('PUT', '/settings', { faults: 'none' });
      return statuses;
    };
    const one = await startTest({ seed: 11 });
    const two = await startTest({ seed: 11 });
    try {
      const a = await kinds(one.emu, one.api);
      const b = await kinds(two.emu, two.api);
      expect(a).toEqual(b);
      expect(a.some((s) => s !== 200)).toBe(true);
      expect(a.some((s) => s === 200)).toBe(true);
    } finally {
      await one.emu.close();
      await two.emu.close();
    }
  });

  it('rejects an invalid settings patch with 400', async () => {
    expect((await api.control('PUT', '/settings', { faults: { bdt601: 2 } })).status).toBe(400);
    expect((await api.control('PUT', '/settings', { pageSize: 0 })).status).toBe(400);
    expect((await api.control('PUT', '/settings', { unknownKnob: true })).status).toBe(400);
  });
});

describe('rate limit (docs/bank-api.md §7.2: 429 with Retry-After seconds, no code)', () => {
  it('answers 429 after the burst, per client, with integer Retry-After', async () => {
    await api.token();
    emu.updateSettings({ rateLimit: { requestsPerSecond: 0.01, burst: 3 } });
    try {
      for (let i = 0; i < 3; i++) expect((await api.get('/v1/meta')).status).toBe(200);
      const res = await api.get('/v1/meta');
      const body = expectErrorBody(res, 429);
      expect(body.error).toBe('TOO_MANY_REQUESTS');
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(90);
      // Another client has its own bucket.
      const other = await api.control('POST', '/clients', { scopes: ['read:meta'] });
      const token = await issueToken(emu.baseUrl, other.json.client_id, other.json.client_secret);
      expect((await api.get('/v1/meta', { token })).status).toBe(200);
      // 401 comes first (step 1): no token is not rate-limited.
      expect((await api.get('/v1/meta', { token: null })).status).toBe(401);
    } finally {
      emu.updateSettings({ rateLimit: null });
    }
  });
});

describe('request log', () => {
  it('records seq, data-clock time, method, path, query, status, code, client, consent and account', async () => {
    await api.token();
    const after = emu.requests().at(-1)?.seq ?? 0;
    const account = emu.consent(consent)!.accountKeys[0]!.split(':')[1]!;
    await api.get(`/v1/accounts/${account}/balances?consent_id=${consent}`);
    await api.get(
      `/v1/accounts/${account}/transactions?consent_id=${consent}&fromBookingDateTime=2026-03-02&toBookingDateTime=2026-03-01`,
    );
    await api.control('GET', '/state');
    const res = await api.control('GET', `/requests?after=${after}`);
    expect(res.json).toHaveLength(2);
    const [balances, transactions] = res.json;
    expect(balances).toMatchObject({
      seq: after + 1,
      time: '2026-03-10T10:00:00+13:00',
      method: 'GET',
      path: `/v1/accounts/${account}/balances`,
      query: { consent_id: consent },
      status: 200,
      client_id: emu.clientId,
      consent_id: consent,
      account_id: account,
    });
    expect(balances.request_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(transactions).toMatchObject({
      seq: after + 2,
      status: 400,
      code: 'BDT237',
      query: { fromBookingDateTime: '2026-03-02' },
    });
  });

  it('logs token requests with the client id and never the secret or token', async () => {
    api.forgetToken();
    const token = await api.token();
    const entry = emu.requests().at(-1)!;
    expect(entry).toMatchObject({ method: 'POST', path: '/oauth2/token', status: 200, client_id: emu.clientId });
    const all = JSON.stringify(emu.requests());
    expect(all).not.toContain(emu.clientSecret);
    expect(all).not.toContain(token);
  });

  it('is cleared by DELETE /__emulator/requests while seq keeps counting', async () => {
    const last = emu.requests().at(-1)!.seq;
    expect((await api.control('DELETE', '/requests')).status).toBe(204);
    expect(emu.requests()).toEqual([]);
    await api.get('/v1/meta');
    expect(emu.requests().map((e) => e.seq)).toEqual([last + 1]);
  });
});

describe('latency and determinism', () => {
  it('delays every answer by latencyMs', async () => {
    await api.token();
    emu.updateSettings({ latencyMs: 150 });
    try {
      const t = performance.now();
      await api.get('/v1/meta');
      // A lower bound on a delay the emulator adds: a slow machine only lengthens it, never fails it.
      expect(performance.now() - t).toBeGreaterThanOrEqual(140);
    } finally {
      emu.updateSettings({ latencyMs: 0 });
    }
  });

  it('gives byte-identical responses for the same seed and start', async () => {
    // Every request on a connection of its own (connection: close): no kept-alive socket to the
    // first emulator is left in fetch's pool when the second takes its port.
    const once = { connection: 'close' };
    const bodies = async (port: number) => {
      const e = await startEmulator({ seed: 5, start: START, port });
      try {
        const tokenAnswer = await fetch(`${e.baseUrl}/oauth2/token`, {
          method: 'POST',
          headers: { ...once, 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'client_credentials',
            client_id: e.clientId,
            client_secret: e.clientSecret,
          }),
        });
        const token = ((await tokenAnswer.json()) as { access_token: string }).access_token;
        const a = new Api(e);
        const id = e.consentIds.find(
          (c) => e.consent(c)?.status === 'Authorised' && e.consent(c)!.permissions.includes('ReadStatements'),
        )!;
        const account = e.consent(id)!.accountKeys[0]!.split(':')[1]!;
        const out: string[] = [];
        for (const path of [
          '/v1/meta',
          `/v1/consents/${id}`,
          `/v1/accounts?consent_id=${id}`,
          `/v1/accounts/${account}/balances?consent_id=${id}`,
          `/v1/accounts/${account}/transactions?consent_id=${id}&fromBookingDateTime=2026-01-01&toBookingDateTime=2026-03-10`,
          `/v1/accounts/${account}/statements?consent_id=${id}`,
          `/v1/party?consent_id=${id}`,
          '/v1/nowhere',
        ]) {
          const res = await a.get(path, { token, headers: once });
          out.push(`${res.status} ${res.headers.get('date')} ${res.text}`);
        }
        out.push((await a.call('POST', '/v1/consents', { token, headers: once, body: consentBody(e) })).text);
        return { out, port: Number(new URL(e.baseUrl).port) };
      } finally {
        await e.close();
      }
    };
    const first = await bodies(0);
    const second = await bodies(first.port);
    expect(second.out).toEqual(first.out);
    expect(first.out.join('').length).toBeGreaterThan(10_000);
  });
});
