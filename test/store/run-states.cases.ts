/**
 * The latest runs as every reader shows them (src/store/reports.ts `latestRunRows`: `status`, the
 * report): a run with no end is running while its holder lives (SQLite: the lease; PostgreSQL: its
 * workers) and interrupted once it is gone; each run names its job (job_runs), null for a sync
 * from the command line; `syncOnly` gives the syncs alone. Run by run-states.test.ts and
 * run-states.pg.test.ts.
 */
import { hostname } from 'node:os';
import { expect, it } from 'vitest';
import { storeSuite } from '../support/dialects';

const summary = { consents: 1, requests: 1, rowsWritten: 0, failedUnits: 0, errorSummary: null };

export const runStatesSuite = storeSuite('the latest runs with their state and job', (d) => {
  it('a run with no end and no holder is interrupted; one whose holder lives runs; finished ones keep their outcome', async () => {
    const store = await d.open();
    const t0 = Date.now() - 60_000;
    const killed = await store.runs.start({ now: new Date(t0) });
    const done = await store.runs.start({ now: new Date(t0 + 1_000) });
    await store.runs.finish(done, { outcome: 'partial', ...summary }, new Date(t0 + 2_000));
    expect((await store.reports.latestRuns(5)).map((r) => [r.run_id, r.outcome])).toEqual([
      [done, 'partial'],
      [killed, 'interrupted'],
    ]);
    // A live holder (this process): the lease on SQLite, a worker on PostgreSQL.
    const live = await store.runs.begin({
      consentIds: [],
      holder: { pid: process.pid, host: hostname() },
      now: new Date(),
      leaseTtlMs: 60_000,
    });
    if (!live.ok) throw new Error('no lease');
    const runs = await store.reports.latestRuns(5);
    expect(runs.map((r) => [r.run_id, r.outcome])).toEqual([
      [live.work.runId, null],
      [done, 'partial'],
      [killed, 'interrupted'],
    ]);
    expect(runs.every((r) => r.job === null)).toBe(true);
  });

  it("names each run's job, and gives the syncs alone (no job, or the nightly sync) when asked", async () => {
    const store = await d.open();
    const t0 = Date.parse('2025-03-04T13:00:00.000Z');
    const fromCli = await store.runs.start({ now: new Date(t0) });
    await store.runs.finish(fromCli, { outcome: 'ok', ...summary }, new Date(t0 + 1_000));
    const nightly = await store.runs.start({ now: new Date(t0 + 3_600_000) });
    await store.runs.recordJob(nightly, 'nightly-sync', new Date(t0 + 3_600_000));
    await store.runs.finish(nightly, { outcome: 'failed', ...summary }, new Date(t0 + 3_601_000));
    const expiry = await store.runs.start({ now: new Date(t0 + 7_200_000) });
    await store.runs.recordJob(expiry, 'expiry-check', new Date(t0 + 7_200_000));
    await store.runs.finish(expiry, { outcome: 'ok', ...summary }, new Date(t0 + 7_201_000));
    expect((await store.reports.latestRuns(5)).map((r) => [r.run_id, r.job, r.outcome])).toEqual([
      [expiry, 'expiry-check', 'ok'],
      [nightly, 'nightly-sync', 'failed'],
      [fromCli, null, 'ok'],
    ]);
    expect((await store.reports.latestRuns(1, { syncOnly: true })).map((r) => [r.run_id, r.job, r.outcome])).toEqual([
      [nightly, 'nightly-sync', 'failed'],
    ]);
    expect((await store.reports.latestRuns(5, { syncOnly: true })).map((r) => r.run_id)).toEqual([nightly, fromCli]);
  });
});
