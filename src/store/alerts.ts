/**
 * Alerts (docs/alerts.md): each subject's last judged state, the outbox the webhook and the
 * command hook are delivered from, and the reads the evaluation judges (runs with their job,
 * continuity findings, rejected payments). Written once over a SqlRunner for both dialects.
 *
 * An evaluation is one transaction behind one lock (`evaluateInTurn`), its facts read once the
 * lock is held: evaluations in several processes at once (PostgreSQL's cooperating workers, a
 * `check`, the scheduler) take turns, each judging what the one before committed. So none writes
 * a state judged from facts older than a state already written (the next evaluation would raise
 * that failed run's event a second time), and none waits for a subject's row while holding
 * another's (40P01). A state change is a conditional upsert (`… DO UPDATE … WHERE state differs
 * RETURNING`), so a subject judged again in the same state raises nothing. An attempt is claimed
 * by moving the row's next attempt past the attempt's timeout in one UPDATE, so two processes
 * never send the same row at once; a process killed mid-attempt leaves the row due again after
 * that time.
 */
import { and, asc, desc, eq, inArray, lte, sql } from 'drizzle-orm';
import { integerAmong, takeLock } from './dialect-sql';
import { insertInto, rowsOf, selectFrom, updateSet } from './sql-build';
import { listConsents, type ConsentRecord } from './registry';
import type { SqlRunner } from './sql-runner';
import { alertOutbox, alertState, type AlertDeliveryState, type AlertDestination } from './sqlite/schema';
import { toStoredInstant, type Clock, type Instant } from './time';

export type AlertStateRow = typeof alertState.$inferSelect;
export type AlertOutboxRow = typeof alertOutbox.$inferSelect;

export interface AlertEventInput {
  eventId: string;
  type: string;
  subject: string;
  payloadJson: string;
  destinations: readonly AlertDestination[];
}

/** A subject's state now; `event` is raised (once per destination) only when the state changed. */
export interface AlertTransition {
  subject: string;
  kind: string;
  state: string;
  /**
   * A prefix of states: a change from one state starting with it to another raises nothing (the
   * state is still written). A consent that ended as `ended:expired` and then reads
   * `ended:Consumed` has ended once.
   */
  quietFrom?: string;
  event: AlertEventInput | null;
}

export interface AttemptResult {
  delivered: boolean;
  /** HTTP status or exit code; null when none came (timeout, refused connection, spawn error). */
  status: number | null;
  error: string | null;
  /** The next attempt (pending), or null: delivered, or given up (failed). */
  nextAttemptAt: Instant | null;
  now: Instant;
}

export async function listAlertStates(r: SqlRunner, kind?: string): Promise<AlertStateRow[]> {
  const where = kind === undefined ? sql`` : sql` WHERE ${eq(alertState.kind, kind)}`;
  return rowsOf(alertState, await r.all(sql`${selectFrom(alertState)}${where} ORDER BY subject`));
}

/**
 * The kinds of subject an evaluation may judge: the config's `alerts.on` (src/config/schema.ts
 * `ALERT_SUBJECTS`), which src/alerts/raise.ts passes as it is, so a kind added there does not
 * compile until it is read here.
 */
export type AlertKind = 'run' | 'consent' | 'continuity' | 'payment';

/** What an evaluation judges, read in its transaction; the facts of a kind not asked for are empty. */
export interface AlertFacts {
  runs: readonly FinishedRun[];
  consents: readonly ConsentRecord[];
  findings: readonly OpenFinding[];
  payments: readonly RejectedPayment[];
  /** Subjects of kinds whose absence means "no longer": the continuity breaks last judged open. */
  openBreaks: readonly string[];
}

/**
 * Judges the facts at `now` (src/alerts/events.ts `judge`): each subject's state, with the event
 * its change would raise. It runs inside the evaluation's transaction, behind its lock, so it
 * should compute and not wait on anything slow.
 */
export type AlertJudge = (
  facts: AlertFacts,
  now: Date,
) => readonly AlertTransition[] | Promise<readonly AlertTransition[]>;

/**
 * One evaluation: the lock, then the facts of `kinds` read, judged at the clock's time, and the
 * transitions applied with their events queued, all in one transaction; returns the event ids
 * raised. The facts are read after the lock, so under PostgreSQL's READ COMMITTED they include
 * everything the previous evaluation committed, and no evaluation applies facts older than the
 * states another one wrote meanwhile. Delivery is not part of it: a slow receiver must not hold
 * the lock.
 */
export async function evaluateInTurn(
  r: SqlRunner,
  kinds: readonly AlertKind[],
  judge: AlertJudge,
  clock: Clock,
): Promise<string[]> {
  return r.transaction(async (tx) => {
    await takeLock(tx, 'alertEvaluation');
    const facts = await readFacts(tx, new Set(kinds));
    const now = clock();
    return applyTransitions(tx, await judge(facts, now), now);
  });
}

async function readFacts(r: SqlRunner, kinds: ReadonlySet<AlertKind>): Promise<AlertFacts> {
  const runs = kinds.has('run') ? await latestFinishedRuns(r) : [];
  const consents = kinds.has('consent') ? await listConsents(r) : [];
  const findings = kinds.has('continuity') ? await openFindings(r) : [];
  const payments = kinds.has('payment') ? await rejectedPayments(r) : [];
  const breaks = kinds.has('continuity') ? await listAlertStates(r, 'continuity') : [];
  return {
    runs,
    consents,
    findings,
    payments,
    openBreaks: breaks.filter((b) => b.state === 'open').map((b) => b.subject),
  };
}

/**
 * Applies the transitions in the evaluation's transaction; returns the event ids raised (the
 * subjects whose state changed). The states are written in subject order: an upsert locks the
 * subject's row even when its WHERE leaves it as it is, so two writers in different orders could
 * each hold a row the other waits for (the lock above already keeps evaluations apart; this keeps
 * them from deadlocking should anything else write the states). The events are queued in the
 * judge's order, the order they are delivered in.
 */
async function applyTransitions(
  tx: SqlRunner,
  transitions: readonly AlertTransition[],
  now: Instant,
): Promise<string[]> {
  const at = toStoredInstant(now);
  const bySubject = [...transitions].sort((a, b) => (a.subject < b.subject ? -1 : a.subject > b.subject ? 1 : 0));
  const changed = new Set<AlertTransition>();
  for (const t of bySubject) {
    const before =
      t.quietFrom === undefined
        ? undefined
        : await tx.get(sql`SELECT state FROM alert_state WHERE ${eq(alertState.subject, t.subject)}`);
    const rows = await tx.all(
      sql`${insertInto(alertState, { subject: t.subject, kind: t.kind, state: t.state, changedAt: at })}
        ON CONFLICT (subject) DO UPDATE SET state = excluded.state, kind = excluded.kind, changed_at = excluded.changed_at
        WHERE alert_state.state <> excluded.state RETURNING subject`,
    );
    const quiet =
      t.quietFrom !== undefined &&
      typeof before?.state === 'string' &&
      before.state.startsWith(t.quietFrom) &&
      t.state.startsWith(t.quietFrom);
    if (rows.length > 0 && !quiet) changed.add(t);
  }
  const raised: string[] = [];
  for (const t of transitions) {
    if (!changed.has(t) || !t.event) continue;
    await insertEvent(tx, t.event, at);
    raised.push(t.event.eventId);
  }
  return raised;
}

/** Adds an event to the outbox outside any state (`bankdata alerts test`). */
export async function enqueueEvent(r: SqlRunner, event: AlertEventInput, now: Instant): Promise<void> {
  await r.transaction((tx) => insertEvent(tx, event, toStoredInstant(now)));
}

async function insertEvent(r: SqlRunner, event: AlertEventInput, at: string): Promise<void> {
  for (const destination of event.destinations) {
    await r.run(
      insertInto(alertOutbox, {
        eventId: event.eventId,
        type: event.type,
        subject: event.subject,
        destination,
        payloadJson: event.payloadJson,
        state: 'pending',
        attempts: 0,
        nextAttemptAt: at,
        createdAt: at,
      }),
    );
  }
}

/**
 * Claims up to `limit` pending rows due at `now` (oldest first; only `eventIds` when given): each
 * claimed row's attempts counted and its next attempt moved to `claimUntil`, so no other process
 * sends it meanwhile. Returns the claimed rows.
 */
export async function claimDue(
  r: SqlRunner,
  options: {
    now: Instant;
    claimUntil: Instant;
    limit: number;
    eventIds?: readonly string[];
    excludeIds?: readonly number[];
  },
): Promise<AlertOutboxRow[]> {
  const now = toStoredInstant(options.now);
  const due = and(
    eq(alertOutbox.state, 'pending'),
    lte(alertOutbox.nextAttemptAt, now),
    options.eventIds ? inArray(alertOutbox.eventId, [...options.eventIds]) : undefined,
    // Every row a delivery pass has attempted (deliver.ts), as many as its budget allowed: one
    // parameter, not one per id (past SQLite's 32,766 parameters the claim failed).
    options.excludeIds && options.excludeIds.length > 0
      ? sql`NOT (${integerAmong(r.dialect, sql`${alertOutbox.id}`, options.excludeIds)})`
      : undefined,
  );
  const candidates = await r.all(
    sql`SELECT id FROM ${alertOutbox} WHERE ${due} ORDER BY ${asc(alertOutbox.id)} LIMIT ${options.limit}`,
  );
  const ids = candidates.map((row) => Number(row.id));
  if (ids.length === 0) return [];
  const claimed = await r.all(
    sql`${updateSet(alertOutbox, {
      attempts: sql`${sql.identifier('attempts')} + 1`,
      lastAttemptAt: now,
      nextAttemptAt: toStoredInstant(options.claimUntil),
    })} WHERE ${inArray(alertOutbox.id, ids)} AND ${due} RETURNING id`,
  );
  const claimedIds = claimed.map((row) => Number(row.id));
  if (claimedIds.length === 0) return [];
  return rowsOf(
    alertOutbox,
    await r.all(sql`${selectFrom(alertOutbox)} WHERE ${inArray(alertOutbox.id, claimedIds)} ORDER BY id`),
  );
}

/** Records a claimed attempt's end: delivered, pending again at its next attempt, or failed for good. */
export async function recordAttempt(r: SqlRunner, id: number, result: AttemptResult): Promise<void> {
  const state: AlertDeliveryState = result.delivered
    ? 'delivered'
    : result.nextAttemptAt === null
      ? 'failed'
      : 'pending';
  const now = toStoredInstant(result.now);
  await r.run(
    sql`${updateSet(alertOutbox, {
      state,
      lastStatus: result.status,
      lastError: result.error === null ? null : result.error.slice(0, 500),
      deliveredAt: result.delivered ? now : null,
      nextAttemptAt: result.nextAttemptAt === null ? now : toStoredInstant(result.nextAttemptAt),
    })} WHERE ${eq(alertOutbox.id, id)}`,
  );
}

/** The outbox, newest first (one state, or all). */
export async function listOutbox(
  r: SqlRunner,
  filter: { state?: AlertDeliveryState; limit?: number } = {},
): Promise<AlertOutboxRow[]> {
  const where = filter.state === undefined ? sql`` : sql` WHERE ${eq(alertOutbox.state, filter.state)}`;
  return rowsOf(
    alertOutbox,
    await r.all(sql`${selectFrom(alertOutbox)}${where} ORDER BY ${desc(alertOutbox.id)} LIMIT ${filter.limit ?? 100}`),
  );
}

/** How many rows the outbox holds in each state. */
export async function countOutbox(r: SqlRunner): Promise<Record<AlertDeliveryState, number>> {
  const rows = await r.all(sql`SELECT state, COUNT(*) AS n FROM ${alertOutbox} GROUP BY state`);
  const counts: Record<AlertDeliveryState, number> = { pending: 0, delivered: 0, failed: 0 };
  for (const row of rows) counts[row.state as AlertDeliveryState] = Number(row.n);
  return counts;
}

// ---------------------------------------------------------------------------
// What the evaluation judges

export interface FinishedRun {
  runId: string;
  /** The scheduled job it was (job_runs), or null: a `bankdata sync`. */
  job: string | null;
  outcome: string;
  startedAt: string;
  finishedAt: string;
  failedUnits: number;
  errorSummary: string | null;
}

/** The newest finished runs (with their job), newest first. */
export async function latestFinishedRuns(r: SqlRunner, limit = 50): Promise<FinishedRun[]> {
  const rows = await r.all(
    sql`SELECT r.run_id, j.job, r.outcome, r.started_at, r.finished_at, r.failed_units, r.error_summary
      FROM runs r LEFT JOIN job_runs j ON j.run_id = r.run_id
      WHERE r.finished_at IS NOT NULL AND r.outcome IS NOT NULL
      ORDER BY r.finished_at DESC, r.run_id LIMIT ${limit}`,
  );
  return rows.map((row) => ({
    runId: String(row.run_id),
    job: row.job === null || row.job === undefined ? null : String(row.job),
    outcome: String(row.outcome),
    startedAt: String(row.started_at),
    finishedAt: String(row.finished_at),
    failedUnits: Number(row.failed_units),
    errorSummary: row.error_summary === null || row.error_summary === undefined ? null : String(row.error_summary),
  }));
}

export interface OpenFinding {
  bank: string;
  accountId: string;
  kind: string;
  fromDateTime: string;
  toDateTime: string;
  fromDate: string;
  toDate: string;
  amount: string;
  currency: string;
  cause: string;
  detail: string;
  runId: string | null;
  checkedAt: string;
}

/** The findings the latest checks left (continuity_findings), by account and instant. */
export async function openFindings(r: SqlRunner): Promise<OpenFinding[]> {
  const rows = await r.all(
    sql`SELECT bank, account_id, kind, from_date_time, to_date_time, from_date, to_date, amount, currency, cause,
        detail, run_id, checked_at FROM continuity_findings ORDER BY bank, account_id, from_date_time, kind, id`,
  );
  return rows.map((row) => ({
    bank: String(row.bank),
    accountId: String(row.account_id),
    kind: String(row.kind),
    fromDateTime: String(row.from_date_time),
    toDateTime: String(row.to_date_time),
    fromDate: String(row.from_date),
    toDate: String(row.to_date),
    amount: String(row.amount),
    currency: String(row.currency),
    cause: String(row.cause),
    detail: String(row.detail),
    runId: row.run_id === null || row.run_id === undefined ? null : String(row.run_id),
    checkedAt: String(row.checked_at),
  }));
}

export interface RejectedPayment {
  paymentId: string;
  consentId: string;
  amount: string;
  currency: string;
  reference: string | null;
  statusUpdatedAt: string;
}

/** Payments whose last known status is Rejected. */
export async function rejectedPayments(r: SqlRunner): Promise<RejectedPayment[]> {
  const rows = await r.all(
    sql`SELECT payment_id, consent_id, amount, currency, reference, status_updated_at FROM payments
      WHERE status = 'Rejected' ORDER BY status_updated_at, payment_id`,
  );
  return rows.map((row) => ({
    paymentId: String(row.payment_id),
    consentId: String(row.consent_id),
    amount: String(row.amount),
    currency: String(row.currency),
    reference: row.reference === null || row.reference === undefined ? null : String(row.reference),
    statusUpdatedAt: String(row.status_updated_at),
  }));
}
