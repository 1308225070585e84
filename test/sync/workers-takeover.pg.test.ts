/**
 * A PostgreSQL worker taken over while a unit of its was in flight (paused past its term) commits
 * nothing of it when it wakes: the newer run's rows stand (docs/postgres.md "Cooperating workers").
 * In one process, over one database: worker A's store pauses it at its first transactions window
 * holding pending rows; its term is ended on the server's clock; the bank settles those rows; the
 * next sync B judges A gone, opens its own run and removes them; then A wakes.
 */
import type pg from 'pg';
import { afterEach, expect, it } from 'vitest';
import { createDataApiClient } from '../../src/api';
import type { Store, TransactionWindowInput } from '../../src/store';
import type { RunWork } from '../../src/store/run-work';
import { runSync } from '../../src/sync/run';
import { SETTINGS, startHarnessOn, type Harness } from '../fixtures/sync-harness';
import { waitFor } from '../cli/cli-process';
import { createTestDatabase, describePostgres } from '../support/postgres';

/** Short terms, so that the renewals of both runs go on through the test (no assertion on time). */
const LEASE = { leaseTtlMs: 1500, leaseRenewMs: 300 };

interface Row {
  bank: string;
  account_id: string;
  transaction_id: string;
  status: string;
  amount: string;
  open: boolean;
}

describePostgres('a worker taken over with a unit in flight', () => {
  let h: Harness<Store> | undefined;
  let wake: (() => void) | undefined;
  afterEach(async () => {
    wake?.();
    await h?.close();
    h = undefined;
  });

  it('commits nothing of its unit when it wakes: the pending rows the next run removed stay removed, and its run is partial', async () => {
    h = await startHarnessOn(await createTestDatabase(), {
      customersPerBank: 1,
      historyDays: 30,
      start: '2026-03-10T10:00:00+13:00',
    });
    const harness = h;
    const now = () => harness.emu.now().toJSDate();
    expect((await harness.sync({ now })).outcome).toBe('ok');
    const pool = (harness.store as Store & { pool: pg.Pool }).pool;

    // Worker A's store: it pauses (as under SIGSTOP) at its first window holding pending rows,
    // before that window commits; its queue calls and renewals wait with it.
    let paused = false;
    let woken!: () => void;
    const wakes = new Promise<void>((resolve) => (woken = resolve));
    wake = woken;
    let pausedAt!: (window: TransactionWindowInput) => void;
    const isPaused = new Promise<TransactionWindowInput>((resolve) => (pausedAt = resolve));
    const frozen = async () => {
      if (paused) await wakes;
    };
    let runA: string | undefined;
    const storeA: Store = {
      ...harness.store,
      commitTransactionWindow: async (input) => {
        if (!paused && input.rows.some((r) => r.status === 'Pending')) {
          paused = true;
          pausedAt(input as TransactionWindowInput);
        }
        await frozen();
        return harness.store.commitTransactionWindow(input);
      },
      runs: {
        ...harness.store.runs,
        begin: async (input) => {
          const begun = await harness.store.runs.begin(input);
          if (!begun.ok) return begun;
          runA = begun.work.runId;
          const work: RunWork = {
            runId: begun.work.runId,
            next: async (...a) => (await frozen(), begun.work.next(...a)),
            done: async (...a) => (await frozen(), begun.work.done(...a)),
            renew: async (...a) => (await frozen(), begun.work.renew(...a)),
            leave: (...a) => begun.work.leave(...a),
            abandon: () => begun.work.abandon(),
          };
          return { ok: true, work };
        },
      },
    };
    const clientA = createDataApiClient({
      baseUrl: harness.emu.baseUrl,
      clientId: harness.emu.clientId,
      clientSecret: harness.emu.clientSecret,
      retry: { baseDelayMs: 1, maxDelayMs: 5 },
    });
    const a = runSync({
      store: storeA,
      client: clientA,
      dataDir: harness.dataDir,
      settings: { ...SETTINGS, concurrency: 1, spareLanes: false, ...LEASE },
      now,
    });
    const window = await isPaused;
    const fetchedPending = window.rows.filter((r) => r.status === 'Pending').map((r) => r.transactionId);

    // A's term ends on the server's clock (a renewal that was on its way may push it once more:
    // then the condition waits for that term to pass).
    await pool.query(
      `UPDATE run_workers SET expires_at = clock_timestamp() - interval '1 second' WHERE run_id = $1 AND left_at IS NULL`,
      [runA],
    );
    await waitFor(async () => {
      const { rows } = await pool.query(
        `SELECT 1 FROM run_workers WHERE run_id = $1 AND left_at IS NULL AND expires_at < clock_timestamp()`,
        [runA],
      );
      return rows.length > 0 ? true : undefined;
    });

    // The bank settles the pending rows; the next sync takes A over and syncs in a run of its own.
    harness.emu.advance(3 * 86_400_000);
    const b = await harness.sync({ now, settings: { ...SETTINGS, ...LEASE } });
    expect(b.outcome).toBe('ok');
    expect(b.runId).not.toBe(runA);
    const snapshot = `SELECT bank, account_id, transaction_id, status, amount::text AS amount, removed_at IS NULL AS open
      FROM transactions ORDER BY bank, account_id, transaction_id`;
    const afterB = (await pool.query<Row>(snapshot)).rows;
    // What the case needs: a pending row A fetched that B found settled and removed.
    const removedByB = afterB.filter(
      (r) =>
        r.status === 'Pending' &&
        !r.open &&
        r.account_id === window.accountId &&
        fetchedPending.includes(r.transaction_id as (typeof fetchedPending)[number]),
    );
    expect(removedByB.length).toBeGreaterThan(0);

    // A wakes: its window is refused (it no longer holds the consent), and it stops.
    woken();
    const summaryA = await a;
    const afterA = (await pool.query<Row>(snapshot)).rows;
    const reopened = afterA.filter(
      (r) => r.status === 'Pending' && r.open && removedByB.some((x) => x.transaction_id === r.transaction_id),
    );
    expect({ reopened, outcome: summaryA.outcome, interrupted: summaryA.interrupted }).toEqual({
      reopened: [],
      outcome: 'partial',
      interrupted: true,
    });
    expect(summaryA.counters.failedUnits.map((f) => f.reason).join('\n')).toContain('lease lost');
    expect(afterA).toEqual(afterB);
  }, 120_000);
});
