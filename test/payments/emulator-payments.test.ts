/**
 * The Payments API emulator over real HTTP: token endpoint, request-id, every consent-state,
 * validation, limit, idempotency, concurrency and availability code the bank ties to
 * POST /payments/v1/payments and GET /payments/v1/payments/{id}, and settlement on the clock.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BP703_PATTERN, BP710_PATTERN } from '@bankdata/core/payment-schemas';
import type { StartedEmulator } from '@bankdata/emulator';
import { consentOf, ENDURING_BODY, PaymentsHttp, startPaymentsEmulator } from './helpers';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let emu: StartedEmulator;
let api: PaymentsHttp;
beforeAll(async () => {
  emu = await startPaymentsEmulator();
  api = new PaymentsHttp(emu);
});
afterAll(() => emu.close());
afterEach(() =>
  emu.updatePaymentsSettings({
    faults: { bp601: 0, bp602: 0, bp603: 0, bp709: 0, http500: 0, drop: 0 },
    createDelayMs: 0,
  }),
);

function expectError(reply: { status: number; json: any; headers: Headers }, status: number, code: string) {
  expect(reply.status, JSON.stringify(reply.json)).toBe(status);
  expect(reply.json.code).toBe(code);
  expect(reply.json.status).toBe(status);
  expect(reply.json.path).toBe('/payments/v1/payments');
  expect(reply.json.timestamp).toMatch(/[+-]1[23]:00$/);
  expect(reply.headers.get('request-id')).toMatch(UUID);
}

describe('token endpoint (docs/payments-contract.md §2)', () => {
  it('R-AUTH-1 issues a Bearer token with every Payments scope', async () => {
    const res = await fetch(`${emu.paymentsBaseUrl}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: emu.paymentsClientId,
        client_secret: emu.paymentsClientSecret,
      }),
    });
    const json = (await res.json()) as { token_type: string; expires_in: number; scope: string };
    expect(res.status).toBe(200);
    expect(res.headers.get('request-id')).toMatch(UUID);
    expect(json.token_type).toBe('Bearer');
    expect(json.expires_in).toBe(3600);
    expect(json.scope.split(' ')).toContain('create:payment');
    expect(json.scope.split(' ')).toHaveLength(17);
  });

  it('R-AUTH-3 answers 401 with the standard error body for a wrong secret, 403 for another grant type', async () => {
    const post = (form: Record<string, string>) =>
      fetch(`${emu.paymentsBaseUrl}/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form),
      });
    const wrong = await post({
      grant_type: 'client_credentials',
      client_id: emu.paymentsClientId,
      client_secret: 'not-the-secret',
    });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ status: 401, error: 'UNAUTHORIZED', path: '/oauth2/token' });
    const grant = await post({
      grant_type: 'password',
      client_id: emu.paymentsClientId,
      client_secret: emu.paymentsClientSecret,
    });
    expect(grant.status).toBe(403);
    expect(await grant.json()).toMatchObject({ status: 403, path: '/oauth2/token' });
  });

  it('R-AUTH-7 refuses a Data API token and the Data API refuses a Payments token (401, separate credentials)', async () => {
    const dataToken = (await (
      await fetch(`${emu.baseUrl}/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: emu.clientId,
          client_secret: emu.clientSecret,
        }),
      })
    ).json()) as { access_token: string };
    const onPayments = await api.call('GET', `/payments/v1/payments/${randomUUID()}`, {
      token: dataToken.access_token,
    });
    expect(onPayments.status).toBe(401);
    expect(onPayments.text).toBe('');
    expect(onPayments.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    const paymentsToken = await api.issueToken();
    const onData = await fetch(`${emu.baseUrl}/v1/meta`, { headers: { authorization: `Bearer ${paymentsToken}` } });
    expect(onData.status).toBe(401);
  });

  it('R-AUTH-9 answers 401 (bare Bearer) without a token, and 403 without code when the client lacks create:payment or view:payment', async () => {
    const none = await api.call('POST', '/payments/v1/payments', { token: null, body: { consent_id: randomUUID() } });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    expect(none.headers.get('request-id')).toMatch(UUID);
    const client = (await api.control('POST', '/payments-clients', { scopes: ['view:single_consent'] })).json as {
      client_id: string;
      client_secret: string;
    };
    const token = (await (
      await fetch(`${emu.paymentsBaseUrl}/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: client.client_id,
          client_secret: client.client_secret,
        }),
      })
    ).json()) as { access_token: string };
    const create = await api.call('POST', '/payments/v1/payments', {
      token: token.access_token,
      body: { consent_id: consentOf(emu, 'single-3') },
    });
    expect(create.status).toBe(403);
    expect(create.json.code).toBeUndefined();
    expect(create.json.message).toContain('create:payment');
    const get = await api.call('GET', `/payments/v1/payments/${randomUUID()}`, { token: token.access_token });
    expect(get.status).toBe(403);
  });
});

describe('consent state codes (docs/payments-contract.md §5)', () => {
  const cases: [string, Parameters<typeof consentOf>[1], number, string, Record<string, unknown>?][] = [
    ['unpaid 48 hours after authorisation', 'single-unpaid-48h', 422, 'BP002'],
    ['already consumed', 'single-consumed', 422, 'BP002'],
    ['rejected', 'single-rejected', 422, 'BP002'],
    ['enduring past expiry_timestamp', 'enduring-expired', 422, 'BP003', ENDURING_BODY],
    ['exceeded its request timeout', 'single-request-timeout', 422, 'BP004'],
    ['revoked', 'single-revoked', 422, 'BP015'],
    ['not yet authorised', 'single-awaiting', 422, 'BP017'],
    ['gateway awaiting submission', 'single-gateway-awaiting', 422, 'BP017'],
    ['a quick payment', 'quick-payment', 422, 'BP018'],
    ['gateway timed out', 'single-gateway-timeout', 422, 'BP021'],
  ];
  for (const [what, role, status, code, body] of cases) {
    it(`R-PAY-8 refuses a payment on a consent ${what} with ${status} ${code}`, async () => {
      expectError(await api.pay(consentOf(emu, role), body ?? {}), status, code);
    });
  }

  it('R-PAY-4 refuses a consent that does not exist with 404 BP101', async () => {
    expectError(await api.pay(randomUUID()), 404, 'BP101');
  });

  it('R-PAY-9 refuses a consent for another bank than the payer authorised at with 422 BP035', async () => {
    expectError(await api.pay(consentOf(emu, 'enduring-other-payer-bank'), ENDURING_BODY), 422, 'BP035');
  });
});

describe('request validation codes', () => {
  it('R-PAY-2 BP235: a single-consent payment with amount or pcr', async () => {
    expectError(
      await api.pay(consentOf(emu, 'single-3'), { amount: { total: '19.99', currency: 'NZD' } }),
      400,
      'BP235',
    );
    expectError(await api.pay(consentOf(emu, 'single-3'), { pcr: { particulars: 'X' } }), 400, 'BP235');
  });

  it('R-PAY-1 BP276: surcharge or total_charge sent', async () => {
    expectError(
      await api.pay(consentOf(emu, 'single-3'), { surcharge: { total: '1.00', currency: 'NZD' } }),
      400,
      'BP276',
    );
    expectError(
      await api.pay(consentOf(emu, 'enduring'), {
        ...ENDURING_BODY,
        total_charge: { total: '121.00', currency: 'NZD' },
      }),
      400,
      'BP276',
    );
  });

  it('R-PAY-1 R-PAY-3 every BP299 of the body before BP276 (§3.1 step 2: "`consent_id` not a UUID, malformed `amount`/`pcr` `BP299`; `surcharge` or `total_charge` present `BP276`")', async () => {
    const surcharge = { total: '1.00', currency: 'NZD' };
    expectError(await api.pay('not-a-uuid', { surcharge }), 400, 'BP299');
    expectError(
      await api.pay(consentOf(emu, 'enduring'), {
        amount: { total: '-5', currency: 'NZD' },
        pcr: { particulars: 'X' },
        total_charge: surcharge,
      }),
      400,
      'BP299',
    );
    expectError(
      await api.pay(consentOf(emu, 'enduring'), {
        amount: ENDURING_BODY.amount,
        pcr: { particulars: 'FAR TOO LONG PARTICULARS' },
        surcharge,
      }),
      400,
      'BP299',
    );
    // A well-formed body with a surcharge is still BP276.
    expectError(await api.pay(consentOf(emu, 'enduring'), { ...ENDURING_BODY, surcharge }), 400, 'BP276');
  });

  it("R-PAY-5 BP216: the consent's bank is not set up for the merchant", async () => {
    expectError(await api.pay(consentOf(emu, 'single-unconfigured-bank')), 400, 'BP216');
  });

  it('R-PAY-3 BP299: idempotency-key, request-id or x-correlation-id not a UUID, consent_id not a UUID, malformed amount', async () => {
    const consent = consentOf(emu, 'single-3');
    expectError(await api.pay(consent, {}, 'not-a-uuid'), 400, 'BP299');
    for (const header of ['request-id', 'x-correlation-id']) {
      const reply = await api.call('POST', '/payments/v1/payments', {
        body: { consent_id: consent },
        headers: { [header]: 'abc', 'idempotency-key': randomUUID() },
      });
      expectError(reply, 400, 'BP299');
      // Every call, not only a POST: the consent's GET and DELETE, the payment's GET.
      for (const [method, path] of [
        ['GET', `/payments/v1/consents/${consent}`],
        ['DELETE', `/payments/v1/consents/${consent}`],
        ['GET', `/payments/v1/payments/${randomUUID()}`],
      ] as const) {
        const answer = await api.call(method, path, { headers: { [header]: 'abc' } });
        expect(answer.status, `${method} ${path} with ${header}: abc`).toBe(400);
        expect(answer.json).toMatchObject({ code: 'BP299', path });
      }
    }
    expectError(await api.pay('not-a-uuid'), 400, 'BP299');
    expectError(
      await api.pay(consentOf(emu, 'enduring'), { ...ENDURING_BODY, amount: { total: 12.5, currency: 'NZD' } }),
      400,
      'BP299',
    );
    expectError(await api.pay(consentOf(emu, 'enduring'), { pcr: ENDURING_BODY.pcr }), 400, 'BP299');
    const notJson = await api.call('POST', '/payments/v1/payments', {
      body: '{',
      headers: { 'idempotency-key': randomUUID() },
    });
    expectError(notJson, 400, 'BP299');
  });
});

describe('limits (docs/payments-contract.md §3.1, §4)', () => {
  const pay = (total: string) =>
    api.pay(consentOf(emu, 'enduring'), { ...ENDURING_BODY, amount: { total, currency: 'NZD' } });
  it('R-PAY-6 BP229: over the bank payment_limit (PNZ 10,000.00)', async () =>
    expectError(await pay('10000.01'), 400, 'BP229'));
  it('R-PAY-6 BP230: over the merchant limit (5,000.00)', async () => expectError(await pay('5000.01'), 400, 'BP230'));
  it('R-PAY-7 BP262: larger than maximum_amount_period (1,000.00)', async () =>
    expectError(await pay('1000.01'), 400, 'BP262'));
  it('R-PAY-7 BP263: larger than maximum_amount_payment (300.00)', async () =>
    expectError(await pay('300.01'), 400, 'BP263'));
});

describe('payments and their lifecycle', () => {
  it('R-PAY-11 creates a payment (201) and GET shows it Pending, then AcceptedSettlementInProcess, then AcceptedSettlementCompleted as the clock moves', async () => {
    const key = randomUUID();
    const created = await api.pay(consentOf(emu, 'single-1'), {}, key);
    expect(created.status).toBe(201);
    expect(created.headers.get('request-id')).toMatch(UUID);
    expect(created.json).toMatchObject({
      status: 'Pending',
      amount: { total: '25.00', currency: 'NZD' },
      pcr: { particulars: 'INV1001' },
      idempotency_key: key,
    });
    const id = created.json.payment_id as string;
    const get = () => api.call('GET', `/payments/v1/payments/${id}`);
    expect((await get()).json.status).toBe('Pending');
    emu.advance(5_000);
    expect((await get()).json.status).toBe('AcceptedSettlementInProcess');
    emu.advance(55_000);
    const done = await get();
    expect(done.json.status).toBe('AcceptedSettlementCompleted');
    expect(done.headers.get('request-id')).toMatch(UUID);
    // The single consent is Consumed: a second payment with a new key is BP002.
    expectError(await api.pay(consentOf(emu, 'single-1')), 422, 'BP002');
  });

  it('R-PAY-12 a payment the bank rejects ends Rejected, and its single consent can pay again with a fresh key', async () => {
    const first = await api.pay(consentOf(emu, 'single-2'));
    expect(first.status).toBe(201);
    await api.control('POST', `/payments/${first.json.payment_id}/reject`);
    const rejected = await api.call('GET', `/payments/v1/payments/${first.json.payment_id}`);
    expect(rejected.json.status).toBe('Rejected');
    const again = await api.pay(consentOf(emu, 'single-2'));
    expect(again.status).toBe(201);
  });

  it('R-PAY-14 GET answers 404 BP102 for an unknown payment and 400 BP299 for an id that is not a UUID', async () => {
    const unknown = await api.call('GET', `/payments/v1/payments/${randomUUID()}`);
    expect(unknown.status).toBe(404);
    expect(unknown.json.code).toBe('BP102');
    const bad = await api.call('GET', '/payments/v1/payments/xyz');
    expect(bad.status).toBe(400);
    expect(bad.json.code).toBe('BP299');
  });

  it('R-PAY-3 an id in upper case is a UUID (RFC 9562: hex digits case-insensitive): a payment made and read, its consent read, none BP299', async () => {
    const consent = consentOf(emu, 'enduring');
    const made = await api.pay(consent.toUpperCase(), ENDURING_BODY, randomUUID().toUpperCase());
    expect(made.status, JSON.stringify(made.json)).toBe(201);
    expect(made.json.consent_id).toBe(consent);
    const paymentId = made.json.payment_id as string;
    const read = await api.call('GET', `/payments/v1/payments/${paymentId.toUpperCase()}`);
    expect(read.status, JSON.stringify(read.json)).toBe(200);
    expect(read.json.payment_id).toBe(paymentId);
    const consentRead = await api.call('GET', `/payments/v1/consents/${consent.toUpperCase()}`);
    expect(consentRead.status, JSON.stringify(consentRead.json)).toBe(200);
    expect(consentRead.json.consent_id).toBe(consent);
  });

  it('R-PAY-10 becomes GatewayTimeout (BP021) and request-timeout (BP004) as the clock passes 15 and 10 minutes', async () => {
    const fresh = await startPaymentsEmulator();
    try {
      const http = new PaymentsHttp(fresh);
      expect((await http.pay(consentOf(fresh, 'single-awaiting'))).json.code).toBe('BP017');
      expect((await http.pay(consentOf(fresh, 'single-gateway-awaiting'))).json.code).toBe('BP017');
      fresh.advance(11 * 60_000);
      expect((await http.pay(consentOf(fresh, 'single-awaiting'))).json.code).toBe('BP004');
      expect((await http.pay(consentOf(fresh, 'single-gateway-awaiting'))).json.code).toBe('BP021');
    } finally {
      await fresh.close();
    }
  });
});

describe("time limits at their instant (the bank's transitions table)", () => {
  const consent = (type: 'redirect' | 'gateway') => ({
    type: 'single',
    flow: {
      detail: { type, redirect_uri: 'https://app.example.nz/consent/return' },
      flow_hint: { type: 'redirect', bank: 'PNZ' },
    },
    amount: { total: '5.00', currency: 'NZD' },
    pcr: { particulars: 'P' },
  });

  it('R-PAY-10 a gateway consent times out "over 15 minutes": still awaiting at 15:00, GatewayTimeout (BP021) after', async () => {
    const fresh = await startPaymentsEmulator();
    try {
      const http = new PaymentsHttp(fresh);
      const created = await http.call('POST', '/payments/v1/consents', {
        body: consent('gateway'),
        headers: { 'idempotency-key': randomUUID() },
      });
      expect(created.status).toBe(201);
      const id = created.json.consent_id as string;
      fresh.advance(15 * 60_000);
      expect((await http.call('GET', `/payments/v1/consents/${id}`)).json.status).toBe('GatewayAwaitingSubmission');
      fresh.advance(1);
      expect((await http.call('GET', `/payments/v1/consents/${id}`)).json.status).toBe('GatewayTimeout');
      expect((await http.pay(id)).json.code).toBe('BP021');
    } finally {
      await fresh.close();
    }
  });

  it('R-PAY-10 an awaiting consent is Rejected (BP004) once its request timeout has passed: at the instant itself it still awaits (BP017)', async () => {
    // docs/bank-api.md §4.4: "the flow's `request_timeout` (meta) passes" → Rejected, "passes" read as
    // the table's other rows ("at 15:00 exactly it still awaits"); §4 of the contract: "awaiting past
    // the flow's request timeout (redirect 10 min, decoupled 5 min) → `Rejected` with BP004 on use".
    const fresh = await startPaymentsEmulator();
    try {
      const http = new PaymentsHttp(fresh);
      const created = await http.call('POST', '/payments/v1/consents', {
        body: consent('redirect'),
        headers: { 'idempotency-key': randomUUID() },
      });
      const id = created.json.consent_id as string;
      fresh.advance(10 * 60_000);
      expect((await http.call('GET', `/payments/v1/consents/${id}`)).json.status).toBe('AwaitingAuthorisation');
      expect((await http.pay(id)).json.code).toBe('BP017');
      fresh.advance(1);
      const rejected = (await http.call('GET', `/payments/v1/consents/${id}`)).json;
      expect(rejected.status).toBe('Rejected');
      expect(Date.parse(rejected.status_updated_timestamp) - Date.parse(rejected.creation_timestamp)).toBe(10 * 60_000);
      expect((await http.pay(id)).json.code).toBe('BP004');
    } finally {
      await fresh.close();
    }
  });

  it('R-PAY-21 a single consent is paid "within 48 hours of authorisation": at the 48th hour still, BP002 after', async () => {
    const fresh = await startPaymentsEmulator();
    try {
      const http = new PaymentsHttp(fresh);
      const authorised = async () => {
        const created = await http.call('POST', '/payments/v1/consents', {
          body: consent('redirect'),
          headers: { 'idempotency-key': randomUUID() },
        });
        const id = created.json.consent_id as string;
        expect((await http.control('POST', `/payment-consents/${id}/authorise`)).status).toBe(200);
        return id;
      };
      const [first, second] = [await authorised(), await authorised()];
      fresh.advance(48 * 3600_000);
      const later = new PaymentsHttp(fresh); // a token of the hour (the first expired long ago)
      expect((await later.pay(first)).status).toBe(201);
      fresh.advance(1);
      expect((await later.pay(second)).json.code).toBe('BP002');
    } finally {
      await fresh.close();
    }
  });
});

describe('idempotency and concurrency (all 409)', () => {
  it('R-PIDEM-1 BP702: the same key with a different payload', async () => {
    const key = randomUUID();
    expect((await api.pay(consentOf(emu, 'enduring'), ENDURING_BODY, key)).status).toBe(201);
    expectError(
      await api.pay(
        consentOf(emu, 'enduring'),
        { ...ENDURING_BODY, amount: { total: '121.00', currency: 'NZD' } },
        key,
      ),
      409,
      'BP702',
    );
  });

  it('R-PIDEM-2 BP703 names the payment still in flight; BP710 names it with its terminal status once settled', async () => {
    const key = randomUUID();
    const body = { ...ENDURING_BODY, amount: { total: '11.00', currency: 'NZD' } };
    const created = await api.pay(consentOf(emu, 'enduring'), body, key);
    const id = created.json.payment_id as string;
    const again = await api.pay(consentOf(emu, 'enduring'), body, key);
    expectError(again, 409, 'BP703');
    expect(BP703_PATTERN.exec(again.json.message)?.[1]).toBe(id);
    emu.advance(60_000);
    const terminal = await api.pay(consentOf(emu, 'enduring'), body, key);
    expectError(terminal, 409, 'BP710');
    expect(BP710_PATTERN.exec(terminal.json.message)?.slice(1, 3)).toEqual([id, 'AcceptedSettlementCompleted']);
  });

  it('R-PIDEM-2 BP710 names a Rejected payment too', async () => {
    const key = randomUUID();
    const body = { ...ENDURING_BODY, amount: { total: '12.00', currency: 'NZD' } };
    const created = await api.pay(consentOf(emu, 'enduring'), body, key);
    await api.control('POST', `/payments/${created.json.payment_id}/reject`);
    const terminal = await api.pay(consentOf(emu, 'enduring'), body, key);
    expect(BP710_PATTERN.exec(terminal.json.message)?.slice(1, 3)).toEqual([created.json.payment_id, 'Rejected']);
  });

  it('R-PIDEM-3 BP708 for the same key while its request is in progress; BP712 for another request on the consent; lowering the delay releases it', async () => {
    // A minute's hold, ended by lowering the setting (packages/emulator/src/hold.ts); else the first
    // request outlasts the test's timeout.
    emu.updatePaymentsSettings({ createDelayMs: 60_000 });
    const key = randomUUID();
    const body = { ...ENDURING_BODY, amount: { total: '13.00', currency: 'NZD' } };
    const first = api.pay(consentOf(emu, 'enduring'), body, key);
    // The first request has reached the emulator and is held (no guess of how long that takes).
    await emu.whenHeld();
    const [sameKey, otherKey] = await Promise.all([
      api.pay(consentOf(emu, 'enduring'), body, key),
      api.pay(consentOf(emu, 'enduring'), body),
    ]);
    expectError(sameKey, 409, 'BP708');
    expectError(otherKey, 409, 'BP712');
    emu.updatePaymentsSettings({ createDelayMs: 0 });
    expect((await first).status).toBe(201);
  });

  it('R-PIDEM-3 BP712 on a single consent too: its payment, held, exists already, yet another request gets BP712, not BP002', async () => {
    // docs/payments-contract.md §9 createDelayMs: "held after the payment exists; same key → BP708, same
    // consent → BP712"; §5.1 BP712 "Another request on the consent is submitting a payment" → "GET the
    // consent's payments first". The single consent is Consumed by the held payment, so BP712 comes
    // before the consent's state (§3.1).
    const created = await api.call('POST', '/payments/v1/consents', {
      body: {
        type: 'single',
        flow: {
          detail: { type: 'redirect', redirect_uri: 'https://app.example.nz/consent/return' },
          flow_hint: { type: 'redirect', bank: 'PNZ' },
        },
        amount: { total: '7.00', currency: 'NZD' },
        pcr: { particulars: 'HELD' },
      },
      headers: { 'idempotency-key': randomUUID() },
    });
    const consent = created.json.consent_id as string;
    expect((await api.control('POST', `/payment-consents/${consent}/authorise`)).status).toBe(200);
    emu.updatePaymentsSettings({ createDelayMs: 60_000 });
    const key = randomUUID();
    const first = api.pay(consent, {}, key);
    await emu.whenHeld();
    const [sameKey, otherKey] = await Promise.all([api.pay(consent, {}, key), api.pay(consent)]);
    expectError(sameKey, 409, 'BP708');
    expectError(otherKey, 409, 'BP712');
    emu.updatePaymentsSettings({ createDelayMs: 0 });
    expect((await first).status).toBe(201);
    // Once the first request is answered, the consent is Consumed by its payment: BP002.
    expectError(await api.pay(consent), 422, 'BP002');
  });

  it('R-PIDEM-4 BP713: the same payment within a minute without an idempotency-key', async () => {
    const body = { ...ENDURING_BODY, amount: { total: '14.00', currency: 'NZD' } };
    expect((await api.pay(consentOf(emu, 'enduring'), body, null)).status).toBe(201);
    expectError(await api.pay(consentOf(emu, 'enduring'), body, null), 409, 'BP713');
    emu.advance(61_000);
    expect((await api.pay(consentOf(emu, 'enduring'), body, null)).status).toBe(201);
  });

  it('R-PIDEM-5 BP709: the consent changed under the request (fault), nothing made', async () => {
    emu.updatePaymentsSettings({ faults: { bp709: 1 } });
    const before = emu.payments().length;
    expectError(
      await api.pay(consentOf(emu, 'enduring'), { ...ENDURING_BODY, amount: { total: '15.00', currency: 'NZD' } }),
      409,
      'BP709',
    );
    expect(emu.payments()).toHaveLength(before);
  });
});

describe('the bank and the period', () => {
  it('R-PAY-15 BP036: the bank refuses for this period; the consent stays Authorised, the same key replays BP036, a new key pays', async () => {
    const consent = consentOf(emu, 'single-3');
    await api.control('POST', `/payment-consents/${consent}/bank-refuse`, { times: 1 });
    const key = randomUUID();
    expectError(await api.pay(consent, {}, key), 422, 'BP036');
    const view = await api.call('GET', `/payments/v1/consents/${consent}`);
    expect(view.json.status).toBe('Authorised');
    expectError(await api.pay(consent, {}, key), 422, 'BP036');
    expect((await api.pay(consent)).status).toBe(201);
  });

  it('R-PAY-16 BP044: an enduring payment that would pass maximum_amount_period for the month', async () => {
    const fresh = await startPaymentsEmulator();
    try {
      const http = new PaymentsHttp(fresh);
      const consent = consentOf(fresh, 'enduring');
      for (const total of ['300.00', '300.00', '300.00']) {
        expect((await http.pay(consent, { ...ENDURING_BODY, amount: { total, currency: 'NZD' } })).status).toBe(201);
      }
      const over = await http.pay(consent, { ...ENDURING_BODY, amount: { total: '100.01', currency: 'NZD' } });
      expect(over.status).toBe(422);
      expect(over.json.code).toBe('BP044');
      expect((await http.pay(consent, { ...ENDURING_BODY, amount: { total: '100.00', currency: 'NZD' } })).status).toBe(
        201,
      );
    } finally {
      await fresh.close();
    }
  });
});

describe('availability (all 503, Retry-After)', () => {
  for (const code of ['BP601', 'BP602', 'BP603'] as const) {
    it(`R-PAY-17 ${code}: 503 with Retry-After, and no payment made`, async () => {
      emu.updatePaymentsSettings({ faults: { [code.toLowerCase()]: 1 } });
      const before = emu.payments().length;
      const reply = await api.pay(consentOf(emu, 'enduring'), {
        ...ENDURING_BODY,
        amount: { total: '16.00', currency: 'NZD' },
      });
      expectError(reply, 503, code);
      expect(reply.headers.get('retry-after')).toBe('1');
      expect(emu.payments()).toHaveLength(before);
    });
  }

  it('R-PAY-18 a 500 after the payment exists: the payment is there, and the same key names it (BP703)', async () => {
    emu.updatePaymentsSettings({ faults: { http500: 1 } });
    const key = randomUUID();
    const body = { ...ENDURING_BODY, amount: { total: '17.00', currency: 'NZD' } };
    expect((await api.pay(consentOf(emu, 'enduring'), body, key)).status).toBe(500);
    emu.updatePaymentsSettings({ faults: { http500: 0 } });
    expect(emu.payments().filter((p) => p.idempotency_key === key)).toHaveLength(1);
    expect((await api.pay(consentOf(emu, 'enduring'), body, key)).json.code).toBe('BP703');
  });
});

describe('payment consents (paths ours)', () => {
  const redirect = {
    detail: { type: 'redirect', redirect_uri: 'https://app.example.nz/consent/return' },
    flow_hint: { type: 'redirect', bank: 'PNZ' },
  };
  const create = (body: unknown) =>
    api.call('POST', '/payments/v1/consents', { body, headers: { 'idempotency-key': randomUUID() } });
  const code = async (body: unknown) => (await create(body)).json.code as string;
  const single = {
    type: 'single',
    flow: redirect,
    amount: { total: '5.00', currency: 'NZD' },
    pcr: { particulars: 'P' },
  };

  it('R-PCON-1 creates a single consent awaiting authorisation, authorised by the control route, with payments listed', async () => {
    const created = await create(single);
    expect(created.status).toBe(201);
    const id = created.json.consent_id as string;
    expect((await api.call('GET', `/payments/v1/consents/${id}`)).json).toMatchObject({
      status: 'AwaitingAuthorisation',
      type: 'single',
      payments: [],
    });
    await api.control('POST', `/payment-consents/${id}/authorise`);
    const paid = await api.pay(id);
    expect(paid.status).toBe(201);
    const view = await api.call('GET', `/payments/v1/consents/${id}`);
    expect(view.json.status).toBe('Consumed');
    expect(view.json.payments.map((p: { payment_id: string }) => p.payment_id)).toEqual([paid.json.payment_id]);
  });

  it('R-PCON-2 BP214 redirect_uri not whitelisted; BP216 bank not set up; BP229/BP230 single amount over a limit', async () => {
    expect(
      await code({
        ...single,
        flow: { ...redirect, detail: { type: 'redirect', redirect_uri: 'https://evil.example.com/x' } },
      }),
    ).toBe('BP214');
    expect(await code({ ...single, flow: { ...redirect, flow_hint: { type: 'redirect', bank: 'NZHL' } } })).toBe(
      'BP216',
    );
    expect(await code({ ...single, amount: { total: '10000.01', currency: 'NZD' } })).toBe('BP229');
    expect(await code({ ...single, amount: { total: '5000.01', currency: 'NZD' } })).toBe('BP230');
  });

  it('R-PCON-3 BP240 identifier type the bank lacks; BP265 identifier_value not a consent ID; BP289–BP293 callback_url', async () => {
    const decoupled = (hint: object, callback?: string) => ({
      ...single,
      flow: {
        detail: { type: 'decoupled', ...(callback ? { callback_url: callback } : {}) },
        flow_hint: { type: 'decoupled', bank: 'PNZ', ...hint },
      },
    });
    const known = consentOf(emu, 'single-1');
    expect(await code(decoupled({ identifier_type: 'mobile_number', identifier_value: known }))).toBe('BP240');
    expect(await code(decoupled({ identifier_type: 'consent_id', identifier_value: '+64-211234567' }))).toBe('BP265');
    expect(await code(decoupled({ identifier_type: 'consent_id', identifier_value: randomUUID() }))).toBe('BP265');
    const hint = { identifier_type: 'consent_id', identifier_value: known };
    expect(await code(decoupled(hint, 'not a url'))).toBe('BP289');
    expect(await code(decoupled(hint, 'ftp://hooks.example.nz/x'))).toBe('BP290');
    expect(await code(decoupled(hint, 'https://localhost/x'))).toBe('BP292');
    expect(await code(decoupled(hint, 'https://hooks.example.invalid/x'))).toBe('BP293');
    expect((await create(decoupled(hint, 'http://hooks.example.nz/x'))).status).toBe(201); // sandbox accepts http
    // A known consent id in upper case is the same UUID (RFC 9562), as in a path or a payment's body.
    const upper = { identifier_type: 'consent_id', identifier_value: known.toUpperCase() };
    expect((await create(decoupled(upper))).status).toBe(201);
  });

  it('R-PCON-3 BP291: http callback_url in production', async () => {
    const prod = await startPaymentsEmulator({ environment: 'production' });
    try {
      const http = new PaymentsHttp(prod);
      const reply = await http.call('POST', '/payments/v1/consents', {
        body: {
          ...single,
          flow: {
            detail: { type: 'decoupled', callback_url: 'http://hooks.example.nz/x' },
            flow_hint: {
              type: 'decoupled',
              bank: 'PNZ',
              identifier_type: 'consent_id',
              identifier_value: consentOf(prod, 'single-1'),
            },
          },
        },
      });
      expect(reply.json.code).toBe('BP291');
    } finally {
      await prod.close();
    }
  });

  it('R-PCON-4 BP283: enduring from_timestamp and expiry_timestamp on the same NZ date', async () => {
    const enduring = {
      type: 'enduring',
      flow: redirect,
      period: 'month',
      maximum_amount_period: { total: '100.00', currency: 'NZD' },
    };
    expect(
      await code({
        ...enduring,
        from_timestamp: '2026-03-11T00:30:00+13:00',
        expiry_timestamp: '2026-03-11T23:30:00+13:00',
      }),
    ).toBe('BP283');
    expect(
      (
        await create({
          ...enduring,
          from_timestamp: '2026-03-11T00:30:00+13:00',
          expiry_timestamp: '2026-03-12T00:30:00+13:00',
        })
      ).status,
    ).toBe(201);
  });

  it('R-PCON-5 BP287/BP288: an enduring maximum_amount_period over the bank, then the merchant limit, without maximum_amount_payment', async () => {
    const enduring = (period: string, perPayment?: string) => ({
      type: 'enduring',
      flow: redirect,
      from_timestamp: '2026-03-11T00:30:00+13:00',
      period: 'month',
      maximum_amount_period: { total: period, currency: 'NZD' },
      ...(perPayment ? { maximum_amount_payment: { total: perPayment, currency: 'NZD' } } : {}),
    });
    expect(await code(enduring('10000.01'))).toBe('BP287'); // PNZ payment_limit 10,000.00
    expect(await code(enduring('5000.01'))).toBe('BP288'); // merchant limit 5,000.00
    expect((await create(enduring('5000.00'))).status).toBe(201);
    // A per-payment cap bounds each payment: the period cap may then exceed the limits.
    expect((await create(enduring('20000.00', '300.00'))).status).toBe(201);
  });

  it('R-PCON-6 revoke: 204, then BP701; BP707 while a payment settles; BP011 on a consent never authorised or ended', async () => {
    const fresh = await startPaymentsEmulator();
    try {
      const http = new PaymentsHttp(fresh);
      const del = (role: Parameters<typeof consentOf>[1]) =>
        http.call('DELETE', `/payments/v1/consents/${consentOf(fresh, role)}`);
      expect((await del('single-3')).status).toBe(204);
      expect((await del('single-3')).json.code).toBe('BP701');
      expect((await del('single-rejected')).json.code).toBe('BP011');
      expect((await del('single-awaiting')).json.code).toBe('BP011');
      // Consumed by its payment while that payment still settles: the bank's transitions table
      // gives Consumed "BP011 / BDT009"; BP707 is a row of Authorised consents only.
      expect((await http.pay(consentOf(fresh, 'single-1'))).status).toBe(201);
      fresh.advance(10_000);
      const consumed = await http.call('GET', `/payments/v1/consents/${consentOf(fresh, 'single-1')}`);
      expect(consumed.json).toMatchObject({
        status: 'Consumed',
        payments: [{ status: 'AcceptedSettlementInProcess' }],
      });
      expect((await del('single-1')).json.code).toBe('BP011');
      expect((await http.pay(consentOf(fresh, 'enduring'), ENDURING_BODY)).status).toBe(201);
      expect((await del('enduring')).json.code).toBe('BP707');
      fresh.advance(60_000);
      expect((await del('enduring')).status).toBe(204);
    } finally {
      await fresh.close();
    }
  });
});

describe('shared state with the Data API', () => {
  it('R-PAY-19 a settled payment credits the merchant account from its settlement instant, keyed pmt-<payment id>', async () => {
    const fresh = await startPaymentsEmulator();
    try {
      const http = new PaymentsHttp(fresh);
      const paid = await http.pay(consentOf(fresh, 'single-1'));
      const { bank, accountId } = fresh.merchantAccount;
      const id = `pmt-${(paid.json.payment_id as string).replace(/-/g, '')}`;
      const has = () => fresh.world.transactionsAt(bank, accountId, fresh.now()).some((t) => t.TransactionId === id);
      expect(has()).toBe(false);
      fresh.advance(59_000);
      expect(has()).toBe(false);
      fresh.advance(1_000);
      const credit = fresh.world
        .transactionsAt(bank as 'PNZ', accountId, fresh.now())
        .find((t) => t.TransactionId === id)!;
      expect(credit).toMatchObject({
        CreditDebitIndicator: 'Credit',
        Status: 'Booked',
        Amount: { Amount: '25.00', Currency: 'NZD' },
        TransactionReference: { CreditorReference: { Particulars: 'INV1001', Code: 'SHOP', Reference: 'ORDER-1001' } },
      });
      // And the Data API's request log saw the payments requests, with request ids.
      const logged = fresh.requests().filter((r) => r.path === '/payments/v1/payments');
      expect(logged).toHaveLength(1);
      expect(logged[0]!.status).toBe(201);
    } finally {
      await fresh.close();
    }
  });
});
