/**
 * The consent-expiry check against the emulator: Authorised consents whose expiration_date_time
 * is within expiryWarningDays whole NZ days are warned about; ended ones (a code such as BDT101
 * answered to the live read among them, not a read that failed) are listed for re-consent; the
 * run is recorded in v_runs and job_runs, and finished as failed when it cannot be tagged with its
 * job (every job of runRecorded).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EXPIRY_CHECK, META_REFRESH, buildJobs, checkConsentExpiry, type JobContext } from '../../src/jobs';
import type { StartedEmulator } from '@bankdata/emulator';
import type { ConsentId } from '@bankdata/core/schemas';
import { silentLogger } from '../../src/log';
import { openStore, type SqliteStore } from '../../src/store';
import { authorisedConsent, clientFor, consentBody, control, startTestEmulator } from '../api/emulator-helpers';
import { readStatus } from '../../src/cli/status';

let emu: StartedEmulator;
let store: SqliteStore;
let dir: string;

beforeEach(async () => {
  // No account data is read here: a world of 30 days of history (not 450) is generated in a fraction of the time.
  emu = await startTestEmulator({ historyDays: 30 });
  dir = mkdtempSync(join(tmpdir(), 'bankdata-expiry-'));
  store = await openStore(join(dir, 'bankdata.sqlite'));
});
afterEach(async () => {
  await store.close();
  await emu.close();
  rmSync(dir, { recursive: true, force: true });
});

function jobContext(): JobContext {
  return {
    store,
    client: clientFor(emu).client,
    dataDir: dir,
    sync: { lookbackDays: 14, floor: null, concurrency: 2, windowDays: 31 },
    expiryWarningDays: 14,
    logger: silentLogger,
    // The emulator's data clock: "today" is the bank's today.
    now: () => emu.now().toJSDate(),
  };
}

describe('consent-expiry check (warns expiryWarningDays before expiration_date_time)', () => {
  it('lists Authorised consents expiring within 14 NZ days, not those further out, and ended ones for re-consent', async () => {
    const ctx = jobContext();
    const soon = await authorisedConsent(emu, ctx.client, { expiration: emu.now().plus({ days: 10 }) });
    const edge = await authorisedConsent(emu, ctx.client, { expiration: emu.now().plus({ days: 14 }) });
    const later = await authorisedConsent(emu, ctx.client, { expiration: emu.now().plus({ days: 20 }) });
    const { consent_id: rejected } = await ctx.client.createConsent(consentBody(emu));
    await control(emu, 'POST', `consents/${rejected}/reject`);
    for (const id of [soon, edge, later, rejected]) await store.consents.add(id);

    const result = await checkConsentExpiry(ctx);
    expect(result.expiring.map((c) => [c.consent_id, c.days_to_expiry])).toEqual([
      [soon, 10],
      [edge, 14],
    ]);
    expect(result.ended).toEqual([{ consent_id: rejected, bank: 'PNZ', reason: 'Rejected' }]);
    expect(result.unread).toEqual([]);
  });

  it('an Authorised consent past its expiration whose live read failed is ended (expired), never expiring with negative days', async () => {
    const ctx = jobContext();
    const past = await authorisedConsent(emu, ctx.client, { expiration: emu.now().plus({ days: 10 }) });
    const soon = await authorisedConsent(emu, ctx.client, { expiration: emu.now().plus({ days: 20 }) });
    for (const id of [past, soon]) await store.consents.add(id);
    expect((await checkConsentExpiry(ctx)).expiring.map((c) => c.consent_id)).toEqual([past]);
    // Twelve days on, with the bank out of reach: both statuses stay the stored Authorised.
    const gone = await startTestEmulator({ historyDays: 30 });
    await gone.close();
    const later = emu.now().plus({ days: 12 }).toJSDate();
    const result = await checkConsentExpiry({ ...ctx, client: clientFor(gone).client, now: () => later });
    expect(result.unread.sort()).toEqual([past, soon].sort());
    expect(result.ended).toEqual([{ consent_id: past, bank: 'PNZ', reason: 'expired' }]);
    expect(result.expiring.map((c) => [c.consent_id, c.days_to_expiry])).toEqual([[soon, 8]]);
  });

  it('a consent the bank answers BDT101 for is ended (BDT101), not a live read that failed: the run stays ok', async () => {
    const ctx = jobContext();
    const soon = await authorisedConsent(emu, ctx.client, { expiration: emu.now().plus({ days: 3 }) });
    const gone = randomUUID() as ConsentId; // the bank does not know it
    for (const id of [soon, gone]) await store.consents.add(id);
    const job = buildJobs(ctx, { sync: '0 2 * * *', expiryCheck: '0 8 * * *', metaRefresh: '0 6 * * 1' }).find(
      (j) => j.name === EXPIRY_CHECK,
    )!;
    const report = await job.run(new AbortController().signal, new Date('2025-06-02T20:00:00Z'));
    expect(report.details?.ended).toEqual([{ consent_id: gone, bank: null, reason: 'BDT101' }]);
    // Before, it was also counted unread: the run partial, "status not read live", and run.partial raised.
    expect({ outcome: report.outcome, unread: report.details?.unread }).toEqual({ outcome: 'ok', unread: [] });
    expect(store.sqlite.prepare('SELECT outcome, failed_units, error_summary FROM v_runs').all()).toEqual([
      { outcome: 'ok', failed_units: 0, error_summary: null },
    ]);
    expect((await store.consents.get(gone))?.endedReason).toBe('BDT101');
  });

  it('the job run is recorded in v_runs and job_runs with the consents needing re-consent in its line', async () => {
    const ctx = jobContext();
    const soon = await authorisedConsent(emu, ctx.client, { expiration: emu.now().plus({ days: 3 }) });
    await store.consents.add(soon);
    const job = buildJobs(ctx, { sync: '0 2 * * *', expiryCheck: '0 8 * * *', metaRefresh: '0 6 * * 1' }).find(
      (j) => j.name === EXPIRY_CHECK,
    )!;
    const report = await job.run(new AbortController().signal, new Date('2025-06-02T20:00:00Z'));
    expect(report).toMatchObject({ outcome: 'ok', details: { needs_reconsent: [soon] } });
    const runs = store.sqlite.prepare('SELECT run_id, outcome, consents, requests, finished_at FROM v_runs').all();
    expect(runs).toEqual([
      {
        run_id: report.runId,
        outcome: 'ok',
        consents: 1,
        requests: expect.any(Number),
        finished_at: expect.any(String),
      },
    ]);
    expect(store.sqlite.prepare('SELECT job, scheduled_for FROM job_runs').all()).toEqual([
      { job: EXPIRY_CHECK, scheduled_for: '2025-06-02T20:00:00.000Z' },
    ]);
  });

  it('a job whose work fails is recorded as a failed run with the reason, and the error goes on to the scheduler', async () => {
    const ctx = jobContext();
    const jobs = buildJobs(ctx, { sync: '0 2 * * *', expiryCheck: '0 8 * * *', metaRefresh: '0 6 * * 1' });
    const refresh = jobs.find((j) => j.name === META_REFRESH)!;
    const ok = await refresh.run(new AbortController().signal, new Date('2025-06-02T18:00:00Z'));
    expect(ok).toMatchObject({ outcome: 'ok', details: { banks: ['PNZ'] } });
    // A service that has gone away: every request is refused (retries are instant here).
    const gone = await startTestEmulator();
    const failing = { ...ctx, client: clientFor(gone).client };
    await gone.close();
    const failed = buildJobs(failing, { sync: '0 2 * * *', expiryCheck: '0 8 * * *', metaRefresh: '0 6 * * 1' }).find(
      (j) => j.name === META_REFRESH,
    )!;
    await expect(failed.run(new AbortController().signal, new Date('2025-06-09T18:00:00Z'))).rejects.toThrow();
    const runs = store.sqlite.prepare('SELECT outcome, error_summary FROM v_runs ORDER BY started_at').all() as {
      outcome: string;
      error_summary: string | null;
    }[];
    expect(runs.map((r) => r.outcome)).toEqual(['ok', 'failed']);
    expect(runs[1]!.error_summary).toMatch(/\S/);
  });
});

describe('a job run whose job cannot be tagged (job_runs refuses the row)', () => {
  it.each([EXPIRY_CHECK, META_REFRESH])(
    '%s: nothing is recorded, so nothing passes for a failed sync (status, the report, alerts)',
    async (name) => {
      // The tag's insert fails inside the run's own transaction, as a busy or lost database makes it.
      store.sqlite.exec(
        "CREATE TEMP TRIGGER refuse_job_runs BEFORE INSERT ON job_runs BEGIN SELECT RAISE(ABORT, 'database is locked'); END",
      );
      const job = buildJobs(jobContext(), {
        sync: '0 2 * * *',
        expiryCheck: '0 8 * * *',
        metaRefresh: '0 6 * * 1',
      }).find((j) => j.name === name)!;
      await expect(job.run(new AbortController().signal, new Date('2025-06-02T20:00:00Z'))).rejects.toThrow(
        /database is locked/,
      );
      // Before, the run was written, then the tag failed: a failed run with no job, which status
      // showed as `sync failed`, the report as its last sync and alerts as run:sync failed.
      expect(store.sqlite.prepare('SELECT count(*) AS n FROM runs').get()).toEqual({ n: 0 });
      expect(store.sqlite.prepare('SELECT count(*) AS n FROM job_runs').get()).toEqual({ n: 0 });
      expect((await readStatus(store, 14)).runs).toEqual([]);
      expect(await store.reports.latestRuns(5, { syncOnly: true })).toEqual([]);
    },
  );
});

describe('a job run still at work, as status sees it', () => {
  it('a meta refresh at work while no sync holds the lease is running; one whose process is gone is interrupted', async () => {
    // The bank slow to answer the meta: the refresh is at work, in this live process.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inMeta = new Promise<void>((resolve) => (entered = resolve));
    const { client } = clientFor(emu);
    const slow = new Proxy(client, {
      get(target, key, receiver) {
        if (key === 'getMeta')
          return async () => {
            entered();
            await gate;
            return target.getMeta();
          };
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    const job = buildJobs(
      { ...jobContext(), client: slow },
      { sync: '0 2 * * *', expiryCheck: '0 8 * * *', metaRefresh: '0 6 * * 1' },
    ).find((j) => j.name === META_REFRESH)!;
    const running = job.run(new AbortController().signal, new Date('2025-06-09T18:00:00Z'));
    await inMeta;
    const during = (await readStatus(store, 14)).runs;
    // Its process killed (a pid no process has): the same run is interrupted.
    store.sqlite.prepare('UPDATE job_runs SET holder_pid = ?').run(2 ** 30);
    const killed = (await readStatus(store, 14)).runs;
    release();
    await running;
    expect(during.map((r) => [r.job, r.outcome])).toEqual([[META_REFRESH, null]]);
    expect(killed.map((r) => [r.job, r.outcome])).toEqual([[META_REFRESH, 'interrupted']]);
  });
});
