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
});
