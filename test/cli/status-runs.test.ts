/**
 * `bankdata status`'s state of the runs with no end (src/cli/status.ts `readStatus`): the lease's
 * run is the first unfinished one since the lease was taken, and the scheduler's lease-less jobs
 * started beside it run too; a run started before the lease, or with no lease, was interrupted.
 * Each run names its job (job_runs), in the text and in --json.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { formatStatus, readStatus } from '../../src/cli/status';
import { openStore, type SqliteStore } from '../../src/store';
import { failedSyncThenExpiryCheck } from '../fixtures/planted-runs';

const opened: { store: SqliteStore; dir: string }[] = [];
afterEach(async () => {
  for (const { store, dir } of opened.splice(0)) {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

async function fresh(): Promise<SqliteStore> {
  const dir = mkdtempSync(join(tmpdir(), 'bankdata-status-'));
  const store = await openStore(join(dir, 'bankdata.sqlite'));
  opened.push({ store, dir });
  return store;
}

const stateOf = async (store: SqliteStore, runId: string) =>
  (await readStatus(store, 14)).runs.find((r) => r.run_id === runId)?.outcome;

it('keeps a nightly sync holding the lease running while the expiry check runs beside it', async () => {
  const store = await fresh();
  const t0 = Date.now() - 5_000;
  // A run killed before this lease was taken.
  const killed = await store.runs.start({ now: new Date(t0 - 60_000) });
  const sync = await store.runs.begin({
    consentIds: [],
    holder: { pid: process.pid, host: hostname() },
    now: new Date(t0),
    leaseTtlMs: 60_000,
  });
  if (!sync.ok) throw new Error('no lease');
  // runRecorded's run (the expiry check): no lease of its own.
  const expiry = await store.runs.start({ now: new Date(t0 + 1_000) });
  expect(await stateOf(store, sync.work.runId)).toBeNull();
  expect(await stateOf(store, expiry)).toBeNull();
  expect(await stateOf(store, killed)).toBe('interrupted');
});

it('shows a run with no end and no lease as interrupted', async () => {
  const store = await fresh();
  const run = await store.runs.start({ now: new Date(Date.now() - 5_000) });
  expect(await stateOf(store, run)).toBe('interrupted');
});

it("names each run's job: a failed nightly sync, then the 08:00 expiry check (text JOB column, --json job)", async () => {
  const store = await fresh();
  const { sync, expiry } = await failedSyncThenExpiryCheck(store);
  const status = await readStatus(store, 14);
  expect(status.runs.map((r) => [r.run_id, r.job, r.outcome])).toEqual([
    [expiry, 'expiry-check', 'ok'],
    [sync, null, 'failed'],
  ]);
  expect(JSON.parse(JSON.stringify(status)).runs[0]).toMatchObject({ job: 'expiry-check' });
  const text = formatStatus(status, 14).split('\n');
  expect(text.find((l) => l.includes('STARTED'))).toMatch(/^ {2}STARTED +JOB +OUTCOME /);
  expect(text.find((l) => l.includes(' ok '))).toMatch(/ expiry-check +ok /);
  expect(text.find((l) => l.includes(' failed '))).toMatch(/ sync +failed /);
});
