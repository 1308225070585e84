/**
 * The cooperating workers' queries against a real PostgreSQL server: one run opened and joined,
 * each consent leased by one worker at a time, an expired lease taken over, the run closed with
 * the sum of the workers' reports, and one shared pacing budget.
 */
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { ConsentId } from '@bankdata/core/schemas';
import { DEFAULT_LEASE_TTL_MS } from '../../../src/store/lease';
import { readJournal } from '../../../src/store/migration-versions';
import { createPool, migratePostgres, PG_MIGRATIONS_DIR } from '../../../src/store/pg/open';
import {
  abandonWorker,
  finishConsent,
  leaseNextConsent,
  leaveRun,
  openOrJoinRun,
  releaseConsent,
  renewWorkerLeases,
  reserveRequestSlot,
  reserveRequestSlotAt,
  type WorkerReport,
} from '../../../src/store/pg/work-queue';
import { runCliInProcess, waitFor } from '../../cli/cli-process';
import { createOlderTestDatabase, createTestDatabase, describePostgres, lockWaiters } from '../../support/postgres';

const NOW = new Date('2025-03-05T00:00:00.000Z');
const TTL = 60_000;
/** A lease the test lets lapse: longer than two queries take on a loaded machine. */
const SHORT_TTL = 1_000;
/** A worker running with a long sync.leaseTtlMs (10 minutes). */
const LONG_TTL = 600_000;
/** What `status` needs to load its configuration (it sends nothing). */
const STATUS_ENV = {
  BANKDATA_DATA_BASE_URL: 'http://127.0.0.1:1',
  BANKDATA_CLIENT_ID: 'client',
  BANKDATA_CLIENT_SECRET: 'worker-terms-test-secret-9c2d',
};
/** The server's clock (what a lease's expiry is judged on), epoch ms. */
const serverMs = async (p: pg.Pool): Promise<number> =>
  Number((await p.query<{ ms: string }>('SELECT extract(epoch FROM clock_timestamp()) * 1000 AS ms')).rows[0]!.ms);
const CONSENTS = Array.from({ length: 40 }, (_, i) => `consent-${String(i).padStart(3, '0')}` as ConsentId);
const worker = (n: number) => ({ workerId: `w${n}`, host: 'test-host', pid: 1000 + n });
const report = (over: Partial<WorkerReport> = {}): WorkerReport => ({
  consents: 0,
  requests: 0,
  rowsWritten: 0,
  failedUnits: 0,
  outcome: 'ok',
  errorSummary: null,
  ...over,
});

describePostgres('cooperating workers: the work queue', () => {
  let url: string;
  const pools: pg.Pool[] = [];
  const pool = () => {
    const p = createPool(url, { max: 2 });
    pools.push(p);
    return p;
  };
  beforeEach(async () => {
    url = await createTestDatabase();
  });
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((p) => p.end()));
  });

  const open = (p: pg.Pool, n: number, consentIds = CONSENTS) =>
    openOrJoinRun(p, { worker: worker(n), consentIds, runId: randomUUID(), now: NOW, leaseTtlMs: TTL });

  it('opens one run for the first worker; workers that start while it is open join it', async () => {
    const results = await Promise.all([1, 2, 3, 4].map((n) => open(pool(), n)));
    expect(new Set(results.map((r) => r.runId)).size).toBe(1);
    expect(results.filter((r) => r.opened)).toHaveLength(1);
    const p = pool();
    const { rows } = await p.query(`SELECT count(*) AS n FROM run_consents WHERE run_id = $1 AND state = 'queued'`, [
      results[0]!.runId,
    ]);
    expect(rows[0].n).toBe(CONSENTS.length);
    const { rows: workers } = await p.query(`SELECT worker_id FROM run_workers ORDER BY worker_id`);
    expect(workers.map((w) => w.worker_id)).toEqual(['w1', 'w2', 'w3', 'w4']);
  });

  it('leases each consent to exactly one of four concurrent workers (FOR UPDATE SKIP LOCKED)', async () => {
    const { runId } = await open(pool(), 1);
    const taken = new Map<string, string[]>();
    await Promise.all(
      [1, 2, 3, 4].map(async (n) => {
        const p = pool();
        await open(p, n);
        for (;;) {
          const leased = await leaseNextConsent(p, { runId, workerId: `w${n}`, leaseTtlMs: TTL, now: NOW });
          if (!leased) break;
          expect(leased.attempts).toBe(1);
          taken.set(leased.consentId, [...(taken.get(leased.consentId) ?? []), `w${n}`]);
          expect(
            await finishConsent(p, { runId, workerId: `w${n}`, consentId: leased.consentId, outcome: 'ok', now: NOW }),
          ).toBe(true);
        }
      }),
    );
    expect([...taken.keys()].sort()).toEqual([...CONSENTS]);
    expect([...taken.values()].every((by) => by.length === 1)).toBe(true);
    // More than one worker did some of the work.
    expect(new Set([...taken.values()].flat()).size).toBeGreaterThan(1);
  });

  it("takes over a dead worker's consent once its lease has expired, and not before", async () => {
    const a = pool();
    const b = pool();
    const { runId } = await open(a, 1, CONSENTS.slice(0, 1));
    await open(b, 2, CONSENTS.slice(0, 1));
    // A lease of TTL: w2's next query comes before it lapses, however loaded the machine.
    const first = await leaseNextConsent(a, { runId, workerId: 'w1', leaseTtlMs: TTL, now: NOW });
    expect(first).toEqual({ consentId: CONSENTS[0], attempts: 1, tookOverFrom: null });
    expect(await leaseNextConsent(b, { runId, workerId: 'w2', leaseTtlMs: TTL, now: NOW })).toBeNull();
    // w1's last renewal before it dies is a short one, then it stops renewing (killed).
    expect(await renewWorkerLeases(a, { runId, workerId: 'w1', leaseTtlMs: SHORT_TTL })).toEqual([CONSENTS[0]]);
    // The lapse is the subject, on the server's clock (clock_timestamp(),
    // which no test can drive): poll until it passes the expiry and w2 takes the consent over.
    const second = await waitFor(() =>
      leaseNextConsent(b, { runId, workerId: 'w2', leaseTtlMs: TTL, now: NOW }).then((l) => l ?? undefined),
    );
    expect(second).toEqual({ consentId: CONSENTS[0], attempts: 2, tookOverFrom: 'w1' });
    // The old holder learns it lost the consent: renewal no longer lists it, finishing is refused.
    expect(await renewWorkerLeases(a, { runId, workerId: 'w1', leaseTtlMs: TTL })).toEqual([]);
    expect(await finishConsent(a, { runId, workerId: 'w1', consentId: CONSENTS[0]!, outcome: 'ok', now: NOW })).toBe(
      false,
    );
    expect(await finishConsent(b, { runId, workerId: 'w2', consentId: CONSENTS[0]!, outcome: 'ok', now: NOW })).toBe(
      true,
    );
  });

  it('judges a worker by its own lease time: one renewing with a 10-minute lease is neither taken over by a worker joining with a 1-second lease nor shown interrupted by a status read with one', async () => {
    const a = pool();
    const b = pool();
    const { runId } = await openOrJoinRun(a, {
      worker: worker(1),
      consentIds: CONSENTS.slice(0, 2),
      runId: randomUUID(),
      now: NOW,
      leaseTtlMs: LONG_TTL,
    });
    const held = await leaseNextConsent(a, { runId, workerId: 'w1', leaseTtlMs: LONG_TTL, now: NOW });
    expect(await renewWorkerLeases(a, { runId, workerId: 'w1', leaseTtlMs: LONG_TTL })).toEqual([held!.consentId]);
    const renewedAt = await serverMs(a);
    // The 1 s of the short lease passes on the server's clock; w1's own 10 minutes do not.
    await waitFor(async () => (await serverMs(b)) > renewedAt + SHORT_TTL + 100);

    // status with sync.leaseTtlMs 1 s (w1's host is not this one: only its term can say it is gone).
    const dir = mkdtempSync(join(tmpdir(), 'bankdata-worker-terms-'));
    chmodSync(dir, 0o700);
    const shown = await runCliInProcess(['--db', url, '--data-dir', dir, 'status', '--json'], {
      cwd: dir,
      env: { ...STATUS_ENV, BANKDATA_LEASE_TTL_MS: String(SHORT_TTL), BANKDATA_LEASE_RENEW_MS: '500' },
    });
    expect(shown.code, shown.stderr).toBe(0);
    const { runs } = JSON.parse(shown.stdout) as { runs: { run_id: string; outcome: string | null }[] };
    expect(runs.map((r) => [r.run_id, r.outcome])).toEqual([[runId, null]]);

    // A worker joining with a 1 s lease joins the run and leaves w1 and its consent alone.
    const joined = await openOrJoinRun(b, {
      worker: worker(2),
      consentIds: CONSENTS.slice(0, 2),
      runId: randomUUID(),
      now: NOW,
      leaseTtlMs: SHORT_TTL,
    });
    expect(joined).toEqual({ runId, opened: false });
    const { rows } = await b.query(
      'SELECT worker_id, left_at, outcome FROM run_workers WHERE run_id = $1 ORDER BY worker_id',
      [runId],
    );
    expect(rows).toEqual([
      { worker_id: 'w1', left_at: null, outcome: null },
      { worker_id: 'w2', left_at: null, outcome: null },
    ]);
    expect(await renewWorkerLeases(a, { runId, workerId: 'w1', leaseTtlMs: LONG_TTL })).toEqual([held!.consentId]);
  });

  it('migration 0007 keeps every worker row, its term its last renewal plus the default lease time', async () => {
    // The database as it was before migration 0007 (later migrations are applied with it).
    const older = await createOlderTestDatabase(
      readJournal(PG_MIGRATIONS_DIR).findIndex((m) => m.tag === '0007_worker_terms'),
    );
    const p = createPool(older, { max: 1 });
    pools.push(p);
    await p.query(`INSERT INTO runs (run_id, started_at) VALUES ('r1', '2025-03-05T00:00:00.000Z')`);
    await p.query(
      `INSERT INTO run_workers (run_id, worker_id, host, pid, joined_at, last_seen_at)
       VALUES ('r1', 'w1', 'h', 1, '2025-03-05T00:00:00.000Z', '2025-03-05T00:00:10Z')`,
    );
    await migratePostgres(p);
    const { rows } = await p.query<{ worker_id: string; term_ms: string }>(
      `SELECT worker_id, (extract(epoch FROM expires_at - last_seen_at) * 1000)::text AS term_ms FROM run_workers`,
    );
    expect(rows.map((r) => [r.worker_id, Number(r.term_ms)])).toEqual([['w1', DEFAULT_LEASE_TTL_MS]]);
  });

  it('a worker stopping hard while a joining worker takes it over (its term lapsed): both settle, no deadlock', async () => {
    const a = pool();
    const b = pool();
    const observer = pool();
    const holder = await pool().connect();
    try {
      const consentIds = CONSENTS.slice(0, 2);
      const { runId } = await open(a, 1, consentIds);
      for (let i = 0; i < 2; i++) await leaseNextConsent(a, { runId, workerId: 'w1', leaseTtlMs: TTL, now: NOW });
      // w1 stalled: its term lapsed, so a joining worker takes it over as it stops hard.
      await a.query(
        `UPDATE run_workers SET expires_at = clock_timestamp() - interval '1 minute' WHERE worker_id = 'w1'`,
      );
      // Lock-step: a third transaction holds w1's second consent, so each of the two stops at it
      // holding what it wrote before it.
      await holder.query('BEGIN');
      await holder.query(`SELECT 1 FROM run_consents WHERE run_id = $1 AND consent_id = $2 FOR UPDATE`, [
        runId,
        consentIds[1],
      ]);
      const abandoning = abandonWorker(a, { runId, workerId: 'w1', now: NOW });
      expect(await waitFor(async () => ((await lockWaiters(observer)) >= 1 ? true : undefined))).toBe(true);
      const joining = openOrJoinRun(b, {
        worker: worker(2),
        consentIds,
        runId: randomUUID(),
        now: NOW,
        leaseTtlMs: TTL,
      });
      expect(await waitFor(async () => ((await lockWaiters(observer)) >= 2 ? true : undefined))).toBe(true);
      await holder.query('COMMIT');
      const settled = await Promise.allSettled([abandoning, joining]);
      expect(settled.map((s) => (s.status === 'rejected' ? String(s.reason) : 'ok'))).toEqual(['ok', 'ok']);
      const { rows } = await b.query(
        `SELECT state, worker_id FROM run_consents WHERE run_id = $1 ORDER BY consent_id`,
        [runId],
      );
      expect(rows).toEqual([
        { state: 'queued', worker_id: null },
        { state: 'queued', worker_id: null },
      ]);
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      holder.release();
    }
  });

  it('keeps a renewed lease past its first expiry; a released consent is taken at once', async () => {
    const a = pool();
    const b = pool();
    const { runId } = await open(a, 1, CONSENTS.slice(0, 2));
    await open(b, 2, CONSENTS.slice(0, 2));
    const held = await leaseNextConsent(a, { runId, workerId: 'w1', leaseTtlMs: SHORT_TTL, now: NOW });
    // The first expiry is at most SHORT_TTL after the server's clock now (the lease was taken before).
    const firstExpiryBound = (await serverMs(a)) + SHORT_TTL;
    expect(await renewWorkerLeases(a, { runId, workerId: 'w1', leaseTtlMs: TTL })).toEqual([held!.consentId]);
    // Past the first expiry on the server's clock (the subject; no test can drive clock_timestamp()).
    await waitFor(async () => (await serverMs(b)) > firstExpiryBound);
    const other = await leaseNextConsent(b, { runId, workerId: 'w2', leaseTtlMs: TTL, now: NOW });
    expect(other!.consentId).not.toBe(held!.consentId);
    expect(await leaseNextConsent(b, { runId, workerId: 'w2', leaseTtlMs: TTL, now: NOW })).toBeNull();
    await releaseConsent(a, { runId, workerId: 'w1', consentId: held!.consentId });
    expect(await leaseNextConsent(b, { runId, workerId: 'w2', leaseTtlMs: TTL, now: NOW })).toEqual({
      consentId: held!.consentId,
      attempts: 2,
      tookOverFrom: null,
    });
  });

  it('closes the run when its consents are done, with the sum of the workers in v_runs', async () => {
    const a = pool();
    const b = pool();
    const { runId } = await open(a, 1, CONSENTS.slice(0, 3));
    await open(b, 2, CONSENTS.slice(0, 3));
    const later = new Date(NOW.getTime() + 5000);
    for (const [p, w] of [
      [a, 'w1'],
      [b, 'w2'],
      [a, 'w1'],
    ] as const) {
      const leased = await leaseNextConsent(p, { runId, workerId: w, leaseTtlMs: TTL, now: NOW });
      await finishConsent(p, { runId, workerId: w, consentId: leased!.consentId, outcome: 'ok', now: later });
    }
    // w1 leaves first: w2 is still in the run, so it stays open until w2 reports too.
    expect(
      await leaveRun(a, {
        runId,
        workerId: 'w1',
        report: report({ consents: 2, requests: 30, rowsWritten: 100 }),
        now: later,
        leaseTtlMs: TTL,
      }),
    ).toBe(false);
    expect(
      await leaveRun(b, {
        runId,
        workerId: 'w2',
        report: report({
          consents: 1,
          requests: 12,
          rowsWritten: 7,
          failedUnits: 1,
          outcome: 'partial',
          errorSummary: 'c x: boom',
        }),
        now: later,
        leaseTtlMs: TTL,
      }),
    ).toBe(true);
    const { rows } = await a.query(`SELECT * FROM v_runs WHERE run_id = $1`, [runId]);
    expect(rows[0]).toEqual({
      run_id: runId,
      started_at: NOW.toISOString(),
      finished_at: later.toISOString(),
      outcome: 'partial',
      consents: 3,
      requests: 42,
      rows_written: 107,
      failed_units: 1,
      error_summary: 'c x: boom',
    });
    // The next worker opens a new run.
    expect((await open(pool(), 3)).opened).toBe(true);
  });

  it('closes the run when its last two workers leave at the same moment', async () => {
    for (let round = 0; round < 5; round++) {
      const ps = [pool(), pool(), pool(), pool()];
      const { runId } = await open(ps[0]!, 1, CONSENTS.slice(0, 4));
      await Promise.all(ps.slice(1).map((p, i) => open(p, i + 2, CONSENTS.slice(0, 4))));
      await Promise.all(
        ps.map(async (p, i) => {
          const leased = await leaseNextConsent(p, { runId, workerId: `w${i + 1}`, leaseTtlMs: TTL, now: NOW });
          await finishConsent(p, {
            runId,
            workerId: `w${i + 1}`,
            consentId: leased!.consentId,
            outcome: 'ok',
            now: NOW,
          });
          await leaveRun(p, {
            runId,
            workerId: `w${i + 1}`,
            report: report({ consents: 1 }),
            now: NOW,
            leaseTtlMs: TTL,
          });
        }),
      );
      const { rows } = await ps[0]!.query(`SELECT consents, finished_at FROM runs WHERE run_id = $1`, [runId]);
      expect(rows[0].finished_at, `round ${round}`).not.toBeNull();
      expect(rows[0].consents).toBe(4);
    }
  });

  it('closes a finished run whose last worker died without leaving, when the next pass starts', async () => {
    const a = pool();
    const { runId } = await open(a, 1, CONSENTS.slice(0, 1));
    const leased = await leaseNextConsent(a, { runId, workerId: 'w1', leaseTtlMs: TTL, now: NOW });
    await finishConsent(a, { runId, workerId: 'w1', consentId: leased!.consentId, outcome: 'ok', now: NOW });
    // w1 is killed here: it never leaves, and its term lapses (set on the server's clock rather
    // than waited out). The next pass closes that run and opens its own.
    await a.query(`UPDATE run_workers SET expires_at = clock_timestamp() - interval '1 second' WHERE worker_id = 'w1'`);
    const next = await open(pool(), 2);
    expect(next.opened).toBe(true);
    expect(next.runId).not.toBe(runId);
    const { rows } = await a.query(`SELECT outcome, consents, finished_at, error_summary FROM runs WHERE run_id = $1`, [
      runId,
    ]);
    // Its consent was done, but the worker never reported its requests and rows: partial, said so.
    expect(rows[0]).toMatchObject({ outcome: 'partial', consents: 1 });
    expect(rows[0].error_summary).toContain('stopped without reporting');
    expect(rows[0].finished_at).not.toBeNull();
  });

  it('leaves a finished run to its last worker while it lives (its closing steps): the next pass opens its own run and does not close it', async () => {
    const a = pool();
    const b = pool();
    const { runId: run1 } = await open(a, 1, CONSENTS.slice(0, 1));
    const leased = await leaseNextConsent(a, { runId: run1, workerId: 'w1', leaseTtlMs: TTL, now: NOW });
    await finishConsent(a, { runId: run1, workerId: 'w1', consentId: leased!.consentId, outcome: 'ok', now: NOW });
    // w1 is in its closing steps (the check, transfers, categories), renewing its term.
    expect(await renewWorkerLeases(a, { runId: run1, workerId: 'w1', leaseTtlMs: TTL })).toEqual([]);
    // A sync elsewhere (w2 on another host: its pid says nothing here) starts.
    const second = await openOrJoinRun(b, {
      worker: { workerId: 'w2', host: 'other-host', pid: 2002 },
      consentIds: CONSENTS.slice(0, 1),
      runId: randomUUID(),
      now: new Date(NOW.getTime() + 1000),
      leaseTtlMs: TTL,
    });
    expect(second.opened).toBe(true);
    expect(second.runId).not.toBe(run1);
    const { rows } = await a.query(`SELECT finished_at, outcome, error_summary FROM v_runs WHERE run_id = $1`, [run1]);
    expect(rows[0]).toEqual({ finished_at: null, outcome: null, error_summary: null });
    // w1 leaves: the run closes with its report, ok.
    const later = new Date(NOW.getTime() + 2000);
    expect(
      await leaveRun(a, { runId: run1, workerId: 'w1', report: report({ consents: 1 }), now: later, leaseTtlMs: TTL }),
    ).toBe(true);
    const { rows: closed } = await a.query(
      `SELECT finished_at, outcome, consents, error_summary FROM v_runs WHERE run_id = $1`,
      [run1],
    );
    expect(closed[0]).toEqual({ finished_at: later.toISOString(), outcome: 'ok', consents: 1, error_summary: null });
  });

  it('a worker judged gone and taken over leases and renews nothing more: the consent stays with the next run', async () => {
    const a = pool();
    const b = pool();
    const consentIds = CONSENTS.slice(0, 2);
    const { runId: run1 } = await openOrJoinRun(a, {
      worker: { workerId: 'w1', host: 'other-host', pid: 1001 },
      consentIds,
      runId: randomUUID(),
      now: NOW,
      leaseTtlMs: TTL,
    });
    const first = await leaseNextConsent(a, { runId: run1, workerId: 'w1', leaseTtlMs: TTL, now: NOW });
    expect(first!.consentId).toBe(consentIds[0]);
    // w1 paused past its term and its lease (set on the server's clock rather than waited out).
    await a.query(`UPDATE run_workers SET expires_at = clock_timestamp() - interval '1 second' WHERE worker_id = 'w1'`);
    await a.query(
      `UPDATE run_consents SET lease_expires_at = clock_timestamp() - interval '1 second' WHERE worker_id = 'w1'`,
    );
    // The next sync judges it gone, takes it over and opens its own run (run 1 has no live worker).
    const second = await openOrJoinRun(b, {
      worker: { workerId: 'w2', host: 'other-host', pid: 1002 },
      consentIds,
      runId: randomUUID(),
      now: NOW,
      leaseTtlMs: TTL,
    });
    expect(second.opened).toBe(true);
    const run2 = second.runId;
    const byB = await leaseNextConsent(b, { runId: run2, workerId: 'w2', leaseTtlMs: TTL, now: NOW });
    expect(byB!.consentId).toBe(consentIds[0]);
    // w1 wakes: finishing is refused, it leases nothing more in its run, and its renewal says it is gone.
    expect(
      await finishConsent(a, { runId: run1, workerId: 'w1', consentId: consentIds[0]!, outcome: 'ok', now: NOW }),
    ).toBe(false);
    const again = await leaseNextConsent(a, { runId: run1, workerId: 'w1', leaseTtlMs: TTL, now: NOW });
    const renewed = await renewWorkerLeases(a, { runId: run1, workerId: 'w1', leaseTtlMs: TTL });
    const { rows: leased } = await a.query(
      `SELECT run_id, consent_id, worker_id FROM run_consents WHERE state = 'leased' ORDER BY run_id = $1 DESC`,
      [run1],
    );
    const { rows: w1 } = await a.query(`SELECT left_at IS NOT NULL AS left, expires_at < clock_timestamp() AS lapsed
      FROM run_workers WHERE worker_id = 'w1'`);
    expect({ again, renewed, leased, w1 }).toEqual({
      again: null,
      renewed: 'gone',
      leased: [{ run_id: run2, consent_id: consentIds[0], worker_id: 'w2' }],
      w1: [{ left: true, lapsed: true }],
    });
  });

  it("counts the consents a run walked, not those queued and never reached (v_runs.consents, as SQLite's)", async () => {
    const a = pool();
    const b = pool();
    const { runId } = await open(a, 1, CONSENTS.slice(0, 3));
    // w1 does one consent, and w2 takes over a second from w1 (a lease w1 let lapse) and does it.
    const one = await leaseNextConsent(a, { runId, workerId: 'w1', leaseTtlMs: TTL, now: NOW });
    await finishConsent(a, { runId, workerId: 'w1', consentId: one!.consentId, outcome: 'ok', now: NOW });
    await open(b, 2, CONSENTS.slice(0, 3));
    const two = await leaseNextConsent(a, { runId, workerId: 'w1', leaseTtlMs: TTL, now: NOW });
    await a.query(
      `UPDATE run_consents SET lease_expires_at = clock_timestamp() - interval '1 second' WHERE consent_id = $1`,
      [two!.consentId],
    );
    const taken = await leaseNextConsent(b, { runId, workerId: 'w2', leaseTtlMs: TTL, now: NOW });
    expect(taken).toEqual({ consentId: two!.consentId, attempts: 2, tookOverFrom: 'w1' });
    await finishConsent(b, { runId, workerId: 'w2', consentId: two!.consentId, outcome: 'ok', now: NOW });
    // Both stop on a signal before the third: each reports what it walked (w1 counts the one it lost).
    const stopped = { outcome: 'partial' as const, errorSummary: 'interrupted: stopped after the unit in flight' };
    for (const [p, w, consents] of [
      [a, 'w1', 2],
      [b, 'w2', 1],
    ] as const) {
      await leaveRun(p, { runId, workerId: w, report: report({ consents, ...stopped }), now: NOW, leaseTtlMs: TTL });
    }
    const { rows } = await a.query(
      `SELECT consents, outcome, finished_at IS NOT NULL AS closed FROM v_runs WHERE run_id = $1`,
      [runId],
    );
    expect(rows[0]).toEqual({ consents: 2, outcome: 'partial', closed: true });
  });

  it('queues the consents a joining worker brings that the open run does not hold (sync --consent while a run is open)', async () => {
    const { runId } = await open(pool(), 1, CONSENTS.slice(0, 2));
    const joined = await open(pool(), 2, [CONSENTS[1]!, CONSENTS[3]!]);
    expect(joined).toEqual({ runId, opened: false });
    const { rows } = await pool().query(
      `SELECT consent_id, state FROM run_consents WHERE run_id = $1 ORDER BY consent_id`,
      [runId],
    );
    expect(rows).toEqual(
      [CONSENTS[0], CONSENTS[1], CONSENTS[3]].sort().map((consent_id) => ({ consent_id, state: 'queued' })),
    );
  });

  it('a consent that ended partial makes the run partial', async () => {
    const a = pool();
    const { runId } = await open(a, 1, CONSENTS.slice(0, 1));
    const leased = await leaseNextConsent(a, { runId, workerId: 'w1', leaseTtlMs: TTL, now: NOW });
    await finishConsent(a, { runId, workerId: 'w1', consentId: leased!.consentId, outcome: 'partial', now: NOW });
    expect(
      await leaveRun(a, { runId, workerId: 'w1', report: report({ consents: 1 }), now: NOW, leaseTtlMs: TTL }),
    ).toBe(true);
    const { rows } = await a.query(`SELECT outcome FROM runs WHERE run_id = $1`, [runId]);
    expect(rows[0].outcome).toBe('partial');
  });

  it('shares one pacing budget: four workers together keep to the interval after the burst', async () => {
    const intervalMs = 40;
    const starts: number[] = [];
    await Promise.all(
      [1, 2, 3, 4].map(async () => {
        const p = pool();
        for (let i = 0; i < 5; i++) {
          // The slot on the database's clock: the test's own delay in hearing back (a loaded
          // machine) does not move it.
          const { slotMs } = await reserveRequestSlotAt(p, { key: 'client-a', intervalMs, burst: 2 });
          starts.push(slotMs);
        }
      }),
    );
    starts.sort((x, y) => x - y);
    // 20 requests, 2 in the first burst: the last can go no sooner than 18 intervals after the first.
    expect(starts[19]! - starts[0]!).toBeGreaterThanOrEqual(18 * intervalMs - 1);
    for (let i = 2; i < starts.length; i++) expect(starts[i]! - starts[i - 2]!).toBeGreaterThanOrEqual(intervalMs - 1);
    // Another client has its own budget.
    expect(await reserveRequestSlot(pool(), { key: 'client-b', intervalMs, burst: 1 })).toBe(0);
  });
});
