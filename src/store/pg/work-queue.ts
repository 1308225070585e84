/**
 * Cooperating workers over PostgreSQL (docs/postgres.md "Cooperating workers"): a run is the set
 * of consent leases of one pass. The first worker that finds no run open opens one and queues its
 * consents; workers that start while it is open join it. Each consent is leased by one worker at
 * a time with `FOR UPDATE SKIP LOCKED` (no two workers wait on, or take, the same row), with an
 * expiry on the server's clock that the holder renews; a dead worker's consents are taken over
 * once their lease has expired. The run closes when its consents are done; its summary in `runs`
 * (v_runs) is the sum of what each worker reported in `run_workers`.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { BudgetCounts } from '../../api/pacer';
import type { ConsentId } from '@bankdata/core/schemas';
import type { ConsentOutcome, RunOutcome } from '../sqlite/schema';
import { toStoredInstant, type Instant } from '../time';
import { inPgTransaction } from './open';

/** Serialises opening a run: two first workers must not open two runs. */
const RUN_OPEN_LOCK_KEY = 0x62647275; // "bdru"

export interface WorkerIdentity {
  workerId: string;
  host: string;
  pid: number;
}

export interface JoinedRun {
  runId: string;
  /** True for the worker that opened it. */
  opened: boolean;
}

/** The open run this worker may not share (an exclusive worker, below), and one of its live workers. */
export interface RefusedJoin {
  refused: { runId: string; pid: number; host: string; expiresAt: string };
}

type Queryable = pg.Pool | pg.PoolClient;

export interface OpenOrJoinInput {
  worker: WorkerIdentity;
  consentIds: readonly ConsentId[];
  runId: string;
  now: Instant;
  leaseTtlMs: number;
  /**
   * The worker's work needs a run of its own (`--full`, `--since`, `--consent`: other workers of
   * an open run would not do it): an open run with a live worker refuses it, unless that run's id
   * is `runId` (the workers `sync --workers N` started together, which share their flags).
   */
  exclusive?: boolean;
  /** Whether a process of this host is alive (a dead one's work is taken over at once). */
  isAlive?: (pid: number) => boolean;
}

/**
 * Joins the open run, or opens one with these consents queued. A run whose consents are all done
 * but that nobody closed (its last worker died) is closed first. A worker of an open run is gone
 * when its own term has passed (expires_at: its own lease time, not this worker's), or when it ran
 * on this host and its pid is dead:
 * it is marked as having left without a report (partial), and the consents it held go back to the
 * queue at once. A run with no live worker left is not joined: it stays without an end, and
 * `status` shows it interrupted (as a killed run on SQLite); this worker opens a new run.
 */
export async function openOrJoinRun(pool: pg.Pool, input: OpenOrJoinInput): Promise<JoinedRun> {
  const result = await openOrJoinRunFor(pool, { ...input, exclusive: false });
  if ('refused' in result) throw new Error('openOrJoinRun: refused a worker that is not exclusive');
  return result;
}

export async function openOrJoinRunFor(pool: pg.Pool, input: OpenOrJoinInput): Promise<JoinedRun | RefusedJoin> {
  const nowText = toStoredInstant(input.now);
  const isAlive = input.isAlive ?? (() => true);
  return inPgTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [RUN_OPEN_LOCK_KEY]);
    // The run rows locked: a last worker leaving (leaveRun) closes a run under the same lock, so a
    // run is never joined as it closes.
    const open = await client.query<{ run_id: string }>(
      `SELECT r.run_id FROM runs r
       WHERE r.finished_at IS NULL AND EXISTS (SELECT 1 FROM run_consents c WHERE c.run_id = r.run_id)
         AND EXISTS (SELECT 1 FROM run_workers w WHERE w.run_id = r.run_id AND w.left_at IS NULL)
       ORDER BY r.started_at DESC
       FOR UPDATE OF r`,
    );
    for (const { run_id: runId } of open.rows) {
      // Gone workers first: a run whose consents are all done closes only when no live worker is
      // left in it (its last worker died after the last consent). One alive is in its closing steps
      // (the check, transfers, categories: they write) and closes the run when it leaves; this
      // worker does not join a run with nothing left to lease, it opens its own.
      const live = await takeOverGoneWorkers(client, { runId, host: input.worker.host, isAlive, nowText });
      if (await closeRunIfDone(client, { runId, now: input.now })) continue;
      const first = live[0];
      if (first === undefined || (await allConsentsDone(client, runId))) continue;
      if (input.exclusive && runId !== input.runId) {
        return { refused: { runId, pid: first.pid, host: first.host, expiresAt: first.expires_at } };
      }
      // The joiner's consents join the run too (a `--consent` the run did not hold, one registered
      // since it opened); those the run already holds, done or not, are left as they are.
      await queueConsents(client, runId, input.consentIds, true);
      await addWorker(client, runId, input.worker, nowText, input.leaseTtlMs);
      return { runId, opened: false };
    }
    // A shared id (sync --workers N) whose run a sibling already finished: a run of its own.
    const taken = await client.query(`SELECT 1 FROM runs WHERE run_id = $1`, [input.runId]);
    const runId = taken.rows.length > 0 ? randomUUID() : input.runId;
    await client.query(`INSERT INTO runs (run_id, started_at) VALUES ($1, $2)`, [runId, nowText]);
    await queueConsents(client, runId, input.consentIds, false);
    await addWorker(client, runId, input.worker, nowText, input.leaseTtlMs);
    return { runId, opened: true };
  });
}

/** Whether every consent of the run is done (nothing left to lease in it). */
async function allConsentsDone(client: Queryable, runId: string): Promise<boolean> {
  const { rows } = await client.query(`SELECT 1 FROM run_consents WHERE run_id = $1 AND state <> 'done' LIMIT 1`, [
    runId,
  ]);
  return rows.length === 0;
}

/** What a gone worker's row says in place of its report. */
export const GONE_WORKER_SUMMARY =
  'stopped without reporting (killed, or it lost the database): its consents were taken over, its requests and rows are not counted';

/**
 * Marks the run's gone workers as left (outcome partial, GONE_WORKER_SUMMARY) and requeues the
 * consents they held; returns the live ones (not left), oldest first, with their lease's end. A
 * worker is gone when its own term (`expires_at`, from its own sync.leaseTtlMs) has passed, never
 * by the joining worker's lease time, or when it ran on this host and its pid is dead.
 */
async function takeOverGoneWorkers(
  client: Queryable,
  input: { runId: string; host: string; isAlive: (pid: number) => boolean; nowText: string },
): Promise<{ worker_id: string; host: string; pid: number; expires_at: string }[]> {
  const { rows } = await client.query<{
    worker_id: string;
    host: string;
    pid: number;
    fresh: boolean;
    expires_at: Date;
  }>(
    `SELECT worker_id, host, pid, NOT (expires_at < clock_timestamp()) AS fresh, expires_at
     FROM run_workers WHERE run_id = $1 AND left_at IS NULL ORDER BY joined_at, worker_id`,
    [input.runId],
  );
  const gone = rows.filter((w) => !w.fresh || (w.host === input.host && !input.isAlive(w.pid)));
  if (gone.length > 0) {
    const ids = gone.map((w) => w.worker_id);
    await client.query(
      `UPDATE run_workers SET left_at = $3, outcome = 'partial', error_summary = $4
       WHERE run_id = $1 AND worker_id = ANY($2::text[]) AND left_at IS NULL`,
      [input.runId, ids, input.nowText, GONE_WORKER_SUMMARY],
    );
    await client.query(
      `UPDATE run_consents SET state = 'queued', worker_id = NULL, lease_expires_at = NULL
       WHERE run_id = $1 AND state = 'leased' AND worker_id = ANY($2::text[])`,
      [input.runId, ids],
    );
  }
  return rows
    .filter((w) => !gone.includes(w))
    .map((w) => ({ worker_id: w.worker_id, host: w.host, pid: w.pid, expires_at: toStoredInstant(w.expires_at) }));
}

async function queueConsents(
  client: Queryable,
  runId: string,
  consentIds: readonly ConsentId[],
  joining: boolean,
): Promise<void> {
  if (consentIds.length === 0) return;
  await client.query(
    `INSERT INTO run_consents (run_id, consent_id, state) SELECT $1, unnest($2::text[]), 'queued'${joining ? ' ON CONFLICT DO NOTHING' : ''}`,
    [runId, [...consentIds]],
  );
}

/** The worker's row, with the end of its own term (its sync.leaseTtlMs from now). */
async function addWorker(
  client: Queryable,
  runId: string,
  worker: WorkerIdentity,
  nowText: string,
  leaseTtlMs: number,
): Promise<void> {
  await client.query(
    `INSERT INTO run_workers (run_id, worker_id, host, pid, joined_at, last_seen_at, expires_at)
     SELECT $1, $2, $3, $4, $5, t.now, t.now + $6 * interval '1 millisecond' FROM (SELECT clock_timestamp() AS now) t
     ON CONFLICT DO NOTHING`,
    [runId, worker.workerId, worker.host, worker.pid, nowText, leaseTtlMs],
  );
}

export interface LeasedConsent {
  consentId: ConsentId;
  /** 1 the first time; more when a worker died or gave it back. */
  attempts: number;
  /** The worker whose expired lease this one replaced. */
  tookOverFrom: string | null;
}

/**
 * Leases a consent whose lease expired (its worker died), else the next queued one; null when none
 * is left, or when this worker is no longer in the run (judged gone and taken over: it must stop,
 * docs/postgres.md "Cooperating workers") or the run has finished. One statement, one round trip:
 * each branch is a partial-index scan that stops at the first row no other worker holds locked
 * (SKIP LOCKED), and that row is leased in the same statement. The worker's own row is locked
 * (FOR SHARE) first, in the order a take-over writes (worker, then consents): a take-over marking
 * it gone at that moment either waits for this lease and requeues the consent with the others, or
 * commits first and this statement, reading the row again, leases nothing.
 */
export async function leaseNextConsent(
  pool: Queryable,
  input: { runId: string; workerId: string; leaseTtlMs: number; now: Instant },
): Promise<LeasedConsent | null> {
  const { rows } = await pool.query<{ consent_id: string; attempts: number; previous_worker: string | null }>(
    `WITH me AS (
       SELECT 1 FROM run_workers w
       WHERE w.run_id = $1 AND w.worker_id = $2 AND w.left_at IS NULL
         AND EXISTS (SELECT 1 FROM runs r WHERE r.run_id = $1 AND r.finished_at IS NULL)
       FOR SHARE OF w
     ), expired AS (
       SELECT run_id, consent_id, worker_id AS previous_worker
       FROM run_consents
       WHERE run_id = $1 AND state = 'leased' AND lease_expires_at < clock_timestamp() AND EXISTS (SELECT 1 FROM me)
       ORDER BY lease_expires_at
       LIMIT 1
       FOR UPDATE SKIP LOCKED
     ), queued AS (
       SELECT run_id, consent_id, NULL::text AS previous_worker
       FROM run_consents
       WHERE run_id = $1 AND state = 'queued' AND EXISTS (SELECT 1 FROM me) AND NOT EXISTS (SELECT 1 FROM expired)
       ORDER BY consent_id
       LIMIT 1
       FOR UPDATE SKIP LOCKED
     ), next AS (
       SELECT * FROM expired UNION ALL SELECT * FROM queued
     )
     UPDATE run_consents rc
     SET state = 'leased', worker_id = $2, lease_expires_at = clock_timestamp() + $3 * interval '1 millisecond',
         attempts = rc.attempts + 1, leased_at = $4
     FROM next
     WHERE rc.run_id = next.run_id AND rc.consent_id = next.consent_id
     RETURNING rc.consent_id, rc.attempts, next.previous_worker`,
    [input.runId, input.workerId, input.leaseTtlMs, toStoredInstant(input.now)],
  );
  const row = rows[0];
  return row
    ? { consentId: row.consent_id as ConsentId, attempts: row.attempts, tookOverFrom: row.previous_worker }
    : null;
}

/**
 * Renews the leases this worker holds and marks it alive. Returns the consents it still holds: one
 * missing was taken over after its lease expired, and the worker must stop working on it. 'gone'
 * when the worker is no longer in the run (another judged it gone and took it over, or it left):
 * nothing is renewed, and the worker must stop, whatever it holds.
 */
export async function renewWorkerLeases(
  pool: pg.Pool,
  input: { runId: string; workerId: string; leaseTtlMs: number },
): Promise<ConsentId[] | 'gone'> {
  return inPgTransaction(pool, async (client) => {
    // The worker's own term renewed with its lease time: others judge it by expires_at.
    const { rowCount } = await client.query(
      `UPDATE run_workers SET last_seen_at = t.now, expires_at = t.now + $3 * interval '1 millisecond'
       FROM (SELECT clock_timestamp() AS now) t WHERE run_id = $1 AND worker_id = $2 AND left_at IS NULL`,
      [input.runId, input.workerId, input.leaseTtlMs],
    );
    if (rowCount !== 1) return 'gone';
    const { rows } = await client.query<{ consent_id: string }>(
      `UPDATE run_consents SET lease_expires_at = clock_timestamp() + $3 * interval '1 millisecond'
       WHERE run_id = $1 AND worker_id = $2 AND state = 'leased'
       RETURNING consent_id`,
      [input.runId, input.workerId, input.leaseTtlMs],
    );
    return rows.map((r) => r.consent_id as ConsentId);
  });
}

/** Marks a leased consent done. False when this worker no longer held it (taken over). */
export async function finishConsent(
  pool: Queryable,
  input: { runId: string; workerId: string; consentId: ConsentId; outcome: ConsentOutcome; now: Instant },
): Promise<boolean> {
  const { rowCount } = await pool.query(
    `UPDATE run_consents SET state = 'done', outcome = $4, finished_at = $5, lease_expires_at = NULL
     WHERE run_id = $1 AND consent_id = $3 AND worker_id = $2 AND state = 'leased'`,
    [input.runId, input.workerId, input.consentId, input.outcome, toStoredInstant(input.now)],
  );
  return rowCount === 1;
}

/** Gives a consent back (the worker is stopping before it): another worker takes it at once. */
export async function releaseConsent(
  pool: Queryable,
  input: { runId: string; workerId: string; consentId: ConsentId },
): Promise<void> {
  await pool.query(
    `UPDATE run_consents SET state = 'queued', worker_id = NULL, lease_expires_at = NULL
     WHERE run_id = $1 AND consent_id = $3 AND worker_id = $2 AND state = 'leased'`,
    [input.runId, input.workerId, input.consentId],
  );
}

/**
 * A worker stopping hard (a second signal, or its grace over) gives its consents back and leaves
 * without a report (outcome partial), as SQLite's run releases its lease: the run keeps no end if
 * no other worker is in it, and `status` shows it interrupted.
 */
export async function abandonWorker(
  pool: pg.Pool,
  input: { runId: string; workerId: string; now: Instant },
): Promise<void> {
  // The worker's row first, then its consents: the order every other transaction of the queue
  // writes them in (a take-over, a renewal), so a take-over at the same moment waits, not deadlocks.
  await inPgTransaction(pool, async (client) => {
    await client.query(
      `UPDATE run_workers SET left_at = $3, outcome = 'partial', error_summary = $4
       WHERE run_id = $1 AND worker_id = $2 AND left_at IS NULL`,
      [input.runId, input.workerId, toStoredInstant(input.now), ABANDONED_WORKER_SUMMARY],
    );
    await client.query(
      `UPDATE run_consents SET state = 'queued', worker_id = NULL, lease_expires_at = NULL
       WHERE run_id = $1 AND worker_id = $2 AND state = 'leased'`,
      [input.runId, input.workerId],
    );
  });
}

/** What an abandoning worker's row says in place of its report. */
export const ABANDONED_WORKER_SUMMARY =
  'stopped hard before its unit in flight ended: its consents went back to the queue, its requests and rows are not counted';

export interface WorkerReport {
  consents: number;
  requests: number;
  rowsWritten: number;
  failedUnits: number;
  outcome: RunOutcome;
  errorSummary: string | null;
}

/**
 * Records what this worker did and leaves the run; the run is then closed if its consents are
 * done. Returns true when the run is closed (by this call or before).
 */
export async function leaveRun(
  pool: pg.Pool,
  input: { runId: string; workerId: string; report: WorkerReport; now: Instant; leaseTtlMs: number },
): Promise<boolean> {
  const { report } = input;
  return inPgTransaction(pool, async (client) => {
    // Leavers take the run's row lock first: two last workers leaving together would otherwise
    // each see the other still in the run (neither commit visible yet) and neither would close it.
    await client.query(`SELECT 1 FROM runs WHERE run_id = $1 FOR UPDATE`, [input.runId]);
    await client.query(
      `UPDATE run_workers SET left_at = $3, consents = $4, requests = $5, rows_written = $6, failed_units = $7,
         outcome = $8, error_summary = $9, last_seen_at = clock_timestamp()
       WHERE run_id = $1 AND worker_id = $2`,
      [
        input.runId,
        input.workerId,
        toStoredInstant(input.now),
        report.consents,
        report.requests,
        report.rowsWritten,
        report.failedUnits,
        report.outcome,
        report.errorSummary,
      ],
    );
    return closeRunIfDone(client, { runId: input.runId, now: input.now, whenAllLeft: true });
  });
}

/**
 * When every consent of the run is done and no live worker is left in it, writes the run's
 * summary as the sum of its workers' reports and sets finished_at (once). Called by each worker
 * that leaves, so a report that arrives after the close is still counted, and by the next pass
 * (after marking the gone workers left). A worker that never left is counted as gone once it is
 * past its own term (expires_at); one within it may still be writing (its closing steps), and the
 * run waits for it to leave. `whenAllLeft` (a worker leaving) also closes a run that every worker
 * has left with consents not done (they stopped on SIGTERM): partial, as a stopped run on SQLite,
 * and the consents not done wait for the next run. `consents` counts the consents walked (done;
 * one row per consent, so one taken over counts once), as SQLite's run counts those it walked,
 * not those queued and never reached.
 */
async function closeRunIfDone(
  client: Queryable,
  input: { runId: string; now: Instant; whenAllLeft?: boolean },
): Promise<boolean> {
  const { rows } = await client.query<{ run_id: string }>(
    `WITH c AS (
       SELECT count(*) FILTER (WHERE state = 'done') AS consents,
              count(*) FILTER (WHERE state <> 'done') AS open,
              count(*) FILTER (WHERE outcome IN ('failed', 'partial')) AS not_ok
       FROM run_consents WHERE run_id = $1
     ), w AS (
       SELECT coalesce(sum(requests), 0) AS requests, coalesce(sum(rows_written), 0) AS rows_written,
              coalesce(sum(failed_units), 0) AS failed_units,
              count(*) FILTER (WHERE outcome = 'failed') AS fatal,
              count(*) FILTER (WHERE outcome = 'partial') AS partial,
              count(*) FILTER (WHERE left_at IS NULL AND NOT (expires_at < clock_timestamp())) AS live,
              count(*) FILTER (WHERE left_at IS NULL) AS unreported,
              string_agg(error_summary, '; ' ORDER BY worker_id) AS errors
       FROM run_workers WHERE run_id = $1
     )
     UPDATE runs SET
       finished_at = coalesce(runs.finished_at, $2),
       consents = c.consents, requests = w.requests, rows_written = w.rows_written, failed_units = w.failed_units,
       outcome = CASE WHEN w.fatal > 0 THEN 'failed' WHEN w.partial > 0 OR c.not_ok > 0 OR w.unreported > 0 OR c.open > 0 THEN 'partial' ELSE 'ok' END,
       -- concat_ws of nothing but NULLs is '': a clean run keeps NULL, as on SQLite.
       error_summary = nullif(left(concat_ws('; ', CASE WHEN w.unreported > 0 THEN w.unreported || ' worker(s) stopped without reporting (killed?): their requests and rows are not counted' END,
         CASE WHEN c.open > 0 THEN c.open || ' consent(s) not synced: every worker stopped before them' END, w.errors), 2000), '')
     FROM c, w
     WHERE runs.run_id = $1
       AND ((c.open = 0 AND (w.live = 0 OR runs.finished_at IS NOT NULL)) OR ($3 AND w.unreported = 0))
     RETURNING runs.run_id`,
    [input.runId, toStoredInstant(input.now), input.whenAllLeft ?? false],
  );
  return rows.length === 1;
}

/**
 * The shared pacing budget (GCRA): reserves the next request slot of this client and returns how
 * long to wait before sending it, in ms (0: send now). `intervalMs` is 1000 / the bank's rate per
 * second (0: no rate known yet, the slot is only counted); `burst` requests may go at once after a
 * quiet spell. One atomic statement, so any number of workers on any number of machines keep to
 * one rate together.
 */
export async function reserveRequestSlot(
  pool: Queryable,
  input: { key: string; intervalMs: number; burst: number },
): Promise<number> {
  return (await reserveRequestSlotAt(pool, input)).waitMs;
}

/**
 * The same reservation, with the slot's instant on the database's clock (epoch ms) beside the
 * wait: the earliest moment the request may go, whatever the caller's own delay in hearing back;
 * and the client's counts, this slot included (the pacers learn the client's rate from them).
 */
export async function reserveRequestSlotAt(
  pool: Queryable,
  input: { key: string; intervalMs: number; burst: number },
): Promise<BudgetCounts & { waitMs: number; slotMs: number }> {
  const toleranceMs = Math.max(0, input.burst - 1) * input.intervalMs;
  // One reading of the clock for the whole statement (`now`), so that the slot and the wait are
  // measured against the instant the budget was updated at.
  const { rows } = await pool.query<{ wait_ms: string; slot_ms: string; sent: string; refused: string }>(
    `WITH now AS (SELECT clock_timestamp() AS t)
     INSERT INTO rate_budget AS b (key, theoretical_arrival_at, sent)
     VALUES ($1, (SELECT t FROM now) + $2 * interval '1 millisecond', 1)
     ON CONFLICT (key) DO UPDATE
       SET theoretical_arrival_at = greatest(b.theoretical_arrival_at, (SELECT t FROM now)) + $2 * interval '1 millisecond',
           sent = b.sent + 1
     RETURNING extract(epoch FROM (b.theoretical_arrival_at - $2 * interval '1 millisecond'
       - $3 * interval '1 millisecond' - (SELECT t FROM now))) * 1000 AS wait_ms,
     extract(epoch FROM greatest((SELECT t FROM now), b.theoretical_arrival_at - $2 * interval '1 millisecond'
       - $3 * interval '1 millisecond')) * 1000 AS slot_ms,
     b.sent, b.refused`,
    [input.key, input.intervalMs, toleranceMs],
  );
  const row = rows[0];
  if (row === undefined) throw new Error('rate_budget: the reservation returned no row');
  return {
    waitMs: Math.max(0, Math.ceil(Number(row.wait_ms))),
    slotMs: Number(row.slot_ms),
    sent: Number(row.sent),
    refused: Number(row.refused),
  };
}

/** Counts a 429 the bank answered to this client; returns the client's counts, this one included. */
export async function countRefusal(pool: Queryable, key: string): Promise<BudgetCounts> {
  const { rows } = await pool.query<{ sent: string; refused: string }>(
    `INSERT INTO rate_budget AS b (key, theoretical_arrival_at, refused)
     VALUES ($1, clock_timestamp(), 1)
     ON CONFLICT (key) DO UPDATE SET refused = b.refused + 1
     RETURNING b.sent, b.refused`,
    [key],
  );
  const row = rows[0];
  if (row === undefined) throw new Error('rate_budget: counting a refusal returned no row');
  return { sent: Number(row.sent), refused: Number(row.refused) };
}
