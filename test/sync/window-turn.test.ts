/**
 * While a bank's BDT263 limit is unknown, one account at a time may ask a window that could be
 * over it (src/sync/window-learning.ts `turn`); the window is judged by the days it will span. A
 * bank that never refused leaves its limit unknown for good: a nightly's windows of a few days,
 * far under the most rows it ever accepted, run side by side, not one account at a time (they
 * were judged as windows of `sync.windowDays`, 3,650 days).
 */
import { afterAll, expect, it } from 'vitest';
import { BANKS, type AccountId } from '@bankdata/core/schemas';
import { createDataApiClient, type DataApiClient } from '../../src/api';
import type { SyncSettings } from '../../src/sync/run-context';
import { startHarness, type Harness } from '../fixtures/sync-harness';

const SETTINGS: SyncSettings = {
  lookbackDays: 14,
  floor: null,
  concurrency: 16,
  windowDays: 3650,
  minWindowDays: 1,
  partyRefreshDays: 7,
};

let h: Harness;
afterAll(async () => {
  await h?.close();
});

/** A client that counts the transaction requests of `watched` accounts in flight at once. */
function countingClient(watched: ReadonlySet<string>, most: { inFlight: number; calls: number }): DataApiClient {
  const client = createDataApiClient({
    baseUrl: h.emu.baseUrl,
    clientId: h.emu.clientId,
    clientSecret: h.emu.clientSecret,
  });
  const list = client.listTransactions.bind(client);
  let inFlight = 0;
  client.listTransactions = async (...args: Parameters<DataApiClient['listTransactions']>) => {
    if (!watched.has(args[1])) return list(...args);
    most.calls += 1;
    most.inFlight = Math.max(most.inFlight, ++inFlight);
    try {
      return await list(...args);
    } finally {
      inFlight -= 1;
    }
  };
  return client;
}

it('runs a nightly’s windows of a bank that never refused side by side', async () => {
  h = await startHarness({
    customersPerBank: 3,
    start: '2026-03-10T10:00:00+13:00',
    maxResultSize: Object.fromEntries(BANKS.map((b) => [b, 1_000_000])),
  });
  const now = () => h.emu.now().toJSDate();
  expect(
    (await h.sync({ settings: SETTINGS, client: countingClient(new Set(), { inFlight: 0, calls: 0 }), now })).outcome,
  ).toBe('ok');
  const known = await h.store.syncState.getWindowKnowledge('PNZ');
  expect(known.minRefusedRows).toBeNull();
  const most = known.maxAcceptedRows!;
  // PNZ's accounts too dense for a window of 3,650 days within the most it accepted, yet whose
  // nightly (about 15 days) holds a tenth of it.
  const watched = new Set<AccountId>(
    (await h.store.syncState.storedDensities('PNZ'))
      .filter((d) => d.rowsPerDay * 3650 > most && d.rowsPerDay * 16 < most / 10)
      .map((d) => d.accountId),
  );
  expect(watched.size).toBeGreaterThan(1);
  h.emu.updateSettings({ latencyMs: 40 });
  h.emu.advance(86_400_000);
  const counted = { inFlight: 0, calls: 0 };
  expect((await h.sync({ settings: SETTINGS, client: countingClient(watched, counted), now })).outcome).toBe('ok');
  expect(counted.calls).toBeGreaterThan(1);
  expect(counted.inFlight).toBeGreaterThan(1);
}, 120_000);
