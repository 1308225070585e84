/**
 * A run's work on PostgreSQL (../run-work.ts): any number of workers, on any number of machines,
 * share the open run through the work queue (work-queue.ts): consents are leased one at a time
 * with `FOR UPDATE SKIP LOCKED`, a dead worker's consents are taken over once their lease
 * expires, and the run's summary is the sum of its workers' reports (v_runs shows it as one run,
 * v_run_workers who did what).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { ConsentId } from '@bankdata/core/schemas';
import { isProcessAlive } from '../../fs/writers';
import type { BeginInput, BeginResult } from '../run-work';
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

export async function beginPostgresRun(pool: pg.Pool, input: BeginInput): Promise<BeginResult> {
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
        await abandonWorker(pool, { runId, workerId, now: new Date() });
      },
    },
  };
}
