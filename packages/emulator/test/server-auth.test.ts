import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DateTime } from 'luxon';
import { Api, START, expectErrorBody, issueToken, startTest } from './helpers';
import type { StartedEmulator } from '../src';

let emu: StartedEmulator;
let api: Api;
beforeAll(async () => {
  ({ emu, api } = await startTest());
});
afterAll(() => emu.close());

function tokenRequest(body: Record<string, string>, headers: Record<string, string> = {}) {
  return fetch(`${emu.baseUrl}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(body),
  });
}

describe('token endpoint (docs/bank-api.md §2)', () => {
  it('R-AUTH-1 issues a Bearer token with every scope of the client and expires_in 3600', async () => {
    const res = await tokenRequest({
      grant_type: 'client_credentials',
      client_id: emu.clientId,
      client_secret: emu.clientSecret,
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'scope', 'token_type']);
    expect(body.token_type).toBe('Bearer');
    expect(body.expires_in).toBe(3600);
    expect(body.scope).toBe('manage:consents read:meta read:accounts read:balances read:transactions read:party');
  });

  it('R-AUTH-2 accepts HTTP Basic credentials instead of form fields', async () => {
    const basic = Buffer.from(`${emu.clientId}:${emu.clientSecret}`).toString('base64');
    const res = await tokenRequest({ grant_type: 'client_credentials' }, { authorization: `Basic ${basic}` });
    expect(res.status).toBe(200);
  });

  it('R-AUTH-3 answers 401 with the error body without code for a wrong secret', async () => {
    const res = await api.call('POST', '/oauth2/token', {
      token: null,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: emu.clientId,
        client_secret: 'wrong-secret',
      }).toString(),
    });
    expectErrorBody(res, 401);
    expect(res.json.error).toBe('UNAUTHORIZED');
  });

  it('R-AUTH-3 answers 401 when credentials are missing', async () => {
    const res = await api.call('POST', '/oauth2/token', {
      token: null,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    expectErrorBody(res, 401);
  });

  it('R-AUTH-4 answers 403 for an unsupported grant_type with good credentials', async () => {
    const res = await api.call('POST', '/oauth2/token', {
      token: null,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'password',
        client_id: emu.clientId,
        client_secret: emu.clientSecret,
      }).toString(),
    });
    expectErrorBody(res, 403);
  });

  it('R-AUTH-4 checks credentials before the grant type: both wrong gives 401', async () => {
    const res = await api.call('POST', '/oauth2/token', {
      token: null,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'password',
        client_id: emu.clientId,
        client_secret: 'nope-nope',
      }).toString(),
    });
    expectErrorBody(res, 401);
  });
});

describe('401 on API calls (docs/bank-api.md §7.2)', () => {
  it('R-AUTH-5 sends a bare Bearer challenge and an empty body when no token is sent', async () => {
    const res = await api.get('/v1/meta', { token: null });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(res.text).toBe('');
  });

  it('R-AUTH-5 sends error="invalid_token" and an empty body for a malformed token', async () => {
    const res = await api.get('/v1/meta', { token: 'not-a-token' });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    expect(res.text).toBe('');
  });

  it('R-AUTH-6 refuses a token once the data clock passes its lifetime', async () => {
    const { emu: short, api: shortApi } = await startTest({ tokenLifetimeSeconds: 60 });
    try {
      expect((await shortApi.get('/v1/meta')).status).toBe(200);
      short.advance(60_000);
      const res = await shortApi.get('/v1/meta');
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    } finally {
      await short.close();
    }
  });

  it('refuses every issued token after tokens/revoke', async () => {
    const token = await issueToken(emu.baseUrl, emu.clientId, emu.clientSecret);
    expect((await api.get('/v1/meta', { token })).status).toBe(200);
    expect((await api.control('POST', '/tokens/revoke')).status).toBe(200);
    const res = await api.get('/v1/meta', { token });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    api.forgetToken();
  });

  it('R-AUTH-7 refuses a token of the other environment with the same 401', async () => {
    const minted = await api.control('POST', '/tokens/mint', { environment: 'production' });
    expect(minted.status).toBe(201);
    const res = await api.get('/v1/meta', { token: minted.json.access_token });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    expect(res.text).toBe('');
    const same = await api.control('POST', '/tokens/mint', { environment: 'sandbox' });
    expect((await api.get('/v1/meta', { token: same.json.access_token })).status).toBe(200);
  });
});

describe('scope, unknown paths, methods', () => {
  it('R-AUTH-9 answers 403 without code when the client lacks the scope (docs/bank-api.md §3)', async () => {
    const client = await api.control('POST', '/clients', { scopes: ['read:meta'] });
    expect(client.status).toBe(201);
    const token = await issueToken(emu.baseUrl, client.json.client_id, client.json.client_secret);
    const tokenRes = await fetch(`${emu.baseUrl}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: client.json.client_id,
        client_secret: client.json.client_secret,
      }),
    });
    expect(((await tokenRes.json()) as { scope: string }).scope).toBe('read:meta');
    expect((await api.get('/v1/meta', { token })).status).toBe(200);
    const res = await api.get(`/v1/accounts?consent_id=${emu.consentIds[0] ?? ''}`, { token });
    expectErrorBody(res, 403);
    expect(res.json.error).toBe('FORBIDDEN');
  });

  it.each([
    '/v1/transactions',
    '/v1/balances',
    '/v1/statements',
    '/v1/beneficiaries',
    '/v1/accounts/acc-1/beneficiaries',
    '/v1/accounts/acc-1/direct-debits',
    '/v1/accounts/acc-1/standing-orders',
    '/v1/accounts/acc-1/scheduled-payments',
    '/v1/accounts/acc-1/offers',
    '/v1/accounts/acc-1/statements/s-1/transactions',
    '/v2/accounts',
  ])('answers 404 without code for the standard endpoint %s that does not exist here', async (path) => {
    const body = expectErrorBody(await api.get(`${path}?consent_id=00000000-0000-4000-8000-000000000000`), 404);
    expect(body.path).toBe(path);
  });

  it('answers 405 without code for a wrong method, with Allow', async () => {
    const res = await api.call('PUT', '/v1/meta');
    expectErrorBody(res, 405);
    expect(res.headers.get('allow')).toBe('GET');
    expectErrorBody(await api.call('GET', '/oauth2/token', { token: null }), 405);
  });
});

describe('a request body over 1 MiB (docs/bank-api.md §6.0, §7.2; docs/emulator.md)', () => {
  // docs/bank-api.md §6.0: "Before step 1, the emulator answers a request body over 1 MiB with `413`
  // (§7.2) (ours): it reads a body, up to that limit, before routing and the token check, so a
  // request it will not read gets no `401`."
  const MIB = 1024 * 1024;
  const post = (path: string, bytes: number, headers: Record<string, string> = {}) =>
    api.call('POST', path, { token: null, headers, body: `"${'x'.repeat(bytes - 2)}"` });

  it('answers 413 without code before the 401 of a missing token, and before routing', async () => {
    const tooLarge = await post('/v1/consents', MIB + 1);
    expectErrorBody(tooLarge, 413);
    expect(tooLarge.json.error).toBe('PAYLOAD_TOO_LARGE');
    expect(tooLarge.headers.get('www-authenticate')).toBeNull();
    expectErrorBody(await post('/v1/no-such-endpoint', MIB + 1), 413);
    // At the limit itself the body is read: the token check answers.
    const atLimit = await post('/v1/consents', MIB);
    expect(atLimit.status).toBe(401);
    expect(atLimit.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('answers 413 on the Payments listener too, before its 401', async () => {
    const res = await fetch(`${emu.paymentsBaseUrl}/payments/v1/payments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `"${'x'.repeat(MIB)}"`,
    });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { status: number; code?: string }).code).toBeUndefined();
  });
});

describe('every response', () => {
  it('R-TRANS-1 carries a UUID request-id and a Date header from the data clock', async () => {
    const responses = [
      await api.get('/v1/meta'),
      await api.get('/v1/meta', { token: null }),
      await api.get('/nowhere'),
      await api.control('GET', '/state'),
    ];
    const ids = new Set<string>();
    for (const res of responses) {
      const id = res.headers.get('request-id') ?? '';
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      ids.add(id);
      const date = DateTime.fromHTTP(res.headers.get('date') ?? '');
      expect(date.toMillis()).toBe(emu.now().toMillis());
    }
    expect(ids.size).toBe(responses.length);
    expect(emu.now().toMillis()).toBe(DateTime.fromISO(START).toMillis());
  });

  it('R-ERR-1 writes error timestamps from the data clock with the NZ offset', async () => {
    const body = expectErrorBody(await api.get('/nowhere'), 404);
    expect(DateTime.fromISO(body.timestamp as string).toMillis()).toBe(emu.now().toMillis());
    expect(body.timestamp).toMatch(/\.\d{3}\+13:00$/);
  });
});
