/**
 * CANARY: with a unique client secret, every error path runs at debug log level; the secret
 * and every token the client sent appear nowhere in what it produced (log lines, error
 * messages, error JSON, inspected errors with their causes). Nor does `[redacted]`: the client
 * must not put a secret in a message in the first place, not merely rely on redaction.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { inspect } from 'node:util';
import { Agent, type Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDataApiClient, type DataApiClient, type DataApiClientOptions } from '../../src/api/client';
import type { AccountId, ConsentId, StatementId } from '@bankdata/core/schemas';
import { BANKS } from '@bankdata/core/schemas';
import { createLogger } from '../../src/log';
import { FAULT_PROFILES, type StartedEmulator } from '@bankdata/emulator';
import { consentBody, control, startTestEmulator } from './emulator-helpers';

describe('canary: secrets never leave the client', () => {
  const secret = `canary-${randomBytes(18).toString('hex')}`;
  const wrongSecret = `canary-wrong-${randomBytes(18).toString('hex')}`;
  const tokensSent = new Set<string>();
  const output: string[] = [];
  let emu: StartedEmulator;

  /** Records every bearer token the client sends, on the wire, without touching it. */
  const recording = (host?: string): Dispatcher =>
    new Agent().compose((dispatch) => (opts, handler) => {
      const headers = { ...(opts.headers as Record<string, string>) };
      const bearer = /^Bearer (.+)$/.exec(headers.authorization ?? '');
      if (bearer) tokensSent.add(bearer[1]!);
      if (host) headers.host = host;
      return dispatch({ ...opts, headers }, handler);
    });

  const make = (options: Partial<DataApiClientOptions> = {}): DataApiClient =>
    createDataApiClient({
      baseUrl: emu.baseUrl,
      clientId: emu.clientId,
      clientSecret: secret,
      logger: createLogger({ level: 'debug', sink: (line) => output.push(line) }),
      sleep: async () => {},
      dispatcher: recording(),
      ...options,
    });

  async function capture(promise: Promise<unknown>): Promise<void> {
    try {
      await promise;
    } catch (error) {
      output.push(String(error));
      output.push(error instanceof Error ? error.message : '');
      output.push(JSON.stringify(error));
      output.push(inspect(error, { depth: Infinity, showHidden: true }));
      return;
    }
    throw new Error('expected an error path');
  }

  beforeAll(async () => {
    emu = await startTestEmulator({ clientSecret: secret });
  });
  afterAll(() => emu.close());

  it('runs every error path and finds no secret in the output', async () => {
    const client = make();
    const created = await client.createConsent(consentBody(emu));
    await control(emu, 'POST', `consents/${created.consent_id}/authorise`, {});
    const consent = created.consent_id;
    const account = (await client.listAccounts(consent)).records[0]!.AccountId;
    const range = (a: number, b: number) => ({ from: emu.now().plus({ days: a }), to: emu.now().plus({ days: b }) });

    // Authentication: wrong secret at the token endpoint; Basic with the wrong secret.
    await capture(make({ clientSecret: wrongSecret }).getMeta());
    await capture(make({ clientSecret: wrongSecret, tokenAuth: 'basic' }).getMeta());
    // Token revoked: refresh and retry (not an error, but a logged path).
    await control(emu, 'POST', 'tokens/revoke');
    await client.getMeta();
    // Scope missing.
    const limited = (await control(emu, 'POST', 'clients', { scopes: ['read:meta'] })) as {
      client_id: string;
      client_secret: string;
    };
    await capture(make({ clientId: limited.client_id, clientSecret: limited.client_secret }).listAccounts(consent));
    // Consent states and codes.
    await capture(client.listAccounts(randomUUID() as ConsentId));
    await capture(client.getConsent('not-a-uuid' as ConsentId));
    const pending = await client.createConsent(consentBody(emu));
    await capture(client.listAccounts(pending.consent_id));
    await control(emu, 'POST', `consents/${pending.consent_id}/reject`);
    await capture(client.revokeConsent(pending.consent_id));
    const narrow = await client.createConsent(consentBody(emu, { permissions: ['ReadAccountsDetail'] }));
    await control(emu, 'POST', `consents/${narrow.consent_id}/authorise`, {});
    await capture(client.getBalances(narrow.consent_id, account));
    // Date rules, legacy form included; BDT263.
    await capture(client.listTransactions(consent, account, range(-1, -2)));
    emu.updateSettings({ legacyBdt237: true });
    await capture(client.listTransactions(consent, account, range(-1, -2)));
    emu.updateSettings({ legacyBdt237: false });
    await capture(client.listTransactions(consent, account, range(2, 3)));
    await capture(client.listTransactions(consent, account, range(-900, 0)));
    emu.updateSettings({ maxResultSize: Object.fromEntries(BANKS.map((b) => [b, 1])) });
    await capture(client.listTransactions(consent, account, range(-100, 0)));
    emu.updateSettings({ maxResultSize: Object.fromEntries(BANKS.map((b) => [b, 400])) });
    // Configuration and idempotency.
    const bad = consentBody(emu);
    bad.flow.detail.redirect_uri = 'https://elsewhere.example.nz/x';
    await capture(client.createConsent(bad));
    const key = randomUUID();
    await client.createConsent(consentBody(emu), { idempotencyKey: key });
    await capture(client.createConsent(consentBody(emu, { permissions: ['ReadBalances'] }), { idempotencyKey: key }));
    // Not found.
    await capture(client.getAccount(consent, 'nope' as AccountId));
    await capture(client.getStatement(consent, account, '../x' as StatementId));
    // Unavailable: 503 with Retry-After, 500s, drops, timeouts.
    for (const fault of ['bdt601', 'bdt602', 'bdt603', 'bdt604', 'http500', 'http502', 'http504', 'drop'] as const) {
      emu.updateSettings({ faults: { ...FAULT_PROFILES.none, [fault]: 1 } });
      await capture(client.getMeta());
    }
    emu.updateSettings({ faults: { ...FAULT_PROFILES.none }, latencyMs: 200 });
    await capture(make({ timeoutMs: 20, retry: { maxAttempts: 2 } }).getMeta());
    emu.updateSettings({ latencyMs: 0, rateLimit: { requestsPerSecond: 0.001, burst: 1 } });
    const throttled = make({ retry: { maxAttempts: 2 } });
    await throttled.getMeta();
    await capture(throttled.getMeta());
    emu.updateSettings({ rateLimit: null });
    // Protocol: off-origin Next, page cap, size caps.
    emu.updateSettings({ pageSize: 5 });
    await capture(
      make({ dispatcher: recording('bank.example.invalid:1') }).listTransactions(consent, account, range(-60, 0)),
    );
    await capture(make({ maxPages: 2 }).listTransactions(consent, account, range(-60, 0)));
    await capture(make({ maxResponseBytes: 300 }).listTransactions(consent, account, range(-60, 0)));
    // Second 401: every token is dead on arrival (the emulator's log hook moves its clock past
    // the token's lifetime as soon as it issued one).
    let dead: StartedEmulator | undefined;
    // eslint-disable-next-line prefer-const -- the log sink below reads it, after it is assigned
    dead = await startTestEmulator({
      clientSecret: secret,
      tokenLifetimeSeconds: 60,
      logger: createLogger({
        level: 'info',
        sink: (line) => {
          const entry = JSON.parse(line) as { path?: string; status?: number };
          if (entry.path === '/oauth2/token' && entry.status === 200) dead!.advance(60_000);
        },
      }),
    });
    try {
      await capture(make({ baseUrl: dead.baseUrl, clientId: dead.clientId }).getMeta());
    } finally {
      await dead.close();
    }

    expect(tokensSent.size).toBeGreaterThan(3);
    const everything = output.join('\n');
    expect(everything.length).toBeGreaterThan(10_000);
    for (const value of [secret, wrongSecret, limited.client_secret, ...tokensSent]) {
      expect(everything.includes(value), `a secret of ${value.length} chars leaked`).toBe(false);
    }
    expect(everything).not.toContain('[redacted]');
    // Debug level logged every request: method, path, status, request-id, duration.
    const lines = output.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
    const requests = lines.filter((l) => l.msg === 'http request');
    expect(requests.length).toBeGreaterThan(50);
    expect(
      requests.every(
        (l) => typeof l.method === 'string' && typeof l.path === 'string' && typeof l.durationMs === 'number',
      ),
    ).toBe(true);
    expect(requests.some((l) => typeof l.requestId === 'string' && l.status === 200)).toBe(true);
  });
});
