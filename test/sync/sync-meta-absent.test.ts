/**
 * A consent whose bank /v1/meta does not list (docs/bank-api.md §5: unusable for this organisation and
 * environment): nothing is asked of it, and it is recorded as skipped with the reason, never as
 * synced `ok` with nothing fetched.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DataApiClient } from '../../src/api';
import { runSync, type SyncSummary } from '../../src/sync/run';
import { consentOf, endpointOf } from '../fixtures/request-log';
import { SETTINGS, startHarness, type Harness } from '../fixtures/sync-harness';

let h: Harness;
let summary: SyncSummary;
let sent: { endpoint: string | null; consent: string | undefined }[];

beforeAll(async () => {
  h = await startHarness();
  // The sandbox lists only PNZ, and every seeded consent is a PNZ consent: meta without it.
  const client: DataApiClient = {
    ...h.client,
    getMeta: async () => (await h.client.getMeta()).filter((b) => b.name !== 'PNZ'),
  };
  const before = h.emu.requests().at(-1)?.seq ?? 0;
  summary = await runSync({ store: h.store, client, dataDir: h.dataDir, settings: SETTINGS });
  sent = h.emu
    .requests()
    .filter((e) => e.seq > before)
    .map((e) => ({ endpoint: endpointOf(e.path), consent: consentOf(e) }));
});
afterAll(async () => {
  await h.close();
});

describe('a consent of a bank missing from /v1/meta', () => {
  it('is skipped with the reason, not synced ok; last_synced_at does not move', () => {
    const authorised = summary.consents.filter((c) => c.status === 'Authorised');
    expect(authorised.length).toBeGreaterThan(0);
    for (const c of authorised) {
      expect(c.outcome).toBe('skipped');
      expect(c.reason).toMatch(/PNZ is not listed in \/v1\/meta/);
      const row = h.store.sqlite
        .prepare('SELECT last_outcome, last_synced_at FROM v_consents WHERE consent_id = ?')
        .get(c.consentId);
      expect(row).toEqual({ last_outcome: 'skipped', last_synced_at: null });
    }
    expect(summary.outcome).toBe('ok');
  });

  it('asks nothing but the consent read of it', () => {
    const authorised = new Set(
      summary.consents.filter((c) => c.status === 'Authorised').map((c) => c.consentId as string),
    );
    const asked = sent.filter((s) => s.consent !== undefined && authorised.has(s.consent)).map((s) => s.endpoint);
    expect(new Set(asked)).toEqual(new Set(['consents']));
  });
});
