/** docs/bank-api.md §2 and §7.4, against the real emulator. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthenticationError, ScopeMissingError } from '../../src/api/api-errors';
import { createLogger } from '../../src/log';
import type { ConsentId } from '@bankdata/core/schemas';
import type { StartedEmulator } from '@bankdata/emulator';
import { clientFor, control, logOf, startTestEmulator, tokenRequests } from './emulator-helpers';

const MINUTE = 60_000;

describe('token handling against the emulator', () => {
  let emu: StartedEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator();
  });
  afterAll(() => emu.close());

  it('R-AUTH-10 caches the token: many calls, one token request', async () => {
    const before = tokenRequests(emu).length;
    const { client } = clientFor(emu);
    await client.getMeta();
    await client.getMeta();
    await client.getMeta();
    expect(tokenRequests(emu).length - before).toBe(1);
  });

  it('R-AUTH-10 renews the token 5 minutes before its 3600 s expiry, before the server refuses it', async () => {
    let localNow = Date.parse('2030-01-01T00:00:00Z');
    const { client } = clientFor(emu, { now: () => new Date(localNow) });
    const before = emu.requests().length;
    await client.getMeta();
    localNow += 54 * MINUTE;
    emu.advance(54 * MINUTE);
    await client.getMeta();
    expect(tokenRequests(emu).filter((e) => e.seq > before)).toHaveLength(1);
    localNow += MINUTE + 1;
    emu.advance(MINUTE + 1);
    await client.getMeta();
    const after = emu.requests().filter((e) => e.seq > before);
    expect(after.filter((e) => e.path === '/oauth2/token')).toHaveLength(2);
    expect(after.some((e) => e.status === 401)).toBe(false);
  });

  it('R-AUTH-10 twenty concurrent callers share ONE token request', async () => {
    const before = emu.requests().length;
    const { client } = clientFor(emu);
    const results = await Promise.all(Array.from({ length: 20 }, () => client.getMeta()));
    expect(results).toHaveLength(20);
    const seen = emu.requests().filter((e) => e.seq > before);
    expect(seen.filter((e) => e.path === '/oauth2/token')).toHaveLength(1);
    expect(seen.filter((e) => e.path === '/v1/meta' && e.status === 200)).toHaveLength(20);
  });

  it('R-AUTH-11 a revoked token gets one new token and one retry, shared by concurrent callers (docs/bank-api.md §7.4)', async () => {
    const { client } = clientFor(emu);
    await client.getMeta();
    await control(emu, 'POST', 'tokens/revoke');
    const before = emu.requests().length;
    await Promise.all(Array.from({ length: 20 }, () => client.getMeta()));
    const seen = emu.requests().filter((e) => e.seq > before);
    expect(seen.filter((e) => e.path === '/oauth2/token')).toHaveLength(1);
    expect(seen.filter((e) => e.path === '/v1/meta' && e.status === 401)).toHaveLength(20);
    expect(seen.filter((e) => e.path === '/v1/meta' && e.status === 200)).toHaveLength(20);
    expect(client.stats().byKind.meta).toBe(41);
  });

  it('R-AUTH-11 a second 401 is an authentication error that says to check credentials and environment', async () => {
    // Every token the server grants is already dead when used: credentials of the wrong
    // environment behave this way. The emulator's log hook moves its clock past the
    // (short) lifetime as soon as it has issued a token.
    const lifetimeMs = 60_000;
    let dead: StartedEmulator | undefined;
    // eslint-disable-next-line prefer-const -- the log sink below reads it, after it is assigned
    dead = await startTestEmulator({
      tokenLifetimeSeconds: lifetimeMs / 1000,
      logger: createLogger({
        level: 'info',
        sink: (line) => {
          const entry = JSON.parse(line) as { path?: string; status?: number };
          if (entry.path === '/oauth2/token' && entry.status === 200) dead!.advance(lifetimeMs);
        },
      }),
    });
    try {
      const { client, sleeps } = clientFor(dead);
      const error = await client.getMeta().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AuthenticationError);
      expect((error as AuthenticationError).status).toBe(401);
      expect((error as Error).message).toMatch(/client id and secret/);
      expect((error as Error).message).toMatch(/sandbox vs production/);
      expect(sleeps).toEqual([]);
      expect(logOf(dead, '/v1/meta').map((e) => e.status)).toEqual([401, 401]);
      expect(tokenRequests(dead)).toHaveLength(2);
    } finally {
      await dead.close();
    }
  });

  it('R-AUTH-2 HTTP Basic credentials replace the form fields', async () => {
    const before = emu.requests().length;
    const { client } = clientFor(emu, { tokenAuth: 'basic' });
    await expect(client.getMeta()).resolves.toHaveLength(1);
    const token = emu.requests().filter((e) => e.seq > before && e.path === '/oauth2/token');
    expect(token.map((e) => e.status)).toEqual([200]);
  });

  it('R-AUTH-3 a wrong client secret is an authentication error at the token endpoint, not retried', async () => {
    const before = emu.requests().length;
    const { client, sleeps } = clientFor(emu, { clientSecret: 'not-the-secret-0000' });
    const error = await client.getMeta().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ status: 401, path: '/oauth2/token' });
    expect(sleeps).toEqual([]);
    const seen = emu.requests().filter((e) => e.seq > before);
    expect(seen.map((e) => [e.path, e.status])).toEqual([['/oauth2/token', 401]]);
  });

  it('R-AUTH-9 403 without code names the scope the endpoint needs (docs/bank-api.md §2, §3)', async () => {
    const created = (await control(emu, 'POST', 'clients', { scopes: ['read:meta'] })) as {
      client_id: string;
      client_secret: string;
    };
    const { client } = clientFor(emu, { clientId: created.client_id, clientSecret: created.client_secret });
    expect(await client.grantedScopes()).toEqual(['read:meta']);
    const error = await client.getConsent('0b7b6e4c-1f0e-4a53-9b1e-2f4d5c6a7b80' as ConsentId).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ScopeMissingError);
    expect(error).toMatchObject({ status: 403, code: null, scope: 'manage:consents' });
    expect((error as Error).message).toContain('manage:consents');
  });
});
