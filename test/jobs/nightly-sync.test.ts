/**
 * The nightly sync job's outcome: a run whose payments pass could not read some payments is
 * partial, never ok (as `bankdata sync` exits 1 for it). The job decides the rows' categories at
 * its end, as `bankdata sync` does (docs/categories.md "When rows are decided"), and a rules file
 * it cannot read makes it partial (as it makes `bankdata sync` exit 2). A run it cannot tag with its
 * job keeps its outcome and its payments pass; a run that fails by throwing is tagged all the same.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NIGHTLY_SYNC, buildJobs, type JobContext } from '../../src/jobs';
import type { StartedEmulator } from '@bankdata/emulator';
import type { ConsentId } from '@bankdata/core/schemas';
import { createLogger, silentLogger } from '../../src/log';
import type { PaymentsPassResult } from '../../src/payments/sync-pass';
import { openStore, type SqliteStore } from '../../src/store';
import { readStatus } from '../../src/cli/status';
import { clientFor, startTestEmulator } from '../api/emulator-helpers';
import { untaggableStore } from './untaggable-store';

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

function nightly(payments: PaymentsPassResult, categoriesRulesFile?: string, over: Partial<JobContext> = {}) {
  const ctx: JobContext = {
    ...(categoriesRulesFile !== undefined ? { categoriesRulesFile } : {}),
    store,
    client: clientFor(emu).client,
    dataDir: dir,
    sync: { lookbackDays: 14, floor: null, concurrency: 2, windowDays: 31 },
    expiryWarningDays: 14,
    logger: silentLogger,
    payments: () => Promise.resolve(payments),
    now: () => emu.now().toJSDate(),
    ...over,
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

/** The consents registered, the rules file written, one nightly run. */
async function nightlyWithRules(yaml: string) {
  for (const id of emu.consentIds) await store.consents.add(id as ConsentId);
  const rules = join(dir, 'categories.yaml');
  writeFileSync(rules, yaml);
  return nightly(PASS, rules).run(new AbortController().signal, new Date());
}

/** Transactions stored, and decisions stored. */
function counts(): { n: number; decided: number } {
  return store.sqlite
    .prepare(
      'SELECT (SELECT count(*) FROM transactions) AS n, (SELECT count(*) FROM transaction_categories) AS decided',
    )
    .get() as { n: number; decided: number };
}

/** The emulator's consents registered, as a set-up does before the first night. */
async function registered(): Promise<void> {
  for (const id of emu.consentIds) await store.consents.add(id as ConsentId);
}

describe('nightly sync job', () => {
  it('a clean sync with every payment read is ok', async () => {
    await registered();
    const report = await nightly(PASS).run(new AbortController().signal, new Date());
    expect(report.outcome).toBe('ok');
  });

  it('with no consent registered: a failed run that says so, as `bankdata sync` exits 2, and nothing sent', async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'warn', sink: (line) => lines.push(line) });
    const before = emu.requests().length;
    const report = await nightly(PASS, undefined, { logger }).run(new AbortController().signal, new Date());
    expect(report.outcome).toBe('failed');
    expect(report.details?.payments).toBeUndefined();
    expect(emu.requests().length).toBe(before);
    const runs = store.sqlite.prepare('SELECT run_id, outcome, consents, error_summary FROM v_runs').all();
    expect(runs).toEqual([
      {
        run_id: report.runId,
        outcome: 'failed',
        consents: 0,
        error_summary: 'no consent is registered: there is nothing to sync',
      },
    ]);
    expect(store.sqlite.prepare('SELECT run_id, job FROM job_runs').all()).toEqual([
      { run_id: report.runId, job: NIGHTLY_SYNC },
    ]);
    expect(lines.map((l) => JSON.parse(l) as Record<string, unknown>)).toEqual([
      expect.objectContaining({ level: 'error', msg: 'no consent is registered: there is nothing to sync' }),
    ]);
  });

  it('a run it cannot tag with its job (job_runs busy) keeps its outcome and its payments pass; the failure is a warning', async () => {
    await registered();
    const lines: string[] = [];
    const logger = createLogger({ level: 'warn', sink: (line) => lines.push(line) });
    const report = await nightly(PASS, undefined, { store: untaggableStore(store), logger }).run(
      new AbortController().signal,
      new Date(),
    );
    expect(report.outcome).toBe('ok');
    expect(report.details?.payments).toEqual(PASS);
    expect(store.sqlite.prepare('SELECT outcome FROM runs').all()).toEqual([{ outcome: 'ok' }]);
    expect(lines.map((l) => JSON.parse(l) as Record<string, unknown>)).toEqual([
      expect.objectContaining({
        level: 'warn',
        msg: 'the run was not tagged with its job',
        run_id: report.runId,
        error: 'SQLITE_BUSY: database is locked',
      }),
    ]);
  });

  it('a run that fails by throwing (runSync recorded it failed) is still tagged nightly-sync, with its slot', async () => {
    await registered();
    // A file where the statements directory goes: the run fails, as `bankdata sync` exits 7 for it.
    writeFileSync(join(dir, 'statements'), 'not a directory');
    const slot = new Date('2025-06-01T14:00:00.000Z');
    await expect(nightly(PASS).run(new AbortController().signal, slot)).rejects.toThrow();
    const runs = store.sqlite.prepare('SELECT run_id, outcome FROM v_runs').all() as { run_id: string }[];
    expect(runs).toEqual([{ run_id: expect.any(String), outcome: 'failed' }]);
    // Before, the tag was written only once runSync returned: status showed a command-line sync.
    expect(store.sqlite.prepare('SELECT run_id, job, scheduled_for FROM job_runs').all()).toEqual([
      { run_id: runs[0]!.run_id, job: NIGHTLY_SYNC, scheduled_for: slot.toISOString() },
    ]);
    expect((await readStatus(store, 14)).runs.map((r) => [r.job, r.outcome])).toEqual([[NIGHTLY_SYNC, 'failed']]);
  });

  it('payments that could not be read make the job partial, not ok with failures inside', async () => {
    await registered();
    const failing = { ...PASS, failures: [{ paymentId: 'pay-1', reason: 'BP102: payment does not exist' }] };
    const report = await nightly(failing).run(new AbortController().signal, new Date());
    expect(report.outcome).toBe('partial');
    expect(report.details?.payments).toEqual(failing);
  });

  it('decides every stored row with the rules file, as `bankdata sync` does', async () => {
    const report = await nightlyWithRules('rules: []\n');
    expect(report.outcome).toBe('ok');
    const rows = counts();
    expect(rows.n).toBeGreaterThan(0);
    expect(rows.decided).toBe(rows.n);
    expect(report.details?.categories_decided).toBe(rows.n);
  });

  it('a rules file it cannot read stores the data, decides nothing, and makes the job partial', async () => {
    const report = await nightlyWithRules('rules:\n  - category: 7\n');
    expect(report.outcome).toBe('partial');
    expect(String(report.details?.categories_error)).toMatch(/categories rules file/);
    const rows = counts();
    expect(rows.n).toBeGreaterThan(0);
    expect(rows.decided).toBe(0);
  });
});
