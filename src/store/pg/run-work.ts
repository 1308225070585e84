/**
 * A run's work on PostgreSQL (../run-work.ts): any number of workers, on any number of machines,
 * share the open run through the work queue (work-queue.ts): consents are leased one at a time
 * with `FOR UPDATE SKIP LOCKED`, a dead worker's consents are taken over once their lease
 * expires, and the run's summary is the sum of its workers' reports (v_runs shows it as one run,
 * v_run_workers who did what).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type pg from 'pg';
import type { ConsentId } from '@bankdata/core/schemas';
import { isProcessAlive } from '../../fs/writers';
import { LeaseLostError, type BeginInput, type BeginResult, type UnitFence } from '../run-work';
import type { SqlRunner } from '../sql-runner';
import {
  abandonWorker,
  finishConsent,
  leaseNextConsent,
  leaveRun,
  openOrJoinRunFor,
  releaseConsent,
  renewWorkerLeases,
} from './work-queue';

/** The longest a worker with nothing to do waits before it looks at the run's queue again. */
const MAX_POLL_MS = 1_000;

/** Milliseconds until the first lease another worker holds in the run expires; null when none is held. */
async function untilNextExpiry(pool: pg.Pool, runId: string, workerId: string): Promise<number | null> {
  const { rows } = await pool.query<{ wait_ms: string | null }>(
    `SELECT extract(epoch FROM min(lease_expires_at) - clock_timestamp()) * 1000 AS wait_ms
     FROM run_consents WHERE run_id = $1 AND state = 'leased' AND worker_id <> $2`,
    [runId, workerId],
  );
  const wait = rows[0]?.wait_ms;
  return wait === null || wait === undefined ? null : Number(wait);
}

/** One worker of this process in a run: its id and the consents it holds (leased, not done). */
interface LocalWorker {
  workerId: string;
  held: Set<ConsentId>;
}

/**
 * The workers this process runs, by run (one store's; pg-store.ts): whom a unit's write is fenced
 * for. A unit names its run and consent (`runId`, `consentId`), and its worker is the one of this
 * process that holds that consent in that run.
 */
export class LocalWorkers {
  private readonly byRun = new Map<string, Set<LocalWorker>>();

  add(runId: string, worker: LocalWorker): void {
    let workers = this.byRun.get(runId);
    if (!workers) this.byRun.set(runId, (workers = new Set()));
    workers.add(worker);
  }

  remove(runId: string, worker: LocalWorker): void {
    const workers = this.byRun.get(runId);
    workers?.delete(worker);
    if (workers?.size === 0) this.byRun.delete(runId);
  }

  /**
   * What a unit of this consent in this run must check before it commits: null when the run is
   * none of this process's work queue (a write outside a sync, or a test's), else the fence. A
   * unit whose consent no worker of this process holds any more fails at once.
   */
  fenceOf(unit: { runId: string | null; consentId: ConsentId }): UnitFence | null {
    const { runId, consentId } = unit;
    if (runId === null) return null;
    const workers = this.byRun.get(runId);
    if (!workers) return null;
    const holder = [...workers].find((w) => w.held.has(consentId));
    return async (tx) => {
      if (!holder || !(await holdsConsent(tx, { runId, workerId: holder.workerId, consentId })))
        throw new LeaseLostError({ runId, consentId });
    };
  }
}

/**
 * Whether this worker still holds the consent in the run: its `run_consents` row leased to it and
 * its `run_workers` row not left (judged gone, it was taken over). Run inside the unit's
 * transaction just before it commits, the consent's row locked (FOR SHARE) until then: a take-over
 * (requeue, or a lease of the expired row, which skips a locked one) waits for the commit, or came
 * first and this check, reading the row again, finds it no longer this worker's.
 */
export async function holdsConsent(
  tx: SqlRunner,
  input: { runId: string; workerId: string; consentId: ConsentId },
): Promise<boolean> {
  const row = await tx.get(sql`SELECT 1 AS held FROM run_consents c
    WHERE c.run_id = ${input.runId} AND c.consent_id = ${input.consentId} AND c.worker_id = ${input.workerId}
      AND c.state = 'leased'
      AND EXISTS (SELECT 1 FROM run_workers w WHERE w.run_id = c.run_id AND w.worker_id = c.worker_id AND w.left_at IS NULL)
    FOR SHARE OF c`);
  return row !== undefined;
}

export async function beginPostgresRun(
  pool: pg.Pool,
  input: BeginInput,
  local: LocalWorkers = new LocalWorkers(),
): Promise<BeginResult> {
  const worker = {
    workerId: `${input.holder.host}:${input.holder.pid}:${randomBytes(3).toString('hex')}`,
    host: input.holder.host,
    pid: input.holder.pid,
  };
  const { leaseTtlMs } = input;
  const joined = await openOrJoinRunFor(pool, {
    worker,
    consentIds: input.consentIds,
    runId: input.runId ?? randomUUID(),
    now: input.now,
    leaseTtlMs,
    exclusive: input.exclusive ?? false,
    isAlive: isProcessAlive,
  });
  if ('refused' in joined) {
    const { pid, host, expiresAt } = joined.refused;
    return { ok: false, heldBy: { pid, host, expiresAt } };
  }
  const { runId } = joined;
  const workerId = worker.workerId;
  /** Consents this worker holds now (leased, not done). */
  const held = new Set<ConsentId>();
  // Its units' writes are fenced for it until it leaves (LocalWorkers.fenceOf).
  const self: LocalWorker = { workerId, held };
  local.add(runId, self);
  return {
    ok: true,
    work: {
      runId,
      next: async (now, stopping) => {
        for (;;) {
          const leased = await leaseNextConsent(pool, { runId, workerId, leaseTtlMs, now });
          if (leased) {
            held.add(leased.consentId);
            return leased.consentId;
          }
          // Nothing free. Consents other workers hold come free if a holder dies (its lease
          // expires): wait for the first expiry, or until they are done, unless stopping.
          const waitMs = await untilNextExpiry(pool, runId, workerId);
          if (waitMs === null || stopping?.()) return null;
          await new Promise((resolve) => setTimeout(resolve, Math.min(Math.max(waitMs, 0) + 20, MAX_POLL_MS)));
        }
      },
      done: async (consentId, outcome, now) => {
        held.delete(consentId);
        return finishConsent(pool, { runId, workerId, consentId, outcome, now });
      },
      renew: async () => {
        const before = [...held];
        const renewed = await renewWorkerLeases(pool, { runId, workerId, leaseTtlMs });
        // Judged gone and taken over (its term lapsed: a pause, a stalled host): it must stop even
        // holding nothing, as the next lease would be refused.
        if (renewed === 'gone') return false;
        const still = new Set(renewed);
        // Lost: held before and after the renewal, yet not renewed (another worker took it over).
        // One finished meanwhile (`done`) is no longer held and is not a loss.
        return before.every((id) => still.has(id) || !held.has(id));
      },
      leave: async (summary, now) => {
        // A consent still held (stopped before it) goes back to the queue for the others at once.
        for (const consentId of held) await releaseConsent(pool, { runId, workerId, consentId });
        held.clear();
        local.remove(runId, self);
        await leaveRun(pool, {
          runId,
          workerId,
          now,
          leaseTtlMs,
          report: summary,
        });
      },
      abandon: async () => {
        held.clear();
        local.remove(runId, self);
        await abandonWorker(pool, { runId, workerId, now: new Date() });
      },
    },
  };
}
