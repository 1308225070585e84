/**
 * Every job of the registry (buildJobs) whose work fails by throwing leaves its run recorded
 * `failed` and tagged with its job and slot (docs/consents-and-jobs.md "Jobs", its Records):
 * status shows the job, not a command-line sync, and the run.failed alert names it. The expiry
 * check and meta refresh write their run and tag in one transaction (runRecorded); the nightly
 * sync tags its run as soon as runSync has begun it.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { buildJobs, type JobContext } from '../../src/jobs';
import type { StartedEmulator } from '@bankdata/emulator';
import type { ConsentId } from '@bankdata/core/schemas';
import { AuthenticationError } from '../../src/api';
import { silentLogger } from '../../src/log';
import { openStore, type SqliteStore } from '../../src/store';
import { readStatus } from '../../src/cli/status';
import { clientFor, startTestEmulator } from '../api/emulator-helpers';
import { overriding } from '../fixtures/client-overrides';

let emu: StartedEmulator;
let store: SqliteStore;
let dir: string;

beforeEach(async () => {
  emu = await startTestEmulator({ historyDays: 30 });
  dir = mkdtempSync(join(tmpdir(), 'bankdata-failed-job-'));
  store = await openStore(join(dir, 'bankdata.sqlite'));
});
afterEach(async () => {
  await store.close();
  await emu.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Every job's work throws: the meta read fails with an error no job turns into an outcome (the
 * nightly sync and the meta refresh read the meta first), and the consent read's token is refused
 * (the expiry check rethrows it).
 */
function failingContext(): JobContext {
  const client = overriding(clientFor(emu).client, {
    getMeta: () => () => Promise.reject(new Error('meta read failed (injected)')),
    getConsent: () => () =>
      Promise.reject(
        new AuthenticationError('token refused (injected)', { status: 401, code: null, path: '', requestId: null }),
      ),
  });
  return {
    store,
    client,
    dataDir: dir,
    sync: { lookbackDays: 14, floor: null, concurrency: 2, windowDays: 31 },
    expiryWarningDays: 14,
    logger: silentLogger,
    now: () => emu.now().toJSDate(),
  };
}

it('every job whose work throws leaves a failed run tagged with its job and slot', async () => {
  await store.consents.add(randomUUID() as ConsentId);
  const jobs = buildJobs(failingContext(), { sync: '0 2 * * *', expiryCheck: '0 8 * * *', metaRefresh: '0 6 * * 1' });
  expect(jobs.length).toBeGreaterThan(0);
  const slots = new Map<string, string>();
  for (const [i, job] of jobs.entries()) {
    const slot = new Date(Date.UTC(2025, 5, 1 + i, 14));
    slots.set(job.name, slot.toISOString());
    await expect(job.run(new AbortController().signal, slot), job.name).rejects.toThrow();
  }
  const tagged = store.sqlite
    .prepare(
      `SELECT j.job, j.scheduled_for, r.outcome FROM v_runs r LEFT JOIN job_runs j ON j.run_id = r.run_id
       ORDER BY j.scheduled_for`,
    )
    .all();
  expect(tagged).toEqual(jobs.map((j) => ({ job: j.name, scheduled_for: slots.get(j.name), outcome: 'failed' })));
  const status = await readStatus(store, 14);
  expect(status.runs.map((r) => [r.job, r.outcome]).sort()).toEqual(jobs.map((j) => [j.name, 'failed']).sort());
  // What the alerts judge: each failed run with its job, none a command-line sync's (job null).
  const finished = await store.alerts.latestFinishedRuns();
  expect(finished.map((r) => r.job).sort()).toEqual(jobs.map((j) => j.name).sort());
});
