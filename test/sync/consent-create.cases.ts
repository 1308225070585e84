/**
 * Consent creation against the real emulator: idempotency key stored before the POST, replay
 * after a lost answer (one consent on the server), BDT704 retried with the same key, BDT701
 * reported, polling until settled or the flow's timeout, registration of an authorised consent.
 * One suite, both dialects (../support/dialects.ts): the creations namespace of either store
 * (consent-create.test.ts on SQLite, consent-create.pg.test.ts on PostgreSQL).
 */
import { Agent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IdempotencyError, UnavailableError, type DataApiClient } from '../../src/api';
import type { StartedEmulator } from '@bankdata/emulator';
import type { Store } from '../../src/store';
import { ConsentRuleError, createConsentFlow, type CreateConsentDeps } from '../../src/sync/consent-create';
import { buildConsentRequest, intentHashOf, type ConsentRequestInput } from '../../src/sync/consent-request';
import { REDIRECT_URI, clientFor, control, startTestEmulator } from '../api/emulator-helpers';
import { waitFor } from '../cli/cli-process';
import { execute, queryRow, queryRows, storeSuite } from '../support/dialects';

export const consentCreateSuite = storeSuite('consents create', (dialect) => {
  let emu: StartedEmulator;
  let store: Store;

  beforeEach(async () => {
    // No account data is read here: a world of 30 days of history (not 450) is generated in a fraction of the time.
    emu = await startTestEmulator({ historyDays: 30 });
    store = await dialect.open();
  });
  afterEach(async () => {
    await emu.close();
  });

  const INPUT: ConsentRequestInput = {
    bank: 'PNZ',
    flow: 'redirect',
    redirectUri: REDIRECT_URI,
    expires: '2026-06-30',
  };

  /** A fake clock the polling sleeps advance; `onSleep` acts as the customer. */
  function deps(
    client: DataApiClient,
    onSleep?: (consentId: string) => Promise<void>,
  ): CreateConsentDeps & { elapsed: () => number } {
    const start = emu.now().toMillis();
    let clock = 0;
    let consentId = '';
    return {
      store,
      client,
      environment: 'sandbox',
      redirectWhitelist: [REDIRECT_URI],
      baseUrl: emu.baseUrl,
      now: () => new Date(start + clock),
      sleep: async (ms) => {
        clock += ms;
        if (onSleep) await onSleep(consentId);
      },
      onCreated: (info) => {
        consentId = info.consentId;
      },
      elapsed: () => clock,
    };
  }

  const consentsOnServer = async () =>
    ((await control(emu, 'GET', 'state')) as { consents: unknown[] }).consents.length;

  describe('consents create: polling and registration (docs/bank-api.md §4.4)', () => {
    it('registers an authorised consent for sync at once', async () => {
      const { client } = clientFor(emu);
      const result = await createConsentFlow(
        deps(client, (id) => control(emu, 'POST', `consents/${id}/authorise`, {}).then(() => undefined)),
        INPUT,
      );
      expect(result).toMatchObject({ status: 'Authorised', timedOut: false, registered: true, how: 'new' });
      expect(result.url).toContain(`cid=${result.consentId}`);
      expect(await store.consents.get(result.consentId)).toMatchObject({
        status: 'Authorised',
        bank: 'PNZ',
        endedAt: null,
      });
      expect(await store.creations.getOf(result.consentId)).toMatchObject({ state: 'settled', outcome: 'Authorised' });
    });

    it('a Rejected consent is reported and not registered', async () => {
      const { client } = clientFor(emu);
      const result = await createConsentFlow(
        deps(client, (id) => control(emu, 'POST', `consents/${id}/reject`).then(() => undefined)),
        INPUT,
      );
      expect(result).toMatchObject({ status: 'Rejected', timedOut: false, registered: false });
      expect(await store.consents.get(result.consentId)).toBeNull();
    });

    it("stops polling at the flow's request_timeout (redirect PT10M) and registers the consent still awaiting", async () => {
      const { client } = clientFor(emu);
      const d = { ...deps(client), pollIntervalMs: 60_000 };
      const result = await createConsentFlow(d, INPUT);
      expect(result).toMatchObject({ status: 'AwaitingAuthorisation', timedOut: true, registered: true });
      expect(d.elapsed()).toBe(10 * 60_000);
      const reads = emu.requests().filter((r) => r.method === 'GET' && r.path === `/v1/consents/${result.consentId}`);
      expect(reads).toHaveLength(11);
      expect(await store.creations.getOf(result.consentId)).toMatchObject({ state: 'settled', outcome: 'PollTimeout' });
    });

    it('a gateway consent waits for the hosted page (PT15M) plus the bank flow (PT10M)', async () => {
      const { client } = clientFor(emu);
      const d = { ...deps(client), pollIntervalMs: 60_000 };
      const result = await createConsentFlow(d, { ...INPUT, flow: 'gateway' });
      expect(result).toMatchObject({ status: 'GatewayAwaitingSubmission', timedOut: true });
      expect(d.elapsed()).toBe(25 * 60_000);
    });

    it('--no-wait stops after creation without polling', async () => {
      const { client } = clientFor(emu);
      const result = await createConsentFlow(deps(client), INPUT, { wait: false });
      expect(result).toMatchObject({ status: null, registered: false });
      expect(emu.requests().filter((r) => r.path.startsWith('/v1/consents/'))).toHaveLength(0);
    });
  });

  describe('consents create: nothing is sent when a local rule fails', () => {
    it('BDT211: a redirect URI outside the whitelist is refused before sending, and no key is stored', async () => {
      const { client } = clientFor(emu);
      const error = await createConsentFlow(deps(client), { ...INPUT, redirectUri: 'https://evil.example/cb' }).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ConsentRuleError);
      expect((error as ConsentRuleError).failure.code).toBe('BDT211');
      expect(emu.requests().filter((r) => r.method === 'POST' && r.path === '/v1/consents')).toHaveLength(0);
      expect(await queryRow(store, 'SELECT count(*) AS n FROM consent_creations')).toEqual({ n: 0 });
    });
  });

  describe('consents create: idempotency (docs/bank-api.md §4.1)', () => {
    it('an answer lost after the server created the consent is replayed with the same key: one consent; BDT704 meanwhile is retried with the same key', async () => {
      // The server holds the first request until the rerun has seen BDT704 (packages/emulator/src/hold.ts).
      emu.updateSettings({ consentCreateDelayMs: 60_000 });
      const before = await consentsOnServer();
      // The first attempt's answer never arrives (its connection drops once the server holds the
      // request, no retry): the row stays pending.
      const connection = new Agent();
      const lossy = clientFor(emu, { dispatcher: connection, retry: { maxAttempts: 1 } }).client;
      const attempt = createConsentFlow(deps(lossy), INPUT).catch((e: unknown) => e);
      await emu.whenHeld();
      await connection.destroy();
      const lost = await attempt;
      expect(lost).toBeInstanceOf(UnavailableError);
      const pending = await queryRows<{ key: string; state: string }>(
        store,
        'SELECT idempotency_key AS key, state FROM consent_creations',
      );
      expect(pending).toEqual([{ key: expect.any(String), state: 'pending' }]);

      // The rerun while the first request still runs: 409 BDT704, retried with the same key until
      // the replay. Its wait before a retry releases the first request and lasts until the server
      // has answered it (the consent made, the key's answer kept for the replay).
      const release = async (): Promise<void> => {
        emu.updateSettings({ consentCreateDelayMs: 0 });
        await waitFor(() =>
          emu.requests().some((r) => r.method === 'POST' && r.path === '/v1/consents' && r.status === 201),
        );
      };
      const patient = clientFor(emu, { retry: { maxAttempts: 8 }, sleep: release }).client;
      const result = await createConsentFlow(deps(patient), INPUT, { wait: false });
      expect(result.how).toBe('replayed');
      expect(result.idempotencyKey).toBe(pending[0]!.key);
      expect(await consentsOnServer()).toBe(before + 1);
      const posts = emu.requests().filter((r) => r.method === 'POST' && r.path === '/v1/consents');
      expect(posts.some((p) => p.status === 409 && p.code === 'BDT704')).toBe(true);
      expect(posts.at(-1)).toMatchObject({ status: 201, consent_id: result.consentId });
      expect(await store.creations.get(result.idempotencyKey)).toMatchObject({
        state: 'created',
        consentId: result.consentId,
      });
    });

    it('BDT701: a key reused with another body is reported, the row failed, and the next try takes a new key', async () => {
      const { client } = clientFor(emu);
      const first = await createConsentFlow(deps(client), INPUT, { wait: false });
      // A pending row for another command that (wrongly) carries the first key.
      const other: ConsentRequestInput = { ...INPUT, expires: '2026-07-31' };
      const now = emu.now().toJSDate();
      const body = buildConsentRequest(other, { meta: await client.getMeta(), redirectWhitelist: [REDIRECT_URI], now });
      // The stored row of the first key now describes another body (as if a key had been reused).
      await execute(
        store,
        "UPDATE consent_creations SET state = 'pending', intent_hash = ?, body_json = ? WHERE idempotency_key = ?",
        intentHashOf(other, { baseUrl: emu.baseUrl, environment: 'sandbox' }),
        JSON.stringify(body),
        first.idempotencyKey,
      );
      const error = await createConsentFlow(deps(client), other, { wait: false }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(IdempotencyError);
      expect((error as IdempotencyError).code).toBe('BDT701');
      expect(await store.creations.get(first.idempotencyKey)).toMatchObject({ state: 'failed', outcome: 'BDT701' });
      const retried = await createConsentFlow(deps(client), other, { wait: false });
      expect(retried.how).toBe('new');
      expect(retried.idempotencyKey).not.toBe(first.idempotencyKey);
      expect(retried.consentId).not.toBe(first.consentId);
    });

    it('a created consent whose polling was cut short is resumed by the same command, not created again', async () => {
      const { client } = clientFor(emu);
      const first = await createConsentFlow(deps(client), INPUT, { wait: false });
      const postsBefore = emu.requests().filter((r) => r.method === 'POST').length;
      const resumed = await createConsentFlow(
        deps(client, (id) => control(emu, 'POST', `consents/${id}/authorise`, {}).then(() => undefined)),
        INPUT,
      );
      expect(resumed).toMatchObject({
        how: 'resumed',
        consentId: first.consentId,
        status: 'Authorised',
        registered: true,
      });
      expect(emu.requests().filter((r) => r.method === 'POST').length).toBe(postsBefore);
    });

    it('two runs of one intent at once, each finding none open before the other stored its own: one key, one consent on the server', async () => {
      const { client } = clientFor(emu);
      // Both looked before either stored its creation: the look-up finds none for either.
      const blind: Store = { ...store, creations: { ...store.creations, findOpen: async () => null } };
      const before = await consentsOnServer();
      const first = await createConsentFlow({ ...deps(client), store: blind }, INPUT, { wait: false });
      const second = await createConsentFlow({ ...deps(client), store: blind }, INPUT, { wait: false });
      expect(second).toMatchObject({
        how: 'replayed',
        consentId: first.consentId,
        idempotencyKey: first.idempotencyKey,
      });
      expect((await consentsOnServer()) - before).toBe(1);
    });

    it('a stored answer that no longer fits its schema is refused, never polled as a consent id (the database is a boundary)', async () => {
      const { client } = clientFor(emu);
      const first = await createConsentFlow(deps(client), INPUT, { wait: false });
      await execute(
        store,
        'UPDATE consent_creations SET response_json = ? WHERE idempotency_key = ?',
        JSON.stringify({ consent_id: '../not-a-consent' }),
        first.idempotencyKey,
      );
      const readsBefore = emu.requests().length;
      await expect(createConsentFlow(deps(client), INPUT)).rejects.toThrow(/consent_id/);
      expect(
        emu
          .requests()
          .slice(readsBefore)
          .filter((r) => r.path.startsWith('/v1/consents/')),
      ).toEqual([]);
    });
  });
});
