/**
 * The nightly sync job on PostgreSQL with two `bankdata schedule` hosts: both fire at 02:00, their
 * syncs join one run (cooperating workers, docs/postgres.md), and both record that run's job. The
 * second record must not fail on job_runs' key: each host's job ends ok with the shared run id and
 * goes on to its payments pass, and the run keeps one job row, the first.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { StartedEmulator } from '@bankdata/emulator';
import type { ConsentId } from '@bankdata/core/schemas';
import { NIGHTLY_SYNC, buildJobs, type JobContext } from '../../src/jobs';
import { silentLogger } from '../../src/log';
import type { PaymentsPassResult } from '../../src/payments/sync-pass';
import { openDatabaseStore, type Store } from '../../src/store';
import { clientFor, startTestEmulator } from '../api/emulator-helpers';
import { queryRows } from '../support/dialects';
import { createTestDatabase, describePostgres } from '../support/postgres';

const PASS: PaymentsPassResult = {
  tracked: 0,
  open: 0,
  failures: [],
  unmatched: 0,
  ambiguous: 0,
  authenticationError: null,
};

describePostgres('nightly sync job on PostgreSQL', () => {
  let emu: StartedEmulator;
  let stores: Store[] = [];
  let dir: string;

  beforeEach(async () => {
    emu = await startTestEmulator();
    dir = mkdtempSync(join(tmpdir(), 'bankdata-nightly-pg-'));
    const url = await createTestDatabase();
    stores = [await openDatabaseStore(url), await openDatabaseStore(url)];
  });
  afterEach(async () => {
    for (const store of stores) await store.close();
    stores = [];
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The nightly job of one schedule host: its own store and client on the shared database. */
  function nightlyOf(store: Store, host: string, paymentPasses: string[]) {
    const ctx: JobContext = {
      store,
      client: clientFor(emu).client,
      dataDir: join(dir, host),
      sync: { lookbackDays: 14, floor: null, concurrency: 2, windowDays: 31 },
      expiryWarningDays: 14,
      logger: silentLogger,
      payments: () => {
        paymentPasses.push(host);
        return Promise.resolve(PASS);
      },
      now: () => emu.now().toJSDate(),
    };
    const jobs = buildJobs(ctx, { sync: '0 2 * * *', expiryCheck: '0 8 * * *', metaRefresh: '0 6 * * 1' });
    return jobs.find((j) => j.name === NIGHTLY_SYNC)!;
  }

  it('two schedule hosts firing at 02:00 share one run: both jobs end ok with its id, both run their payments pass', async () => {
    for (const id of emu.consentIds) await stores[0]!.consents.add(id as ConsentId);
    const passes: string[] = [];
    const firedFor = new Date('2026-01-09T13:00:00.000Z'); // 02:00 NZDT
    const [a, b] = await Promise.all(
      ['host-a', 'host-b'].map((host, i) =>
        nightlyOf(stores[i]!, host, passes).run(new AbortController().signal, firedFor),
      ),
    );
    expect([a!.outcome, b!.outcome]).toEqual(['ok', 'ok']);
    expect(a!.runId).not.toBeNull();
    expect(b!.runId).toBe(a!.runId);
    expect(passes.sort()).toEqual(['host-a', 'host-b']);
    expect(await queryRows(stores[0]!, 'SELECT run_id, job, scheduled_for FROM job_runs')).toEqual([
      { run_id: a!.runId, job: NIGHTLY_SYNC, scheduled_for: firedFor.toISOString() },
    ]);
  });
});
