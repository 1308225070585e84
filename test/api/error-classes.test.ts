/** Every error class of docs/bank-api.md §7.3, produced by the real emulator over HTTP. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  ConsentEndedError,
  ConsentNotAuthorisedError,
  DateRuleError,
  IdempotencyError,
  NotFoundError,
  PermissionMissingError,
  SplitNeededError,
} from '../../src/api/api-errors';
import type { DataApiClient } from '../../src/api/client';
import { formatNz } from '@bankdata/core/nz-time';
import { BANKS, type AccountId, type BankName, type ConsentId, type StatementId } from '@bankdata/core/schemas';
import type { StartedEmulator } from '@bankdata/emulator';
import { authorisedConsent, clientFor, consentBody, control, logOf, startTestEmulator } from './emulator-helpers';

const DAY = 24 * 60 * 60 * 1000;
const maxResultSize = (n: number) => Object.fromEntries(BANKS.map((b) => [b, n])) as Record<BankName, number>;

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (error: unknown) => error,
  );
}

describe('error classes from emulator answers', () => {
  let emu: StartedEmulator;
  let client: DataApiClient;
  let consent: ConsentId;
  let account: AccountId;

  beforeAll(async () => {
    emu = await startTestEmulator();
    client = clientFor(emu).client;
    consent = await authorisedConsent(emu, client);
    const accounts = await client.listAccounts(consent);
    account = accounts.records[0]!.AccountId;
  });
  afterAll(() => emu.close());

  const range = (fromDays: number, toDays: number) => ({
    from: emu.now().plus({ days: fromDays }),
    to: emu.now().plus({ days: toDays }),
  });

  it('BDT101: an unknown consent is ended (not_found)', async () => {
    const error = await failure(client.listAccounts(randomUUID() as ConsentId));
    expect(error).toBeInstanceOf(ConsentEndedError);
    expect(error).toMatchObject({ status: 404, code: 'BDT101', reason: 'not_found', path: '/v1/accounts' });
    expect((error as ConsentEndedError).requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('BDT410 after a revoke, then BDT702 on a second revoke', async () => {
    const id = await authorisedConsent(emu, client);
    await client.revokeConsent(id);
    expect(await failure(client.listAccounts(id))).toMatchObject({ code: 'BDT410', reason: 'revoked' });
    const again = await failure(client.revokeConsent(id));
    expect(again).toBeInstanceOf(IdempotencyError);
    expect(again).toMatchObject({ status: 409, code: 'BDT702' });
  });

  it('BDT409 for a rejected consent, and BDT009 when revoking it', async () => {
    const { consent_id } = await client.createConsent(consentBody(emu));
    await control(emu, 'POST', `consents/${consent_id}/reject`);
    expect(await failure(client.listAccounts(consent_id))).toMatchObject({
      status: 422,
      code: 'BDT409',
      reason: 'rejected',
    });
    const revoke = await failure(client.revokeConsent(consent_id));
    expect(revoke).toBeInstanceOf(ConsentEndedError);
    expect(revoke).toMatchObject({ status: 422, code: 'BDT009', reason: 'already_ended' });
  });

  it('BDT415 when the bank says the consent is no longer usable', async () => {
    const id = await authorisedConsent(emu, client);
    await control(emu, 'POST', `consents/${id}/bank-unusable`);
    expect(await failure(client.listAccounts(id))).toMatchObject({ code: 'BDT415', reason: 'unusable' });
  });

  it('BDT413 while the consent awaits authorisation', async () => {
    const { consent_id } = await client.createConsent(consentBody(emu));
    const error = await failure(client.listAccounts(consent_id));
    expect(error).toBeInstanceOf(ConsentNotAuthorisedError);
    expect(error).toMatchObject({ status: 422, code: 'BDT413' });
  });

  it('BDT411 when the consent lacks the endpoint permission', async () => {
    const id = await authorisedConsent(emu, client, { permissions: ['ReadAccountsDetail'] });
    const [first] = (await client.listAccounts(id)).records;
    const error = await failure(client.getBalances(id, first!.AccountId));
    expect(error).toBeInstanceOf(PermissionMissingError);
    expect(error).toMatchObject({ status: 403, code: 'BDT411', permissions: ['ReadBalances'] });
  });

  it('BDT263 when the bank result is too large for one request', async () => {
    emu.updateSettings({ maxResultSize: maxResultSize(1) });
    try {
      const error = await failure(client.listTransactions(consent, account, range(-200, 0)));
      expect(error).toBeInstanceOf(SplitNeededError);
      expect(error).toMatchObject({ status: 422, code: 'BDT263' });
    } finally {
      emu.updateSettings({ maxResultSize: maxResultSize(400) });
    }
  });

  it.each([
    ['BDT237', -1, -2],
    ['BDT239', 2, 3],
    ['BDT238', -2, 2],
    ['BDT236', -400, 0],
  ])('%s is a date rule error', async (code, fromDays, toDays) => {
    const error = await failure(client.listTransactions(consent, account, range(fromDays, toDays)));
    expect(error).toBeInstanceOf(DateRuleError);
    expect(error).toMatchObject({ status: 400, code, ruleCode: code, legacy: false });
  });

  it('the legacy no-code "to before from" answer is BDT237 (docs/bank-api.md §7.2)', async () => {
    emu.updateSettings({ legacyBdt237: true });
    try {
      const error = await failure(client.listTransactions(consent, account, range(-1, -2)));
      expect(error).toBeInstanceOf(DateRuleError);
      expect(error).toMatchObject({ status: 400, code: null, ruleCode: 'BDT237', legacy: true });
    } finally {
      emu.updateSettings({ legacyBdt237: false });
    }
  });

  it('BDT211 (redirect_uri not whitelisted) and BDT252 (start in the future) are configuration errors', async () => {
    const body = consentBody(emu);
    body.flow.detail.redirect_uri = 'https://elsewhere.example.nz/return';
    expect(await failure(client.createConsent(body))).toMatchObject({
      status: 400,
      code: 'BDT211',
      kind: 'configuration',
    });
    const future = consentBody(emu);
    future.start_date_time = formatNz(emu.now().plus({ days: 1 }));
    const error = await failure(client.createConsent(future));
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error).toMatchObject({ code: 'BDT252' });
  });

  it('BDT701: the same idempotency key with another body is refused, not retried', async () => {
    const key = randomUUID();
    await client.createConsent(consentBody(emu), { idempotencyKey: key });
    const other = consentBody(emu, { permissions: ['ReadAccountsDetail'] });
    const error = await failure(client.createConsent(other, { idempotencyKey: key }));
    expect(error).toBeInstanceOf(IdempotencyError);
    expect(error).toMatchObject({ status: 409, code: 'BDT701' });
  });

  it('BDT704: a same-key request still in progress is retried with the same key and gets the replay', async () => {
    emu.updateSettings({ consentCreateDelayMs: 150 });
    try {
      const key = randomUUID();
      const body = consentBody(emu);
      const first = client.createConsent(body, { idempotencyKey: key });
      // The second caller waits for the first instead of a timer: no real backoff in tests.
      const second = clientFor(emu, { sleep: () => first.then(() => undefined) }).client;
      const [a, b] = await Promise.all([first, second.createConsent(body, { idempotencyKey: key })]);
      expect(b.consent_id).toBe(a.consent_id);
      const posts = logOf(emu, '/v1/consents')
        .filter((e) => e.method === 'POST')
        .slice(-3);
      expect(posts.map((e) => [e.status, e.code ?? null])).toEqual([
        [409, 'BDT704'],
        [201, null],
        [201, null],
      ]);
      expect(posts[2]!.consent_id).toBe(a.consent_id);
    } finally {
      emu.updateSettings({ consentCreateDelayMs: 0 });
    }
  });

  it('404 without code for an unknown account; a statement id travels encoded (../x as ..%2Fx)', async () => {
    const error = await failure(client.getAccount(consent, 'no-such-account' as AccountId));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ status: 404, code: null });
    await failure(client.getStatement(consent, account, '../x' as StatementId));
    const last = emu.requests().at(-1)!;
    expect(last.path).toBe(`/v1/accounts/${encodeURIComponent(account)}/statements/..%2Fx`);
    expect(last.status).toBe(404);
  });

  it('R-LIFE-2 a consent id that is not a UUID is 404 BDT101 (not_found), like an unknown one, not retried', async () => {
    const before = emu.requests().length;
    const error = await failure(client.getConsent('not-a-uuid' as ConsentId));
    expect(error).toMatchObject({ status: 404, code: 'BDT101', reason: 'not_found' });
    expect(emu.requests().length - before).toBe(1);
  });

  // Time moves forward from here on.
  it('BDT013 once a gateway consent waited over 15 minutes', async () => {
    const { consent_id } = await client.createConsent(consentBody(emu, { flow: 'gateway' }));
    emu.advance(16 * 60 * 1000);
    expect(await failure(client.listAccounts(consent_id))).toMatchObject({ code: 'BDT013', reason: 'gateway_timeout' });
  });

  it('R-LIFE-9 BDT412 once the consent passed its expiration_date_time', async () => {
    const id = await authorisedConsent(emu, client, { expiration: emu.now().plus({ days: 2 }) });
    emu.advance(3 * DAY);
    expect(await failure(client.listAccounts(id))).toMatchObject({ code: 'BDT412', reason: 'expired' });
  });
});
