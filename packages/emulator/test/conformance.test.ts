/**
 * The emulator held to sentences of the bank's API documentation where it must be stricter than
 * the client needs it to be (docs/conformance.md): each test quotes the sentence it follows and
 * asserts the documented status and code. Titles start with the rule ids of docs/conformance.md.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartedEmulator } from '../src';
import { Api, expectErrorBody, issueToken, startTest } from './helpers';

let emu: StartedEmulator;
let api: Api;
let owned: string;
/** A second client, as the bank's "another organisation" (one client is one organisation here). */
let other: Api;
let otherClient: { client_id: string; client_secret: string };

beforeAll(async () => {
  ({ emu, api } = await startTest());
  owned = await api.authorisedConsent();
  const res = await api.control('POST', '/clients', {
    scopes: ['manage:consents', 'read:meta', 'read:accounts', 'read:balances', 'read:transactions', 'read:party'],
  });
  otherClient = res.json as { client_id: string; client_secret: string };
  other = new Api(emu);
  const token = await issueToken(emu.baseUrl, otherClient.client_id, otherClient.client_secret);
  other.token = () => Promise.resolve(token);
});
afterAll(() => emu.close());

const FROM = '2026-02-01T00:00:00+13:00';
const TO = '2026-03-10T09:00:00+13:00';
const enc = encodeURIComponent;

/** Every Data API route that takes a consent_id, for consent id `c` (an account of the consent's customer). */
function consentRoutes(c: string, account: string): Array<[string, string]> {
  const q = `consent_id=${enc(c)}`;
  return [
    ['GET', `/v1/consents/${enc(c)}`],
    ['GET', `/v1/accounts?${q}`],
    ['GET', `/v1/accounts/${account}?${q}`],
    ['GET', `/v1/accounts/${account}/balances?${q}`],
    ['GET', `/v1/accounts/${account}/transactions?${q}&fromBookingDateTime=${enc(FROM)}&toBookingDateTime=${enc(TO)}`],
    ['GET', `/v1/accounts/${account}/statements?${q}`],
    ['GET', `/v1/accounts/${account}/statements/stm-1?${q}`],
    ['GET', `/v1/accounts/${account}/statements/stm-1/file?${q}`],
    ['GET', `/v1/party?${q}`],
    ['GET', `/v1/accounts/${account}/party?${q}`],
    ['DELETE', `/v1/consents?${q}`],
  ];
}

function firstAccount(): string {
  const record = emu.consent(owned)!;
  return record.accountKeys[0]!.split(':')[1]!;
}

describe('"a consent_id that does not exist or belongs to another organisation gives 404 (BDT101)"', () => {
  it('R-LIFE-3 another client cannot read, use or revoke a consent: 404 BDT101 on every route; the owner still sees it Authorised', async () => {
    for (const [method, path] of consentRoutes(owned, firstAccount())) {
      expectErrorBody(await other.call(method, path), 404, 'BDT101');
    }
    expect(emu.consent(owned)?.status).toBe('Authorised');
    const mine = await api.get(`/v1/consents/${owned}`);
    expect(mine.status).toBe(200);
    expect(mine.json.status).toBe('Authorised');
    expect((await api.get(`/v1/accounts?consent_id=${owned}`)).status).toBe(200);
  });

  it("R-LIFE-3 a consent another client creates is not the first client's either", async () => {
    const theirs = await other.createConsent();
    expectErrorBody(await api.get(`/v1/consents/${theirs}`), 404, 'BDT101');
    expectErrorBody(await api.call('DELETE', `/v1/consents?consent_id=${theirs}`), 404, 'BDT101');
    expect((await other.get(`/v1/consents/${theirs}`)).status).toBe(200);
  });

  it('R-LIFE-3 a client of the same organisation (organisation_of) reads and uses the consent; an unknown organisation_of is 404', async () => {
    const res = await api.control('POST', '/clients', {
      scopes: ['manage:consents', 'read:accounts'],
      organisation_of: emu.clientId,
    });
    expect(res.status).toBe(201);
    const colleague = new Api(emu);
    const token = await issueToken(emu.baseUrl, res.json.client_id as string, res.json.client_secret as string);
    colleague.token = () => Promise.resolve(token);
    expect((await colleague.get(`/v1/consents/${owned}`)).status).toBe(200);
    expect((await colleague.get(`/v1/accounts?consent_id=${owned}`)).status).toBe(200);
    const unknown = await api.control('POST', '/clients', { scopes: ['read:meta'], organisation_of: 'nobody' });
    expectErrorBody(unknown, 404);
  });

  it('R-LIFE-2 a consent_id that is not a UUID (it cannot exist) is 404 BDT101 on every route, never a 400', async () => {
    for (const bad of ['not-a-uuid', '123', 'C0A8012E-7D3B-4F5E-9A61-2B9F4C1D8E70']) {
      for (const [method, path] of consentRoutes(bad, firstAccount())) {
        expectErrorBody(await api.call(method, path), 404, 'BDT101');
      }
    }
  });

  it('R-LIFE-4 an absent consent_id stays a 400 without code ("a missing required field or query parameter … gives 400 with only a message")', async () => {
    expectErrorBody(await api.get('/v1/accounts'), 400);
    expectErrorBody(await api.get(`/v1/accounts/${firstAccount()}/balances`), 400);
    expectErrorBody(await api.call('DELETE', '/v1/consents'), 400);
  });
});

describe('"Rotation takes effect at once with no grace period for new token requests; tokens already issued work until they expire"', () => {
  it('R-AUTH-8 the old secret gets 401 at once, the new one a token, and a token issued before works until its expiry', async () => {
    const before = await issueToken(emu.baseUrl, otherClient.client_id, otherClient.client_secret);
    const rotated = await api.control('POST', `/clients/${otherClient.client_id}/rotate`);
    expect(rotated.status).toBe(200);
    expect(rotated.json.client_id).toBe(otherClient.client_id);
    expect(rotated.json.client_secret).not.toBe(otherClient.client_secret);

    const token = (secret: string) =>
      fetch(`${emu.baseUrl}/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: otherClient.client_id,
          client_secret: secret,
        }),
      });
    const old = await token(otherClient.client_secret);
    expect(old.status).toBe(401);
    expect(await old.json()).toMatchObject({ status: 401, path: '/oauth2/token' });
    expect((await token(rotated.json.client_secret as string)).status).toBe(200);

    const meta = () => api.get('/v1/meta', { token: before });
    expect((await meta()).status).toBe(200);
    emu.advance(3599 * 1000);
    expect((await meta()).status).toBe(200);
    emu.advance(1000);
    const expired = await meta();
    expect(expired.status).toBe(401);
    expect(expired.text).toBe('');
    expect(expired.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    otherClient = rotated.json as { client_id: string; client_secret: string };
  });

  it('R-AUTH-8 rotating an unknown client is a 404; only POST rotates (405)', async () => {
    expectErrorBody(await api.control('POST', '/clients/00000000-0000-4000-8000-000000000000/rotate'), 404);
    expect((await api.control('GET', `/clients/${emu.clientId}/rotate`)).status).toBe(405);
  });
});
