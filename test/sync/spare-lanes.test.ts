/**
 * Spare lanes (src/sync/pool.ts `runLanes`, `mapSpare`; docs/configuration.md "How far
 * `sync.concurrency` raises the requests in flight"): once the run's queue has no consent left to
 * start, a running consent takes the lanes left free to run its accounts, their units and their
 * statement files side by side; with `sync.concurrency` 1 everything runs one after another.
 * Shown by what the emulator holds: with its hold on (`dataRequestDelayMs`), every request that
 * reaches it waits there, so the number held at once is the number the sync has in flight.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ConsentId } from '@bankdata/core/schemas';
import type { RequestLogEntry } from '@bankdata/emulator';
import { ConsentEndedError } from '../../src/api';
import type { SyncSettings } from '../../src/sync/run-context';
import { endpointOf, requestHook } from '../fixtures/request-log';
import { startHarness, type Harness } from '../fixtures/sync-harness';

const settings = (concurrency: number): SyncSettings => ({
  spareLanes: true,
  lookbackDays: 14,
  floor: null,
  concurrency,
  windowDays: 3650,
  minWindowDays: 1,
  partyRefreshDays: 7,
  statementSafetyDays: 31,
});

describe('spare lanes', () => {
  let h: Harness | null = null;
  afterEach(async () => {
    await h?.close();
    h = null;
  });

  /** A harness whose emulator holds every Data API request once the accounts list was answered. */
  async function holdAfterAccounts(): Promise<Harness> {
    let armed = true;
    const harness = await startHarness({
      customersPerBank: 1,
      environment: 'production',
      banks: ['PNZ'],
      latencyMs: 2,
      logger: requestHook((entry) => {
        if (armed && endpointOf(entry.path) === 'accounts' && entry.status === 200) {
          armed = false;
          harness.emu.updateSettings({ dataRequestDelayMs: 600_000 });
        }
      }),
    });
    return harness;
  }

  it('a run of one consent sends its accounts and units side by side on the lanes no other consent takes', async () => {
    h = await holdAfterAccounts();
    const harness = h;
    const consentId = harness.emu.consentIds[0] as ConsentId;
    const run = harness.sync({ settings: settings(8), consentIds: [consentId] });
    // Eight lanes, one consent of two accounts: the account list answered, at least four requests
    // of its accounts reach the bank at once (one lane would send one; the world's two accounts ×
    // balances, statements and party, and one transactions window while the bank's limit is
    // unknown, make seven).
    expect(await harness.emu.whenHeld(4)).toBeGreaterThanOrEqual(4);
    harness.emu.updateSettings({ dataRequestDelayMs: 0 });
    expect((await run).outcome).toBe('ok');
  });

  it('with sync.concurrency 1 the consent walks its accounts and units one after another', async () => {
    h = await startHarness({ customersPerBank: 1, environment: 'production', banks: ['PNZ'], latencyMs: 2 });
    const consentId = h.emu.consentIds[0] as ConsentId;
    const after = h.emu.requests().at(-1)?.seq ?? 0;
    expect((await h.sync({ settings: settings(1), consentIds: [consentId] })).outcome).toBe('ok');
    const log = h.emu.requests().filter((e) => e.seq > after && e.account_id !== undefined);
    // Each account's requests form one run in the log: no other account's request comes between.
    const runs: string[] = [];
    for (const e of log) if (runs.at(-1) !== e.account_id) runs.push(e.account_id!);
    expect(new Set(runs).size).toBeGreaterThan(1);
    expect(runs.length).toBe(new Set(runs).size);
    // And within an account, its units in their order: balances, transactions, statements and
    // their files, the account's party.
    const order = ['balances', 'transactions', 'statements', 'statement_file', 'account_party'];
    const unitsOf = (entries: RequestLogEntry[]) => entries.map((e) => order.indexOf(endpointOf(e.path) ?? ''));
    for (const account of runs) {
      const units = unitsOf(log.filter((e) => e.account_id === account));
      expect(units).toEqual([...units].sort((a, b) => a - b));
    }
  });

  it('with spare lanes the same run stores the same rows and files as with one lane', async () => {
    h = await startHarness({ customersPerBank: 1, environment: 'production', banks: ['PNZ'], latencyMs: 2 });
    const harness = h;
    const consentId = harness.emu.consentIds[0] as ConsentId;
    const count = () =>
      harness.store.sqlite
        .prepare(
          `SELECT (SELECT count(*) FROM transactions) AS tx, (SELECT count(*) FROM statements WHERE file_path IS NOT NULL) AS files,
             (SELECT count(*) FROM balances) AS balances`,
        )
        .get() as { tx: number; files: number; balances: number };
    expect((await harness.sync({ settings: settings(16), consentIds: [consentId] })).outcome).toBe('ok');
    const spare = count();
    expect(spare.tx).toBeGreaterThan(0);
    expect(spare.files).toBeGreaterThan(1);
    // A full rerun with one lane finds nothing new to add.
    const again = await harness.sync({ settings: settings(1), consentIds: [consentId], full: true });
    expect(again.outcome).toBe('ok');
    expect(again.counters.rowsAdded).toBe(0);
    expect(count().tx).toBe(spare.tx);
    expect(count().files).toBe(spare.files);
  });

  it("an error that ends the consent stops the consent's other accounts at their next window, though the bank still answers them", async () => {
    h = await startHarness({ customersPerBank: 1, environment: 'production', banks: ['PNZ'], latencyMs: 2 });
    const harness = h;
    const consentId = harness.emu.consentIds[0] as ConsentId;
    // The bank's limit known: no account waits for another's turn to learn it.
    await harness.store.syncState.recordWindowKnowledge('PNZ', { acceptedRows: 50, refusedRows: 100_000 });
    // The first account to ask for transactions is told the consent has ended once the second
    // one's first window was answered; the second's window returns only after that error has
    // gone up (its propagation is promise jobs only: one macrotask later it has). The bank still
    // serves the consent: only the client's stop keeps the second account from its next window.
    const calls = new Map<string, number>();
    let first: string | null = null;
    let secondAnswered: () => void = () => {};
    const secondDone = new Promise<void>((resolve) => (secondAnswered = resolve));
    let endedSent: () => void = () => {};
    const ended = new Promise<void>((resolve) => (endedSent = resolve));
    const client = new Proxy(harness.client, {
      get(target, prop, receiver) {
        if (prop !== 'listTransactions') {
          const value = Reflect.get(target, prop, receiver) as unknown;
          return typeof value === 'function' ? value.bind(target) : value;
        }
        return async (...args: Parameters<typeof target.listTransactions>) => {
          const accountId = args[1];
          const n = (calls.get(accountId) ?? 0) + 1;
          calls.set(accountId, n);
          first ??= accountId;
          if (accountId === first) {
            await secondDone;
            setImmediate(endedSent);
            throw new ConsentEndedError('consent can no longer be used (unusable)', {
              status: 422,
              code: 'BDT415',
              path: `/v1/accounts/${accountId}/transactions`,
              requestId: null,
            });
          }
          const answer = await target.listTransactions(...args);
          if (n === 1) {
            // The second account's, or another's in flight with it.
            secondAnswered();
            await ended;
          }
          return answer;
        };
      },
    });
    // Windows of 30 days: each account has many, read one after another.
    const summary = await harness.sync({
      client,
      settings: { ...settings(8), windowDays: 30 },
      consentIds: [consentId],
    });
    expect(summary.consents.map((c) => c.outcome)).toEqual(['ended']);
    expect(calls.size).toBeGreaterThanOrEqual(2);
    // Without the stop the other accounts read every window of their range.
    expect([...calls.values()]).toEqual([...calls.values()].map(() => 1));
  });
});
