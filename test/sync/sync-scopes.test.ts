/**
 * A token whose scopes let the sync ask nothing is an authentication error (README.md exit
 * code 3: "a scope missing for everything asked"; docs/client.md), not a run of skips that ends
 * `ok`. Clients with chosen scopes come from the emulator's control route.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDataApiClient } from '../../src/api';
import { ExitCode } from '../../src/errors';
import { exitCodeOf } from '../../src/cli/sync';
import { runSync } from '../../src/sync/run';
import { control } from '../api/emulator-helpers';
import { endpointOf } from '../fixtures/request-log';
import { SETTINGS, startHarness, type Harness } from '../fixtures/sync-harness';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

async function syncWithScopes(scopes: string[]) {
  // A client of the same organisation as the default one, which holds the seeded consents.
  const created = (await control(h.emu, 'POST', 'clients', { scopes, organisation_of: h.emu.clientId })) as {
    client_id: string;
    client_secret: string;
  };
  const client = createDataApiClient({
    baseUrl: h.emu.baseUrl,
    clientId: created.client_id,
    clientSecret: created.client_secret,
    retry: { baseDelayMs: 1, maxDelayMs: 5 },
  });
  const before = h.emu.requests().at(-1)?.seq ?? 0;
  const summary = await runSync({ store: h.store, client, dataDir: h.dataDir, settings: SETTINGS });
  const sent = h.emu
    .requests()
    .filter((e) => e.seq > before)
    .map((e) => endpointOf(e.path));
  return { summary, sent };
}

describe('sync with a token that lacks scopes', () => {
  it('no data scope at all (read:accounts, read:party missing): fatal authentication, exit 3, nothing asked of any consent', async () => {
    const { summary, sent } = await syncWithScopes([
      'read:meta',
      'manage:consents',
      'read:balances',
      'read:transactions',
    ]);
    expect(summary.fatal?.kind).toBe('authentication');
    expect(summary.outcome).toBe('failed');
    expect(exitCodeOf(summary)).toBe(ExitCode.Auth);
    expect(sent.filter((e) => e !== 'token' && e !== 'meta')).toEqual([]);
    expect((await h.store.runs.get(summary.runId))?.outcome).toBe('failed');
  });

  it('no manage:consents: fatal authentication, exit 3, no consent read sent', async () => {
    const { summary, sent } = await syncWithScopes([
      'read:meta',
      'read:accounts',
      'read:balances',
      'read:transactions',
      'read:party',
    ]);
    expect(summary.fatal?.kind).toBe('authentication');
    expect(exitCodeOf(summary)).toBe(ExitCode.Auth);
    expect(sent.filter((e) => e !== 'token' && e !== 'meta')).toEqual([]);
  });

  it('a token that can still read the party is not fatal: the other resources are skipped with their reason', async () => {
    const { summary, sent } = await syncWithScopes(['read:meta', 'manage:consents', 'read:party']);
    expect(summary.fatal).toBeNull();
    expect(exitCodeOf(summary)).toBe(ExitCode.Ok);
    expect(sent).toContain('party');
    expect(sent).not.toContain('accounts');
    expect(
      summary.counters.skipped.some((s) => s.resource === 'accounts' && /scope read:accounts/.test(s.reason)),
    ).toBe(true);
  });
});
