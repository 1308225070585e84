/**
 * `sync --dry-run` (README.md): plans with the same rules as a run, sends only meta and
 * consent reads (and the token request), and writes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthenticationError, type DataApiClient } from '../../src/api';
import type { ConsentId } from '@bankdata/core/schemas';
import { planDryRun } from '../../src/sync/dry-run';
import { endpointOf } from '../fixtures/request-log';
import { SETTINGS, startHarness, type Harness } from '../fixtures/sync-harness';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ historyDays: 150 });
});
afterAll(async () => {
  await h.close();
});

const TABLES = [
  'runs',
  'transactions',
  'accounts',
  'balances',
  'statements',
  'parties',
  'rejects',
  'sync_state',
] as const;

/** Every row of the tables a run writes, and the consents registry, as text. */
function dump(): string {
  const rows: Record<string, unknown[]> = {};
  for (const t of [...TABLES, 'consents']) rows[t] = h.store.sqlite.prepare(`SELECT * FROM ${t} ORDER BY rowid`).all();
  return JSON.stringify(rows);
}

function sentSince(seq: number) {
  return h.emu.requests().filter((e) => e.seq > seq);
}

describe('sync --dry-run', () => {
  it('before any sync: sends only token, meta and consent reads, writes nothing, and lists the account-list request of each authorised consent', async () => {
    const before = dump();
    const seq = h.emu.requests().at(-1)?.seq ?? 0;
    const plan = await planDryRun({ store: h.store, client: h.client, settings: SETTINGS });
    const sent = sentSince(seq);
    expect(sent.length).toBeGreaterThan(0);
    for (const entry of sent) {
      expect(entry.method === 'POST' ? entry.path : `${entry.method} ${endpointOf(entry.path)}`).toMatch(
        /^(\/oauth2\/token|GET meta|GET consents)$/,
      );
    }
    expect(dump()).toBe(before);
    const authorised = plan.consents.filter((c) => c.status === 'Authorised' && c.requests.length > 0);
    expect(authorised.length).toBeGreaterThan(0);
    for (const c of authorised) expect(c.requests).toContain(`GET /v1/accounts?consent_id=${c.consentId}`);
  });

  it('after a sync: lists the transaction windows of the known accounts, still sending and writing nothing else', async () => {
    await h.sync();
    const before = dump();
    const seq = h.emu.requests().at(-1)?.seq ?? 0;
    const plan = await planDryRun({ store: h.store, client: h.client, settings: SETTINGS });
    expect(sentSince(seq).every((e) => ['token', 'meta', 'consents'].includes(endpointOf(e.path) ?? ''))).toBe(true);
    expect(dump()).toBe(before);
    const windows = plan.consents.flatMap((c) => c.requests.filter((r) => r.includes('/transactions?')));
    expect(windows.length).toBeGreaterThan(0);
  });

  it('walks the same units as the sync: party data read by the last sync is not due again, unless --full', async () => {
    await h.sync();
    const plan = await planDryRun({ store: h.store, client: h.client, settings: SETTINGS });
    const party = (p: typeof plan) => p.consents.flatMap((c) => c.requests.filter((r) => /\/party\?/.test(r)));
    expect(party(plan)).toEqual([]);
    const full = await planDryRun({ store: h.store, client: h.client, settings: SETTINGS, full: true });
    expect(party(full).length).toBeGreaterThan(0);
    // The real run agrees: nothing of party is asked within sync.partyRefreshDays.
    const seq = h.emu.requests().at(-1)?.seq ?? 0;
    await h.sync();
    expect(sentSince(seq).filter((e) => /\/party(\?|$)/.test(e.path))).toEqual([]);
  });

  it('a token refused while reading a consent is an authentication error (exit 3), not a consent shown as unreadable', async () => {
    const refused: DataApiClient = {
      ...h.client,
      getConsent: (consentId: ConsentId) =>
        Promise.reject(
          new AuthenticationError('token refused', {
            status: 401,
            code: null,
            path: `/v1/consents/${consentId}`,
            requestId: null,
          }),
        ),
    };
    await expect(planDryRun({ store: h.store, client: refused, settings: SETTINGS })).rejects.toBeInstanceOf(
      AuthenticationError,
    );
  });
});
