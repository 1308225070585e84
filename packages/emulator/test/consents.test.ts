import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartedEmulator } from '../src';
import { Api, consentBody, expectErrorBody, requestHook, startTest, type ConsentOverrides } from './helpers';

let emu: StartedEmulator;
let api: Api;
let prod: StartedEmulator;
let prodApi: Api;
beforeAll(async () => {
  ({ emu, api } = await startTest());
  ({ emu: prod, api: prodApi } = await startTest({ environment: 'production' }));
});
afterAll(async () => {
  await emu.close();
  await prod.close();
});

type Body = Record<string, any>;
function body(o: ConsentOverrides = {}, e: StartedEmulator = emu): Body {
  return consentBody(e, o);
}
function post(b: Body | string, headers: Record<string, string> = {}, a: Api = api) {
  return a.call('POST', '/v1/consents', { body: b, headers });
}
function withFlow(b: Body, edit: (flow: Body) => void): Body {
  edit(b.flow as Body);
  return b;
}

describe('POST /v1/consents: headers and body (docs/bank-api.md §4.1)', () => {
  it('R-CONS-1 answers 400 BDT255 when both idempotency-key and x-idempotency-key are sent', async () => {
    expectErrorBody(await post(body(), { 'idempotency-key': 'a', 'x-idempotency-key': 'b' }), 400, 'BDT255');
  });

  it('R-CONS-2 answers 400 BDT254 for an idempotency-key over 255 characters, and accepts 255', async () => {
    expectErrorBody(await post(body(), { 'idempotency-key': 'k'.repeat(256) }), 400, 'BDT254');
    expect((await post(body(), { 'idempotency-key': 'k'.repeat(255) })).status).toBe(201);
  });

  it('R-CONS-3 answers 400 BDT299 when the body is not readable JSON', async () => {
    expectErrorBody(await post('{"flow": '), 400, 'BDT299');
    expectErrorBody(await post(''), 400, 'BDT299');
  });

  it.each<[string, (b: Body) => unknown]>([
    ['permissions as a string', (b) => (b.permissions = 'ReadBalances')],
    ['permissions with a number', (b) => (b.permissions = ['ReadBalances', 3])],
    ['flow.detail.type as a number', (b) => (b.flow.detail.type = 1)],
    ['flow.flow_hint as an array', (b) => (b.flow.flow_hint = [])],
    ['start_date_time as null', (b) => (b.start_date_time = null)],
    ['flow.flow_hint.bank as an object', (b) => (b.flow.flow_hint.bank = { name: 'PNZ' })],
  ])('R-CONS-4 answers 400 BDT259 for a field of the wrong JSON type: %s', async (_name, edit) => {
    const b = body();
    edit(b);
    expectErrorBody(await post(b), 400, 'BDT259');
  });

  it('R-CONS-4 answers 400 BDT259 when the body is a JSON array', async () => {
    expectErrorBody(await post('[]'), 400, 'BDT259');
  });
});

describe('POST /v1/consents: fields in table order', () => {
  it.each<[string, (b: Body) => void]>([
    ['flow', (b) => delete b.flow],
    ['flow.detail.redirect_uri', (b) => delete b.flow.detail.redirect_uri],
    ['permissions', (b) => delete b.permissions],
    ['start_date_time', (b) => delete b.start_date_time],
  ])('R-CONS-5 answers 400 without code when the required field %s is missing', async (_name, edit) => {
    const b = body();
    edit(b);
    expectErrorBody(await post(b), 400);
  });

  it.each(['2026-03-01', '2026-03-01T00:00:00', '2026-02-30T00:00:00+13:00', 'yesterday'])(
    'R-CONS-5 answers 400 without code for the unparsable start_date_time %s',
    async (value) => {
      expectErrorBody(await post(body({ start: value })), 400);
    },
  );

  it('R-CONS-5 answers 400 without code for an unparsable end or expiration date', async () => {
    expectErrorBody(await post(body({ end: '2027-01-01' })), 400);
    expectErrorBody(await post(body({ expiration: '2027-01-01T00:00' })), 400);
  });

  it('R-CONS-6 answers 400 BDT261 when flow.detail.type is missing or empty', async () => {
    expectErrorBody(await post(withFlow(body(), (f) => delete f.detail.type)), 400, 'BDT261');
    expectErrorBody(await post(withFlow(body(), (f) => (f.detail.type = ''))), 400, 'BDT261');
    expectErrorBody(await post(withFlow(body(), (f) => delete f.detail)), 400, 'BDT261');
  });

  it('R-CONS-6 answers 400 BDT245 for an unknown flow.detail.type', async () => {
    expectErrorBody(await post(withFlow(body(), (f) => (f.detail.type = 'embedded'))), 400, 'BDT245');
  });

  it.each(['not a uri', '/consent/return', 'myapp:/return'])(
    'R-CONS-9 answers 400 BDT212 for the malformed redirect_uri %s',
    async (uri) => {
      expectErrorBody(await post(withFlow(body(), (f) => (f.detail.redirect_uri = uri))), 400, 'BDT212');
    },
  );

  it.each([
    'https://evil.example.nz/consent/return',
    'https://app.example.nz/other',
    'http://app.example.nz/consent/return',
  ])('R-CONS-10 answers 400 BDT211 for the redirect_uri %s not matched by the whitelist', async (uri) => {
    expectErrorBody(await post(withFlow(body(), (f) => (f.detail.redirect_uri = uri))), 400, 'BDT211');
  });

  it('R-CONS-11 matches the whitelist as a raw path prefix, ignoring the query (docs/bank-api.md §4.1 URL rules)', async () => {
    const uri = 'https://APP.example.nz/consent/return/deeper?state=1';
    expect((await post(withFlow(body(), (f) => (f.detail.redirect_uri = uri)))).status).toBe(201);
  });

  it('ignores redirect_uri on a decoupled consent and callback_url on a redirect one', async () => {
    const decoupled = withFlow(body({ type: 'decoupled' }), (f) => (f.detail.redirect_uri = 'not a uri'));
    expect((await post(decoupled)).status).toBe(201);
    const redirect = withFlow(body(), (f) => (f.detail.callback_url = 'ftp://x'));
    expect((await post(redirect)).status).toBe(201);
  });

  it.each<[string, string, 'sandbox' | 'production']>([
    ['BDT264', 'not a url', 'sandbox'],
    ['BDT265', 'ftp://app.example.nz/hooks', 'sandbox'],
    ['BDT266', 'http://app.example.nz/hooks', 'production'],
    ['BDT267', 'https://localhost/hooks', 'sandbox'],
    ['BDT267', 'https://10.1.2.3/hooks', 'sandbox'],
    ['BDT267', 'https://printer.local/hooks', 'sandbox'],
    ['BDT268', 'https://hooks.example.invalid/consent', 'sandbox'],
  ])('R-CONS-14 answers 400 %s for the callback_url %s (%s)', async (code, url, environment) => {
    const production = environment === 'production';
    const b = withFlow(body({ type: 'decoupled' }, production ? prod : emu), (f) => (f.detail.callback_url = url));
    expectErrorBody(await post(b, {}, production ? prodApi : api), 400, code);
  });

  it('R-CONS-14 accepts an http callback_url in the sandbox', async () => {
    const b = withFlow(body({ type: 'decoupled' }), (f) => (f.detail.callback_url = 'http://app.example.nz/hooks'));
    expect((await post(b)).status).toBe(201);
  });

  it('R-CONS-7 answers 400 BDT262 when flow.flow_hint.type is missing', async () => {
    expectErrorBody(await post(withFlow(body(), (f) => delete f.flow_hint.type)), 400, 'BDT262');
    expectErrorBody(await post(withFlow(body(), (f) => delete f.flow_hint)), 400, 'BDT262');
  });

  it('R-CONS-7 answers 400 BDT246 for an unknown hint type or one that does not match the detail type', async () => {
    expectErrorBody(await post(withFlow(body(), (f) => (f.flow_hint.type = 'gateway'))), 400, 'BDT246');
    expectErrorBody(await post(withFlow(body(), (f) => (f.flow_hint.type = 'decoupled'))), 400, 'BDT246');
  });

  it('lets a gateway consent take either hint type', async () => {
    const b = withFlow(body(), (f) => (f.detail.type = 'gateway'));
    const res = await post(b);
    expect(res.status).toBe(201);
    expect((await api.get(`/v1/consents/${res.json.consent_id}`)).json.status).toBe('GatewayAwaitingSubmission');
  });

  it('R-CONS-8 answers 400 BDT260 when flow_hint has no bank', async () => {
    expectErrorBody(await post(withFlow(body(), (f) => delete f.flow_hint.bank)), 400, 'BDT260');
  });

  it('R-CONS-8 answers 400 BDT243 for a bank it does not recognise (case-sensitive)', async () => {
    expectErrorBody(await post(body({ bank: 'pnz' })), 400, 'BDT243');
    expectErrorBody(await post(body({ bank: 'TSB' })), 400, 'BDT243');
  });

  it('R-CONS-8 answers 400 BDT213 for a production bank in the sandbox', async () => {
    expectErrorBody(await post(body({ bank: 'ANZ' })), 400, 'BDT213');
    expect((await post(body({ bank: 'ANZ' }, prod), {}, prodApi)).status).toBe(201);
  });

  it('R-CONS-17 answers 400 BDT403 when the gateway flow is not enabled for the organisation', async () => {
    emu.updateSettings({ gatewayFlowEnabled: false });
    try {
      expectErrorBody(await post(withFlow(body(), (f) => (f.detail.type = 'gateway'))), 400, 'BDT403');
      const meta = await api.get('/v1/meta');
      expect(meta.json[0].features.gateway_flow.enabled).toBe(false);
    } finally {
      emu.updateSettings({ gatewayFlowEnabled: true });
    }
  });

  it('R-CONS-17 answers 400 BDT401 for a redirect consent at a bank without the redirect flow', async () => {
    expectErrorBody(await post(body({ bank: 'Westpac' }, prod), {}, prodApi), 400, 'BDT401');
  });

  it('R-CONS-17 answers 400 BDT402 for a decoupled consent at a bank without the decoupled flow', async () => {
    expectErrorBody(await post(body({ bank: 'Kiwibank', type: 'decoupled' }, prod), {}, prodApi), 400, 'BDT402');
  });

  it('answers 400 without code when a decoupled identifier is missing', async () => {
    expectErrorBody(await post(withFlow(body({ type: 'decoupled' }), (f) => delete f.flow_hint.identifier_type)), 400);
    expectErrorBody(await post(withFlow(body({ type: 'decoupled' }), (f) => (f.flow_hint.identifier_value = ''))), 400);
  });

  it('R-CONS-15 answers 400 BDT228 for an identifier type the bank does not support', async () => {
    expectErrorBody(
      await post(withFlow(body({ type: 'decoupled' }), (f) => (f.flow_hint.identifier_type = 'email'))),
      400,
      'BDT228',
    );
  });

  it('R-CONS-15 answers 400 BDT230 for a mobile number that does not match the bank regex', async () => {
    const b = withFlow(body({ type: 'decoupled' }), (f) => (f.flow_hint.identifier_value = '021 123 4567'));
    expectErrorBody(await post(b), 400, 'BDT230');
  });

  it('R-CONS-16 answers 400 BDT242 for empty permissions', async () => {
    expectErrorBody(await post(body({ permissions: [] })), 400, 'BDT242');
  });

  it('R-CONS-16 answers 400 BDT241 for a permission the bank does not offer', async () => {
    expectErrorBody(await post(body({ permissions: ['ReadBalances', 'ReadEverything'] })), 400, 'BDT241');
    expectErrorBody(await post(body({ permissions: ['ReadOffers'] })), 400, 'BDT241');
    expectErrorBody(
      await post(body({ bank: 'ASB', permissions: ['ReadStatements'] }, prod), {}, prodApi),
      400,
      'BDT241',
    );
  });

  it('ignores duplicate permissions', async () => {
    const res = await post(body({ permissions: ['ReadBalances', 'ReadBalances', 'ReadAccountsBasic'] }));
    const consent = await api.get(`/v1/consents/${res.json.consent_id}`);
    expect(consent.json.permissions).toEqual(['ReadBalances', 'ReadAccountsBasic']);
  });
});

describe('POST /v1/consents: validation order (docs/bank-api.md §4.1)', () => {
  it('R-CONS-18 checks headers before the body: BDT255 beats BDT299', async () => {
    expectErrorBody(await post('{oops', { 'idempotency-key': 'a', 'x-idempotency-key': 'b' }), 400, 'BDT255');
  });

  it('checks the key length before the body: BDT254 beats BDT299', async () => {
    expectErrorBody(await post('{oops', { 'idempotency-key': 'x'.repeat(300) }), 400, 'BDT254');
  });

  it('checks JSON types before missing fields: BDT259 beats the missing flow', async () => {
    const b = body();
    delete b.flow;
    b.permissions = 'ReadBalances';
    expectErrorBody(await post(b), 400, 'BDT259');
  });

  it('R-CONS-18 checks redirect_uri before the bank: BDT212 beats BDT243', async () => {
    const b = withFlow(body({ bank: 'Nowhere' }), (f) => (f.detail.redirect_uri = 'relative/path'));
    expectErrorBody(await post(b), 400, 'BDT212');
  });

  it('checks the flow right after the bank: BDT401 beats BDT242 and BDT252', async () => {
    const b = body({ bank: 'Westpac', permissions: [], start: '2099-01-01T00:00:00+13:00' }, prod);
    expectErrorBody(await post(b, {}, prodApi), 400, 'BDT401');
  });

  it('checks fields before date rules: BDT242 beats BDT252', async () => {
    expectErrorBody(await post(body({ permissions: [], start: '2099-01-01T00:00:00+13:00' })), 400, 'BDT242');
  });

  it('checks an unparsable date (a field) before the date rules', async () => {
    expectErrorBody(await post(body({ start: '2099-01-01T00:00:00+13:00', expiration: 'soon' })), 400);
  });

  it('R-CONS-18 checks date rules before idempotency: a reused key with a bad date gets the date code', async () => {
    const key = 'order-key-1';
    expect((await post(body(), { 'idempotency-key': key })).status).toBe(201);
    expectErrorBody(
      await post(body({ start: '2099-01-01T00:00:00+13:00' }), { 'idempotency-key': key }),
      400,
      'BDT252',
    );
  });
});

describe('POST /v1/consents: response and idempotency', () => {
  it('R-CONS-19 answers 201 with consent_id and an absolute redirect_uri for redirect flows, none for decoupled', async () => {
    const redirect = await post(body());
    expect(redirect.status).toBe(201);
    expect(Object.keys(redirect.json).sort()).toEqual(['consent_id', 'redirect_uri']);
    expect(redirect.json.consent_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new URL(redirect.json.redirect_uri).searchParams.get('cid')).toBe(redirect.json.consent_id);
    const decoupled = await post(body({ type: 'decoupled' }));
    expect(Object.keys(decoupled.json)).toEqual(['consent_id']);
  });

  it('R-IDEM-1 replays the original 201 for the same key and body', async () => {
    const first = await post(body(), { 'idempotency-key': 'replay-1' });
    const again = await post(body(), { 'idempotency-key': 'replay-1' });
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
  });

  it('R-IDEM-4 reads the deprecated x-idempotency-key when sent alone', async () => {
    const first = await post(body(), { 'x-idempotency-key': 'legacy-1' });
    const again = await post(body(), { 'x-idempotency-key': 'legacy-1' });
    expect(again.json.consent_id).toBe(first.json.consent_id);
  });

  it('R-IDEM-2 answers 409 BDT701 for the same key with another body', async () => {
    expect((await post(body(), { 'idempotency-key': 'reuse-1' })).status).toBe(201);
    expectErrorBody(
      await post(body({ permissions: ['ReadBalances'] }), { 'idempotency-key': 'reuse-1' }),
      409,
      'BDT701',
    );
  });

  it('R-IDEM-3 answers 409 BDT704 while the first request with the key is still in progress; lowering the delay releases it', async () => {
    // A minute's hold: the first request ends only because the setting is lowered while it is
    // held (packages/emulator/src/hold.ts); else it outlasts the test's timeout.
    emu.updateSettings({ consentCreateDelayMs: 60_000 });
    try {
      const b = body();
      const first = post(b, { 'idempotency-key': 'slow-1' });
      // The first request has reached the emulator and is held (no guess of how long that takes).
      await emu.whenHeld();
      expectErrorBody(await post(b, { 'idempotency-key': 'slow-1' }), 409, 'BDT704');
      emu.updateSettings({ consentCreateDelayMs: 0 });
      const done = await first;
      expect(done.status).toBe(201);
      expect((await post(b, { 'idempotency-key': 'slow-1' })).json.consent_id).toBe(done.json.consent_id);
    } finally {
      emu.updateSettings({ consentCreateDelayMs: 0 });
    }
  });

  it('closing the emulator ends a held creation: dropped unanswered, no consent made', async () => {
    // An emulator of its own, with a hook that sees the held request end.
    let ended: (entry: { status: number; consent_id?: string }) => void = () => {};
    const logged = new Promise<{ status: number; consent_id?: string }>((resolve) => (ended = resolve));
    const own = await startTest({
      logger: requestHook((entry) => {
        if (entry.method === 'POST' && entry.path === '/v1/consents') ended(entry);
      }),
    });
    own.emu.updateSettings({ consentCreateDelayMs: 60_000 });
    const answer = post(body({}, own.emu), {}, own.api).catch((error: unknown) => error);
    await own.emu.whenHeld();
    await own.emu.close();
    // Without the close ending it, the hold would outlast the test's timeout.
    expect(await logged).toMatchObject({ status: 0 });
    expect((await logged).consent_id).toBeUndefined();
    expect(await answer).toBeInstanceOf(Error);
  });

  it('creates distinct consents for the same body without a key', async () => {
    const a = await post(body());
    const b = await post(body());
    expect(a.json.consent_id).not.toBe(b.json.consent_id);
  });
});

describe('GET /v1/consents/{id} (docs/bank-api.md §4.2)', () => {
  it('R-LIFE-1 returns the consent as created, with status and timestamps', async () => {
    const b = body();
    const created = await post(b);
    const res = await api.get(`/v1/consents/${created.json.consent_id}`);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      consent_id: created.json.consent_id,
      status: 'AwaitingAuthorisation',
      creation_date_time: '2026-03-10T10:00:00+13:00',
      status_update_date_time: '2026-03-10T10:00:00+13:00',
      flow: b.flow,
      permissions: b.permissions,
      start_date_time: b.start_date_time,
      end_date_time: b.end_date_time,
      expiration_date_time: b.expiration_date_time,
    });
  });

  it('omits end and expiration when not given', async () => {
    const created = await post(body({ end: null, expiration: null }));
    const res = await api.get(`/v1/consents/${created.json.consent_id}`);
    expect(res.json).not.toHaveProperty('end_date_time');
    expect(res.json).not.toHaveProperty('expiration_date_time');
  });

  it('R-LIFE-2 answers 404 BDT101 for an unknown consent and for a non-UUID (docs/bank-api.md §1.5)', async () => {
    expectErrorBody(await api.get('/v1/consents/00000000-0000-4000-8000-000000000000'), 404, 'BDT101');
    expectErrorBody(await api.get('/v1/consents/not-a-uuid'), 404, 'BDT101');
  });
});

describe('DELETE /v1/consents?consent_id= (docs/bank-api.md §4.3)', () => {
  it('R-LIFE-5 revokes an authorised consent with 204, then answers 409 BDT702', async () => {
    const id = await api.authorisedConsent();
    const res = await api.call('DELETE', `/v1/consents?consent_id=${id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await api.get(`/v1/consents/${id}`)).json.status).toBe('Revoked');
    expectErrorBody(await api.call('DELETE', `/v1/consents?consent_id=${id}`), 409, 'BDT702');
  });

  it('R-LIFE-13 revokes an awaiting consent with 204 (our choice)', async () => {
    const id = await api.createConsent();
    expect((await api.call('DELETE', `/v1/consents?consent_id=${id}`)).status).toBe(204);
    expect(emu.consent(id)?.status).toBe('Revoked');
  });

  it('R-LIFE-6 answers 422 BDT009 for a consent that already ended (Rejected)', async () => {
    const id = await api.createConsent();
    await api.control('POST', `/consents/${id}/reject`);
    expectErrorBody(await api.call('DELETE', `/v1/consents?consent_id=${id}`), 422, 'BDT009');
  });

  it('R-LIFE-2 R-LIFE-4 answers 400 without code when consent_id is missing, 404 BDT101 when unknown or not a UUID', async () => {
    expectErrorBody(await api.call('DELETE', '/v1/consents'), 400);
    expectErrorBody(await api.call('DELETE', '/v1/consents?consent_id=123'), 404, 'BDT101');
    expectErrorBody(
      await api.call('DELETE', '/v1/consents?consent_id=00000000-0000-4000-8000-000000000000'),
      404,
      'BDT101',
    );
  });

  it('answers 405 for DELETE on the consent path (revoke takes the query parameter)', async () => {
    const id = await api.createConsent();
    expectErrorBody(await api.call('DELETE', `/v1/consents/${id}`), 405);
  });
});
