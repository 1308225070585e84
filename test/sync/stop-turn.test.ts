/**
 * A stop (SIGTERM, SIGINT) while an account waits for the bank's turn (the result limit still
 * being learned: one account at a time asks a window that may be over it): the window in flight
 * finishes, and the waiting account starts none (src/sync/unit-outcome.ts `runUnit`: no unit
 * starts once the run is stopping). It went on to fetch a whole new window after the stop.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsentId } from '@bankdata/core/schemas';
import { createDataApiClient } from '../../src/api';
import { startBankProxy, type BankProxy } from '../fixtures/bank-proxy';
import { endpointOf } from '../fixtures/request-log';
import { SETTINGS, startHarness, type Harness } from '../fixtures/sync-harness';

describe('a stop while an account waits for the bank’s turn', () => {
  let h: Harness;
  let proxy: BankProxy;
  beforeAll(async () => {
    h = await startHarness({ customersPerBank: 1 });
    proxy = await startBankProxy(h.emu);
  });
  afterAll(async () => {
    await proxy.close();
    await h.close();
  });

  it('the waiting account sends no transactions request after the stop; only the window in flight ends', async () => {
    const withTransactions = h.emu.consentIds.filter((id) => {
      const c = h.emu.consent(id)!;
      return (
        c.status === 'Authorised' &&
        c.accountKeys.length > 0 &&
        c.permissions.includes('ReadTransactionsDetail') &&
        c.permissions.includes('ReadAccountsDetail')
      );
    });
    // Two consents at one bank: their accounts share the bank's turn.
    const [a, b] = withTransactions as [ConsentId, ConsentId];
    expect(b).toBeDefined();
    const client = createDataApiClient({
      baseUrl: proxy.baseUrl,
      clientId: h.emu.clientId,
      clientSecret: h.emu.clientSecret,
      retry: { baseDelayMs: 1, maxDelayMs: 5 },
    });
    // The second account to reach its transactions reads its rows per day just before the turn.
    let calls = 0;
    let secondAtTurn: () => void = () => undefined;
    const atTurn = new Promise<void>((r) => (secondAtTurn = r));
    const syncState = h.store.syncState as unknown as Record<string, (...x: unknown[]) => Promise<unknown>>;
    const getRowsPerDay = syncState.getRowsPerDay!;
    syncState.getRowsPerDay = async (...x: unknown[]) => {
      const value = await getRowsPerDay(...x);
      if (++calls === 2) setImmediate(secondAtTurn);
      return value;
    };
    try {
      const hold = proxy.hold(/\/transactions$/);
      const controller = new AbortController();
      const seqBefore = h.emu.requests().at(-1)?.seq ?? 0;
      const running = h.sync({
        client,
        consentIds: [a, b],
        signal: controller.signal,
        settings: { ...SETTINGS, concurrency: 2, spareLanes: false },
      });
      await hold.held;
      await atTurn;
      const seqAtStop = h.emu.requests().at(-1)?.seq ?? 0;
      controller.abort();
      hold.release();
      const summary = await running;

      const after = h.emu.requests().filter((e) => e.seq > seqAtStop && endpointOf(e.path) === 'transactions');
      const inFlight = h.emu.requests().find((e) => e.seq > seqBefore && endpointOf(e.path) === 'transactions')!;
      const started = after.filter(
        (e) =>
          !(
            e.consent_id === inFlight.consent_id &&
            e.account_id === inFlight.account_id &&
            e.query.fromBookingDateTime === inFlight.query.fromBookingDateTime
          ),
      );
      expect(summary.interrupted).toBe(true);
      expect(started).toEqual([]);
    } finally {
      syncState.getRowsPerDay = getRowsPerDay;
    }
  }, 60_000);
});
