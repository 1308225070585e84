/**
 * The nightly sync job's outcome: a run whose payments pass could not read some payments is
 * partial, never ok (as `bankdata sync` exits 1 for it).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NIGHTLY_SYNC, buildJobs, type JobContext } from '../../src/jobs';
import type { StartedEmulator } from '@bankdata/emulator';
import { silentLogger } from '../../src/log';
import type { PaymentsPassResult } from '../../src/payments/sync-pass';
import { openStore, type SqliteStore } from '../../src/store';
import { clientFor, startTestEmulator } from '../api/emulator-helpers';

let emu: StartedEmulator;
let store: SqliteStore;
let dir: string;

beforeEach(async () => {
  emu = await startTestEmulator();
  dir = mkdtempSync(join(tmpdir(), 'bankdata-nightly-'));
  store = await openStore(join(dir, 'bankdata.sqlite'));
});
afterEach(async () => {
  await store.close();
  await emu.close();
  rmSync(dir, { recursive: true, force: true });
});

function nightly(payments: PaymentsPassResult) {
  const ctx: JobContext = {
    store,
    client: clientFor(emu).client,
    dataDir: dir,
    sync: { lookbackDays: 14, floor: null, concurrency: 2, windowDays: 31 },
    expiryWarningDays: 14,
    logger: silentLogger,
    payments: () => Promise.resolve(payments),
    now: () => emu.now().toJSDate(),
  };
  const jobs = buildJobs(ctx, { sync: '0 2 * * *', expiryCheck: '0 7 * * *', metaRefresh: '0 5 * * 0' });
  return jobs.find((j) => j.name === NIGHTLY_SYNC)!;
}

const PASS: PaymentsPassResult = {
  tracked: 2,
  open: 0,
  failures: [],
  unmatched: 0,
  ambiguous: 0,
  authenticationError: null,
};

describe('nightly sync job', () => {
  it('a clean sync with every payment read is ok', async () => {
    const report = await nightly(PASS).run(new AbortController().signal, new Date());
    expect(report.outcome).toBe('ok');
  });

  it('payments that could not be read make the job partial, not ok with failures inside', async () => {
    const failing = { ...PASS, failures: [{ paymentId: 'pay-1', reason: 'BP102: payment does not exist' }] };
    const report = await nightly(failing).run(new AbortController().signal, new Date());
    expect(report.outcome).toBe('partial');
    expect(report.details?.payments).toEqual(failing);
  });
});
