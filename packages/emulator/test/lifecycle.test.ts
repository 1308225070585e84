/**
 * Consent lifecycle by the data clock and the control routes (docs/bank-api.md §4.4), and the consent
 * state codes of resource calls (docs/bank-api.md §6.0 step 6).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartedEmulator } from '../src';
import { Api, RETURN_URI, consentBody, expectErrorBody, startTest } from './helpers';

let emu: StartedEmulator;
let api: Api;
beforeAll(async () => {
  ({ emu, api } = await startTest({ tokenLifetimeSeconds: 10 * 24 * 3600 }));
});
afterAll(() => emu.close());

const MINUTE = 60_000;
const accounts = (id: string) => api.get(`/v1/accounts?consent_id=${id}`);
const status = async (id: string) => (await api.get(`/v1/consents/${id}`)).json.status as string;

async function gatewayConsent(): Promise<string> {
  const body = consentBody(emu) as { flow: { detail: { type: string } } };
  body.flow.detail.type = 'gateway';
  const res = await api.call('POST', '/v1/consents', { body });
  return res.json.consent_id as string;
}

describe('gateway flow', () => {
  it('R-LIFE-8 times out over 15 minutes awaiting submission: GatewayTimeout, then BDT013 and BDT009', async () => {
    const id = await gatewayConsent();
    const created = (await api.get(`/v1/consents/${id}`)).json.creation_date_time as string;
    // The bank's transitions table: "gateway consent awaiting customer | time passes | over 15
    // minutes | GatewayTimeout": at 15 minutes exactly it still awaits.
    emu.advance(15 * MINUTE);
    expect(await status(id)).toBe('GatewayAwaitingSubmission');
    expectErrorBody(await accounts(id), 422, 'BDT413');
    emu.advance(1);
    const consent = (await api.get(`/v1/consents/${id}`)).json;
    expect(consent.status).toBe('GatewayTimeout');
    expect(Date.parse(consent.status_update_date_time) - Date.parse(created)).toBe(15 * MINUTE);
    expectErrorBody(await accounts(id), 422, 'BDT013');
    expectErrorBody(await api.call('DELETE', `/v1/consents?consent_id=${id}`), 422, 'BDT009');
  });

  it('moves to AwaitingAuthorisation on submit, then Authorised with the accounts of a customer', async () => {
    const id = await gatewayConsent();
    expect((await api.control('POST', `/consents/${id}/submit`)).json.status).toBe('AwaitingAuthorisation');
    emu.advance(20 * MINUTE - 1000);
    expect(await status(id)).toBe('Rejected'); // PNZ redirect request_timeout PT10M passed
    const second = await gatewayConsent();
    await api.control('POST', `/consents/${second}/submit`);
    const authorised = await api.control('POST', `/consents/${second}/authorise`);
    expect(authorised.json.status).toBe('Authorised');
    const customer = emu.world.customers.find((c) => c.bank === 'PNZ')!;
    expect(emu.consent(second)?.accountKeys).toEqual(customer.accountKeys);
    expect((await accounts(second)).status).toBe(200);
  });

  it('authorises straight from GatewayAwaitingSubmission', async () => {
    const id = await gatewayConsent();
    expect((await api.control('POST', `/consents/${id}/authorise`)).json.status).toBe('Authorised');
  });

  it('refuses a control action that does not fit the status (409)', async () => {
    const id = await gatewayConsent();
    await api.control('POST', `/consents/${id}/reject`);
    const res = await api.control('POST', `/consents/${id}/submit`);
    expect(res.status).toBe(409);
    expect((await api.control('POST', '/consents/00000000-0000-4000-8000-000000000000/submit')).status).toBe(404);
    expect((await api.control('POST', `/consents/${id}/explode`)).status).toBe(404);
  });
});

describe('redirect and decoupled flows', () => {
  // docs/bank-api.md §4.4: "`AwaitingAuthorisation` | the flow's `request_timeout` (meta) passes | `Rejected`",
  // "passes" as the table's other rows read it: at the instant itself the consent still awaits.
  it('R-LIFE-12 rejects a redirect consent once the flow request_timeout (PT10M) has passed: awaiting at 10:00 exactly, Rejected 1 ms after', async () => {
    const id = await api.createConsent();
    const created = (await api.get(`/v1/consents/${id}`)).json.creation_date_time as string;
    emu.advance(10 * MINUTE);
    expect(await status(id)).toBe('AwaitingAuthorisation');
    expectErrorBody(await accounts(id), 422, 'BDT413');
    emu.advance(1);
    const consent = (await api.get(`/v1/consents/${id}`)).json;
    expect(consent.status).toBe('Rejected');
    expect(Date.parse(consent.status_update_date_time) - Date.parse(created)).toBe(10 * MINUTE);
    expectErrorBody(await accounts(id), 422, 'BDT409');
  });

  it('R-LIFE-12 rejects a decoupled consent once its PT5M request_timeout has passed: awaiting at 5:00 exactly, Rejected 1 ms after', async () => {
    const id = await api.createConsent({ type: 'decoupled' });
    emu.advance(5 * MINUTE);
    expect(await status(id)).toBe('AwaitingAuthorisation');
    emu.advance(1);
    expect(await status(id)).toBe('Rejected');
  });

  it('R-LIFE-10 answers BDT409 after the customer declines', async () => {
    const id = await api.createConsent();
    await api.control('POST', `/consents/${id}/reject`);
    expectErrorBody(await accounts(id), 422, 'BDT409');
  });
});

describe('authorised consents', () => {
  it('R-LIFE-9 becomes Consumed once expiration_date_time has passed: Authorised at the instant, Consumed 1 ms after (BDT412)', async () => {
    const expiration = emu.now().setZone('Pacific/Auckland').plus({ days: 2 }).startOf('day');
    const id = await api.authorisedConsent({ end: null, expiration: expiration.toISO({ suppressMilliseconds: true }) });
    expect((await accounts(id)).status).toBe(200);
    emu.advance(expiration.toMillis() - emu.now().toMillis());
    expect(await status(id)).toBe('Authorised');
    expect((await accounts(id)).status).toBe(200);
    emu.advance(1);
    const consent = (await api.get(`/v1/consents/${id}`)).json;
    expect(consent.status).toBe('Consumed');
    expect(Date.parse(consent.status_update_date_time)).toBe(expiration.toMillis());
    expectErrorBody(await accounts(id), 422, 'BDT412');
    expectErrorBody(await api.call('DELETE', `/v1/consents?consent_id=${id}`), 422, 'BDT009');
  });

  it('R-LIFE-7 answers BDT410 after the customer cancels at the bank', async () => {
    const id = await api.authorisedConsent();
    await api.control('POST', `/consents/${id}/cancel`);
    expect(await status(id)).toBe('Revoked');
    expectErrorBody(await accounts(id), 422, 'BDT410');
  });

  it('R-LIFE-11 answers BDT415 on the next resource call after bank-unusable, then shows Revoked (BDT410)', async () => {
    const id = await api.authorisedConsent();
    await api.control('POST', `/consents/${id}/bank-unusable`);
    expectErrorBody(await accounts(id), 422, 'BDT415');
    expect(await status(id)).toBe('Revoked');
    expectErrorBody(await accounts(id), 422, 'BDT410');
  });

  it('R-LIFE-7 answers BDT410 after DELETE', async () => {
    const id = await api.authorisedConsent();
    await api.call('DELETE', `/v1/consents?consent_id=${id}`);
    expectErrorBody(await accounts(id), 422, 'BDT410');
  });
});

// docs/bank-api.md §4.1: "When the customer is done, the browser returns to the request's
// `redirect_uri` with `cid=<consent_id>` added, plus `error=<text>` on failure (ours)."
describe("the customer's return to redirect_uri (docs/bank-api.md §4.1; docs/emulator.md control routes)", () => {
  const action = (id: string, name: string, init: RequestInit = {}) =>
    fetch(`${emu.baseUrl}/__emulator/consents/${id}/${name}`, { method: 'POST', redirect: 'manual', ...init });
  const returned = (id: string, error?: string) => {
    const url = new URL(RETURN_URI);
    url.searchParams.set('cid', id);
    if (error !== undefined) url.searchParams.set('error', error);
    return url.toString();
  };

  it("a browser that approves goes back with 303 to the request's redirect_uri with cid", async () => {
    const id = await api.createConsent();
    const done = await action(id, 'authorise', { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(done.status).toBe(303);
    const location = new URL(done.headers.get('location') ?? '');
    expect(location.origin + location.pathname).toBe(RETURN_URI);
    expect(location.searchParams.get('cid')).toBe(id);
    expect(location.searchParams.has('error')).toBe(false);
    expect(await status(id)).toBe('Authorised');
  });

  it('a form posted from the consent page that declines goes back with cid and error', async () => {
    const id = await api.createConsent();
    const page = await fetch(`${emu.baseUrl}/__emulator/authorise?cid=${id}`, { headers: { accept: 'text/html' } });
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    expect(html).toContain(`<form method="post" action="/__emulator/consents/${id}/reject">`);
    const done = await action(id, 'reject', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe(returned(id, 'access_denied'));
    expect(await status(id)).toBe('Rejected');
  });

  it('a form post may name the customer and accounts, as the JSON body does', async () => {
    const id = await api.createConsent();
    const customer = emu.world.customers.find((c) => c.bank === 'PNZ')!;
    const done = await action(id, 'authorise', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ customer_id: customer.customerId }).toString(),
    });
    expect(done.status).toBe(303);
    expect(emu.consent(id)?.customerId).toBe(customer.customerId);
  });

  it('a programmatic caller (no text/html) gets the JSON record with the return URL as return_to, never a redirect', async () => {
    const id = await api.createConsent();
    const approved = await action(id, 'authorise');
    expect(approved.status).toBe(200);
    expect(approved.headers.get('location')).toBeNull();
    const body = (await approved.json()) as { status: string; return_to?: string };
    expect(body).toMatchObject({ status: 'Authorised', return_to: returned(id) });
    const declined = await api.createConsent();
    expect((await api.control('POST', `/consents/${declined}/reject`)).json.return_to).toBe(
      returned(declined, 'access_denied'),
    );
    // The JSON page a client reads is unchanged.
    const page = await api.control('GET', `/authorise?cid=${id}`);
    expect(page.json.actions).toContain(`POST /__emulator/consents/${id}/authorise`);
  });

  it('a decoupled consent has no redirect_uri: no return_to, no redirect', async () => {
    const id = await api.createConsent({ type: 'decoupled' });
    const done = await action(id, 'authorise', { headers: { accept: 'text/html' } });
    expect(done.status).toBe(200);
    expect(((await done.json()) as { return_to?: string }).return_to).toBeUndefined();
  });
});

describe('the clock control route', () => {
  it('advances by seconds or to an instant, never backwards and never past real time', async () => {
    const before = emu.now();
    const res = await api.control('POST', '/clock', { advance_seconds: 60 });
    expect(res.status).toBe(200);
    expect(Date.parse(res.json.now)).toBe(before.toMillis() + 60_000);
    const to = before.plus({ hours: 1 }).toISO()!;
    expect(Date.parse((await api.control('POST', '/clock', { to })).json.now)).toBe(before.toMillis() + 3_600_000);
    expect((await api.control('POST', '/clock', { to: before.toISO()! })).status).toBe(400);
    expect((await api.control('POST', '/clock', { advance_seconds: 10 * 365 * 24 * 3600 })).status).toBe(400);
    expect(() => emu.advance(10 * 365 * 24 * 3600 * 1000)).toThrow(RangeError);
    expect(Date.parse((await api.control('GET', '/state')).json.now)).toBe(emu.now().toMillis());
  });

  it('lists consents with id, bank and status in /__emulator/state', async () => {
    const id = await api.createConsent();
    const state = (await api.control('GET', '/state')).json;
    expect(state.environment).toBe('sandbox');
    expect(state.consents).toContainEqual({ consent_id: id, bank: 'PNZ', status: 'AwaitingAuthorisation' });
    for (const seeded of emu.consentIds)
      expect(state.consents.map((c: { consent_id: string }) => c.consent_id)).toContain(seeded);
  });
});
