/**
 * The Payments API emulator held to sentences of the bank's API documentation that had no test
 * (docs/conformance.md): an enduring consent becoming Consumed at its expiry_timestamp, a single
 * consent consumed by its payment, `payments[0]` with more than one payment, quick payment scopes.
 * Each asserts the documented status and code; titles start with the rule ids.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartedEmulator } from '../src';
import { viewScopes } from '../src/payments/consent-routes';
import { startTest } from './helpers';

let emu: StartedEmulator;

beforeAll(async () => {
  ({ emu } = await startTest());
});
afterAll(() => emu.close());

/** A new token for every request: the tests move the data clock past a token's hour. */
async function newToken(clientId = emu.paymentsClientId, clientSecret = emu.paymentsClientSecret): Promise<string> {
  const res = await fetch(`${emu.paymentsBaseUrl}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: clientSecret,
    }),
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${await newToken()}`,
    'idempotency-key': randomUUID(),
  };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(emu.paymentsBaseUrl + path, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: text === '' ? undefined : JSON.parse(text) };
}

const pay = (consentId: string, extra: Record<string, unknown> = {}) =>
  call('POST', '/payments/v1/payments', { consent_id: consentId, ...extra });
const ENDURING_PAYMENT = {
  amount: { total: '12.00', currency: 'NZD' },
  pcr: { particulars: 'SUB-0001', code: 'MONTHLY', reference: 'ACME' },
};

const REDIRECT_FLOW = {
  detail: { type: 'redirect', redirect_uri: 'https://app.example.nz/consent/return' },
  flow_hint: { type: 'redirect', bank: 'PNZ' },
};

/** An Authorised enduring consent from a day before the emulator's start (helpers START) to `expiry`. */
async function enduringConsent(expiry: string): Promise<string> {
  const created = await call('POST', '/payments/v1/consents', {
    type: 'enduring',
    flow: REDIRECT_FLOW,
    from_timestamp: '2026-03-09T10:00:00+13:00',
    expiry_timestamp: expiry,
    period: 'month',
    maximum_amount_period: { total: '1000.00', currency: 'NZD' },
    maximum_amount_payment: { total: '300.00', currency: 'NZD' },
  });
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  const id = created.json.consent_id as string;
  const authorised = await fetch(`${emu.paymentsBaseUrl}/__emulator/payment-consents/${id}/authorise`, {
    method: 'POST',
  });
  expect(authorised.status).toBe(200);
  return id;
}

describe('"payments: List; payments[0] is the first payment"', () => {
  it('R-PCON-7 with three payments on an enduring consent, payments[0] is the first made and the list is in creation order', async () => {
    const id = await enduringConsent('2026-06-09T10:00:00+13:00');
    const made: string[] = [];
    for (const total of ['10.00', '11.00', '12.00']) {
      const paid = await pay(id, { ...ENDURING_PAYMENT, amount: { total, currency: 'NZD' } });
      expect(paid.status, JSON.stringify(paid.json)).toBe(201);
      made.push(paid.json.payment_id as string);
      emu.advance(1000);
    }
    const view = await call('GET', `/payments/v1/consents/${id}`);
    expect(view.status).toBe(200);
    expect(view.json.payments).toHaveLength(3);
    expect(view.json.payments[0].payment_id).toBe(made[0]);
    expect(view.json.payments[0].amount).toEqual({ total: '10.00', currency: 'NZD' });
    expect(view.json.payments.map((p: { payment_id: string }) => p.payment_id)).toEqual(made);
  });
});

describe('"Authorised (enduring, either API) | time passes | expiry_timestamp … has passed | Consumed | Later use gives BP003"', () => {
  it('R-PAY-13 an enduring consent pays up to its expiry_timestamp, is Consumed once it has passed, and a payment then gets 422 BP003', async () => {
    const expiry = emu.now().plus({ days: 2 });
    const id = await enduringConsent(expiry.toISO()!);
    expect((await pay(id, ENDURING_PAYMENT)).status).toBe(201);
    emu.advance(expiry.toMillis() - emu.now().toMillis());
    expect((await call('GET', `/payments/v1/consents/${id}`)).json.status).toBe('Authorised');
    expect((await pay(id, ENDURING_PAYMENT)).status).toBe(201);
    emu.advance(1);
    const view = await call('GET', `/payments/v1/consents/${id}`);
    expect(view.json.status).toBe('Consumed');
    const refused = await pay(id, ENDURING_PAYMENT);
    expect(refused.status).toBe(422);
    expect(refused.json.code).toBe('BP003');
  });
});

describe('"Authorised (single) | payment created | payment accepted | Consumed | A second payment gives BP002"', () => {
  it('R-PAY-20 a single consent is Consumed by its payment, and a second payment with a new key gets 422 BP002', async () => {
    const created = await call('POST', '/payments/v1/consents', {
      type: 'single',
      flow: REDIRECT_FLOW,
      amount: { total: '5.00', currency: 'NZD' },
      pcr: { particulars: 'P' },
    });
    const id = created.json.consent_id as string;
    await fetch(`${emu.paymentsBaseUrl}/__emulator/payment-consents/${id}/authorise`, { method: 'POST' });
    const first = await pay(id);
    expect(first.status, JSON.stringify(first.json)).toBe(201);
    expect((await call('GET', `/payments/v1/consents/${id}`)).json.status).toBe('Consumed');
    const second = await pay(id);
    expect(second.status).toBe(422);
    expect(second.json.code).toBe('BP002');
  });
});

describe('"Revoking a quick payment uses revoke:single_consent"; quick payments are viewed with view:quick_payment', () => {
  it('R-PCON-8 the scope each consent type needs to be viewed and revoked', () => {
    expect(viewScopes({ type: 'quick_payment' }, 'view')).toEqual(['view:quick_payment']);
    expect(viewScopes({ type: 'quick_payment' }, 'revoke')).toEqual(['revoke:single_consent']);
    expect(viewScopes({ type: 'single' }, 'view')).toEqual(['view:single_consent']);
    expect(viewScopes({ type: 'single' }, 'revoke')).toEqual(['revoke:single_consent']);
    expect(viewScopes({ type: 'enduring' }, 'view')).toEqual(['view:enduring_consent']);
    expect(viewScopes({ type: 'enduring' }, 'revoke')).toEqual(['revoke:enduring_consent']);
  });

  it('R-PCON-8 a client of the same organisation holding only view:single_consent gets 403 on a quick payment; view:quick_payment reads it; revoke needs revoke:single_consent', async () => {
    const id = emu.paymentConsents['quick-payment'];
    const asClient = async (scopes: string[], method: string) => {
      const made = await fetch(`${emu.paymentsBaseUrl}/__emulator/payments-clients`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ scopes, organisation_of: emu.paymentsClientId }),
      });
      expect(made.status).toBe(201);
      const client = (await made.json()) as { client_id: string; client_secret: string };
      const res = await fetch(`${emu.paymentsBaseUrl}/payments/v1/consents/${id}`, {
        method,
        headers: { authorization: `Bearer ${await newToken(client.client_id, client.client_secret)}` },
      });
      const text = await res.text();
      return { status: res.status, json: text === '' ? undefined : JSON.parse(text) };
    };
    const single = await asClient(['view:single_consent', 'view:enduring_consent'], 'GET');
    expect(single.status).toBe(403);
    expect(single.json.code).toBeUndefined();
    expect((await asClient(['view:quick_payment'], 'GET')).status).toBe(200);
    expect((await asClient(['view:quick_payment', 'revoke:enduring_consent'], 'DELETE')).status).toBe(403);
    const revoke = await asClient(['revoke:single_consent'], 'DELETE');
    expect(revoke.status).not.toBe(403);
    expect([204, 409, 422]).toContain(revoke.status);
  });

  it('R-PCON-8 a quick payment is read with the client holding view:quick_payment, and POST /payments on it is 422 BP018', async () => {
    const id = emu.paymentConsents['quick-payment'];
    const view = await call('GET', `/payments/v1/consents/${id}`);
    expect(view.status).toBe(200);
    expect(view.json.type).toBe('quick_payment');
    const refused = await pay(id);
    expect(refused.status).toBe(422);
    expect(refused.json.code).toBe('BP018');
  });
});

describe('"which matches that path and any path that starts with it as a raw string prefix"; "Scheme, host and port match exactly"', () => {
  it('R-CONS-11 R-PCON-2 the Payments API matches redirect_uri as written: a dot segment, a percent-encoded dot or an explicit :443 is 400 BP214', async () => {
    const consent = (redirectUri: string) =>
      call('POST', '/payments/v1/consents', {
        type: 'single',
        flow: { ...REDIRECT_FLOW, detail: { type: 'redirect', redirect_uri: redirectUri } },
        amount: { total: '5.00', currency: 'NZD' },
        pcr: { particulars: 'P' },
      });
    for (const uri of [
      'https://app.example.nz/consent/./return',
      'https://app.example.nz/consent/%2E/return',
      'https://app.example.nz:443/consent/return',
    ]) {
      const refused = await consent(uri);
      expect(refused.status, uri).toBe(400);
      expect(refused.json.code, uri).toBe('BP214');
    }
    expect((await consent('https://app.example.nz/consent/return/deeper')).status).toBe(201);
  });
});
