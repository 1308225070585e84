/**
 * A run's `requests` (v_runs, the sync's summary) counts the requests it sent, not those of other
 * work on the same client meanwhile (src/api/request-count.ts). `bankdata schedule` keeps one
 * client for every job, and the nightly sync may still run when the meta refresh or the expiry
 * check starts. Before, each run recorded the growth of the client's count while it ran: the
 * nightly sync counted the meta refresh's request as its own, and the meta refresh the sync's
 * requests sent meanwhile.
 *
 * The overlap is made, not timed: the sync's first transactions request waits until the meta
 * refresh, started once that request is asked, has finished.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { META_REFRESH, buildJobs, type JobContext, type JobReport } from '../../src/jobs';
import { silentLogger } from '../../src/log';
import { queryRows } from '../support/dialects';
import { startHarness, SETTINGS, type Harness } from '../fixtures/sync-harness';
import { overriding } from '../fixtures/client-overrides';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

/** A promise and the function that resolves it. */
function signal(): { promise: Promise<void>; fire: () => void } {
  let fire = () => undefined as void;
  const promise = new Promise<void>((resolve) => {
    fire = resolve;
  });
  return { promise, fire };
}

it('the sync and a job run beside it on one client each record their own requests', async () => {
  const syncAsking = signal();
  const jobDone = signal();
  const ctx: JobContext = {
    store: h.store,
    client: h.client,
    dataDir: h.dataDir,
    sync: SETTINGS,
    expiryWarningDays: 14,
    logger: silentLogger,
    now: () => new Date(),
  };
  const refresh = buildJobs(ctx, { sync: '0 2 * * *', expiryCheck: '0 8 * * *', metaRefresh: '0 6 * * 1' }).find(
    (j) => j.name === META_REFRESH,
  )!;
  // The job, as the scheduler starts it: not from within the sync.
  const job: Promise<JobReport> = (async () => {
    await syncAsking.promise;
    try {
      return await refresh.run(new AbortController().signal, new Date());
    } finally {
      jobDone.fire();
    }
  })();
  let first = true;
  const client = overriding(h.client, {
    listTransactions:
      (real) =>
      async (...args) => {
        if (first) {
          first = false;
          syncAsking.fire();
          await jobDone.promise;
        }
        return real(...args);
      },
  });

  const before = h.client.stats().requests;
  const summary = await h.sync({ client });
  const report = await job;
  const sent = h.client.stats().requests - before;
  expect(summary.outcome).toBe('ok');
  expect(report.outcome).toBe('ok');

  const recorded = async (runId: string) =>
    (await queryRows<{ requests: number }>(h.store, 'SELECT requests FROM v_runs WHERE run_id = ?', runId))[0]
      ?.requests;
  // The meta refresh sent one request (GET /v1/meta: the token was the sync's already).
  expect(await recorded(report.runId!)).toBe(1);
  expect(summary.requests).toBe(sent - 1);
  expect(await recorded(summary.runId)).toBe(summary.requests);
}, 120_000);
