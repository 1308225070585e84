/**
 * Reads over the public views for `bankdata status`, `payments show|reconcile`, the dry run and
 * the demo. Each query's rows are parsed with zod here, at the boundary, so callers get typed
 * rows or an error naming the column, never an unchecked cast. Each query is written once and
 * run on either dialect through a SqlRunner (sql-runner.ts): the views are the same on both.
 */
import { hostname } from 'node:os';
import { sql, type SQL } from 'drizzle-orm';
import type { Store } from './store';
import { z } from 'zod';
import type { AccountId, BankName, ConsentId } from '@bankdata/core/schemas';
import type { SqlRunner } from './sql-runner';
import { NIGHTLY_SYNC } from './job-runs';
import { holderGone, readLease, unfinishedRunState, unfinishedWorkersState } from './lease';
import type { Clock } from './time';

const text = z.string();
const textOrNull = z.string().nullable();
// PostgreSQL's count(*) and bigint may arrive as text (sql-runner.ts): counts are coerced.
const count = z.coerce.number().int();
const countOrNull = z.union([z.null(), z.coerce.number().int()]);

export const ConsentViewRow = z.object({
  consent_id: text,
  bank: textOrNull,
  status: textOrNull,
  days_to_expiry: countOrNull,
  last_synced_at: textOrNull,
  last_outcome: textOrNull,
  /** The registry's reason it ended (consents.ended_reason; src/store/consent-state.ts), not a v_consents column. */
  ended_reason: textOrNull,
});
export type ConsentViewRow = z.infer<typeof ConsentViewRow>;

/** A run's counters: of the whole run (v_runs), and of each worker that took part (run_workers). */
function runCounters<T extends z.ZodType>(number: T) {
  return { consents: number, requests: number, rows_written: number, failed_units: number };
}

export const RunViewRow = z.object({
  run_id: text,
  started_at: text,
  finished_at: textOrNull,
  outcome: textOrNull,
  ...runCounters(countOrNull),
  error_summary: textOrNull,
});
export type RunViewRow = z.infer<typeof RunViewRow>;

export const RejectCount = z.object({ resource: text, count });
export type RejectCount = z.infer<typeof RejectCount>;

/** A payment's particulars, code and reference, as the payment views show them. */
const pcrColumns = { particulars: textOrNull, code: textOrNull, reference: textOrNull };

/** A v_payments row: `amount` is the view's number (numeric), `amount_text` its exact decimal text. */
export const PaymentViewRow = z.object({
  payment_id: text,
  consent_id: text,
  status: text,
  amount: z.union([z.number(), z.string()]),
  currency: text,
  ...pcrColumns,
  created_at: text,
  status_updated_at: text,
  amount_text: text,
  amount_minor: z.union([z.number(), z.string(), z.bigint()]),
  created_date: text,
});
export type PaymentViewRow = z.infer<typeof PaymentViewRow>;

/** The key of a transactions row: the credit a payment matched, or one it may match. */
const transactionKey = { bank: text, account_id: text, transaction_id: text };

export const PaymentMatchRow = z.object({ ...transactionKey, match_rule: text });
export type PaymentMatchRow = z.infer<typeof PaymentMatchRow>;

/** A settled payment with no candidate credit (v_payments columns). */
export const UnmatchedPaymentRow = PaymentViewRow.pick({ payment_id: true, consent_id: true, currency: true }).extend({
  ...pcrColumns,
  status_updated_at: text,
  amount: text,
});
export type UnmatchedPaymentRow = z.infer<typeof UnmatchedPaymentRow>;

/** One candidate credit of a settled payment that v_payment_matches did not match one-to-one. */
export const UnresolvedCandidateRow = UnmatchedPaymentRow.pick({
  payment_id: true,
  amount: true,
  currency: true,
}).extend({
  ...transactionKey,
  /** how many candidates this payment has */
  per_payment: count,
});
export type UnresolvedCandidateRow = z.infer<typeof UnresolvedCandidateRow>;

export const ReconciliationCounts = z.object({ settled: count, matched: count });
export type ReconciliationCounts = z.infer<typeof ReconciliationCounts>;

export const StoreTotals = z.object({ transactions: count, accounts: count, balances: count, files: count });
export type StoreTotals = z.infer<typeof StoreTotals>;

async function all<T>(db: SqlRunner, schema: z.ZodType<T>, query: SQL): Promise<T[]> {
  return z.array(schema).parse(await db.all(query));
}

async function one<T>(db: SqlRunner, schema: z.ZodType<T>, query: SQL): Promise<T | null> {
  const row = await db.get(query);
  return row === undefined ? null : schema.parse(row);
}

/** The one row of an aggregate query (counts, sums), which always has one. */
async function aggregate<T>(db: SqlRunner, schema: z.ZodType<T>, query: SQL): Promise<T> {
  return schema.parse(await db.get(query));
}

export async function consentViewRows(db: SqlRunner): Promise<ConsentViewRow[]> {
  return all(
    db,
    ConsentViewRow,
    sql`SELECT v.consent_id, v.bank, v.status, v.days_to_expiry, v.last_synced_at, v.last_outcome, c.ended_reason
        FROM v_consents v JOIN consents c ON c.consent_id = v.consent_id ORDER BY v.consent_id`,
  );
}

/**
 * A run as `status` and the report show it: its v_runs row with the state of a run that never
 * ended decided (`outcome` null while it runs, 'interrupted' once its holder is gone), the job
 * that ran it (job_runs; null for a sync started from the command line) and, on PostgreSQL, its
 * workers.
 */
export type LatestRun = RunViewRow & { job: string | null; workers: Omit<RunWorkerRow, 'expires_in_ms'>[] };

/**
 * The latest runs, newest first (`syncOnly`: the syncs alone, those with no job or the nightly
 * sync's). A run with no end is running only while its holder lives: on SQLite the lease (not
 * expired, its pid not dead on this host, taken no later than the run started: the lease's run
 * and the scheduler's lease-less jobs started beside it); on PostgreSQL one of its workers (not
 * left, seen within its own term, its pid not dead on this host). Else it was killed, or its
 * machine stopped: 'interrupted' (src/store/lease.ts). Decided here once, for every reader.
 */
export async function latestRunRows(
  db: SqlRunner,
  limit: number,
  now: Date,
  options: { syncOnly?: boolean } = {},
): Promise<LatestRun[]> {
  const where = options.syncOnly ? sql` WHERE j.job IS NULL OR j.job = ${NIGHTLY_SYNC}` : sql``;
  const rows = await all(
    db,
    RunViewRow.extend({ job: textOrNull, holder_host: textOrNull, holder_pid: countOrNull }),
    sql`SELECT r.run_id, r.started_at, r.finished_at, r.outcome, r.consents, r.requests, r.rows_written,
               r.failed_units, r.error_summary, j.job, j.holder_host, j.holder_pid
        FROM v_runs r LEFT JOIN job_runs j ON j.run_id = r.run_id${where}
        ORDER BY r.started_at DESC, r.run_id DESC LIMIT ${limit}`,
  );
  const lease = rows.some(unfinished) ? await readLease(db) : null;
  const workers = await runWorkerRows(
    db,
    rows.map((r) => r.run_id),
  );
  return rows.map(({ holder_host: host, holder_pid: pid, ...r }) => {
    const own = workers.filter((w) => w.run_id === r.run_id);
    const state = !unfinished(r)
      ? null
      : own.length > 0
        ? unfinishedWorkersState(own)
        : host !== null && pid !== null
          ? unfinishedJobState({ host, pid, startedAt: r.started_at }, now)
          : unfinishedRunState({ startedAt: r.started_at }, lease, now);
    return {
      ...r,
      outcome: state === 'interrupted' ? 'interrupted' : r.outcome,
      workers: own.map(({ run_id: _id, expires_in_ms: _expires, ...w }) => w),
    };
  });
}

const unfinished = (r: RunViewRow) => r.outcome === null && r.finished_at === null;

/**
 * A scheduled job that takes no lease (the expiry check, the meta refresh) is past this long after
 * its start taken as killed when its process is on another host, which alone could tell (such a
 * job reads the consents and the banks' meta: minutes, never hours).
 */
const JOB_RUN_AT_MOST_MS = 6 * 3_600_000;

/**
 * An unfinished run of such a job, from the process its tag names: 'interrupted' when that process
 * is gone on this host (as the lease's holder is judged, lease.ts `holderGone`), or on another
 * host once JOB_RUN_AT_MOST_MS has passed since it started; else 'running'.
 */
function unfinishedJobState(
  run: { host: string; pid: number; startedAt: string },
  now: Date,
): 'running' | 'interrupted' {
  if (holderGone({ host: run.host, pid: run.pid })) return 'interrupted';
  if (run.host !== hostname() && now.getTime() - Date.parse(run.startedAt) > JOB_RUN_AT_MOST_MS) return 'interrupted';
  return 'running';
}

/** Who worked a run on PostgreSQL (run_workers), oldest first; SQLite runs have one process and no such table. */
export const RunWorkerRow = z.object({
  worker_id: text,
  host: text,
  pid: count,
  ...runCounters(count),
  outcome: textOrNull,
  left_at: textOrNull,
  /**
   * Milliseconds left of the worker's own term (run_workers.expires_at, set from its own
   * sync.leaseTtlMs at join and each renewal), on the server's clock; negative once it has passed
   * (status: is it live?).
   */
  expires_in_ms: countOrNull,
});
export type RunWorkerRow = z.infer<typeof RunWorkerRow>;

export async function runWorkerRows(
  db: SqlRunner,
  runIds: readonly string[],
): Promise<(RunWorkerRow & { run_id: string })[]> {
  if (db.dialect !== 'postgres' || runIds.length === 0) return [];
  return all(
    db,
    RunWorkerRow.extend({ run_id: text }),
    sql`SELECT run_id, worker_id, host, pid, consents, requests, rows_written, failed_units, outcome, left_at,
               floor(extract(epoch FROM expires_at - clock_timestamp()) * 1000)::bigint AS expires_in_ms
        FROM run_workers WHERE run_id IN (${sql.join(
          runIds.map((id) => sql`${id}`),
          sql`, `,
        )}) ORDER BY run_id, joined_at, worker_id`,
  );
}

export async function rejectCounts(db: SqlRunner): Promise<RejectCount[]> {
  return all(db, RejectCount, sql`SELECT resource, count(*) AS count FROM rejects GROUP BY resource ORDER BY resource`);
}

export async function paymentViewRow(db: SqlRunner, paymentId: string): Promise<PaymentViewRow | null> {
  return one(db, PaymentViewRow, sql`SELECT * FROM v_payments WHERE payment_id = ${paymentId}`);
}

export async function paymentMatchRow(db: SqlRunner, paymentId: string): Promise<PaymentMatchRow | null> {
  return one(
    db,
    PaymentMatchRow,
    sql`SELECT bank, account_id, transaction_id, match_rule FROM v_payment_matches WHERE payment_id = ${paymentId}`,
  );
}

export async function unmatchedPaymentRows(db: SqlRunner): Promise<UnmatchedPaymentRow[]> {
  return all(
    db,
    UnmatchedPaymentRow,
    sql`SELECT p.payment_id, p.consent_id, p.amount_text AS amount, p.currency, p.particulars, p.code, p.reference, p.status_updated_at
        FROM v_payments p
        WHERE p.status = 'AcceptedSettlementCompleted'
          AND NOT EXISTS (SELECT 1 FROM payment_match_candidates c WHERE c.payment_id = p.payment_id)
        ORDER BY p.status_updated_at, p.payment_id`,
  );
}

export async function unresolvedCandidateRows(db: SqlRunner): Promise<UnresolvedCandidateRow[]> {
  return all(
    db,
    UnresolvedCandidateRow,
    sql`SELECT p.payment_id, p.amount_text AS amount, p.currency, c.bank, c.account_id, c.transaction_id,
               (SELECT count(*) FROM payment_match_candidates x WHERE x.payment_id = p.payment_id) AS per_payment
        FROM v_payments p JOIN payment_match_candidates c ON c.payment_id = p.payment_id
        WHERE p.status = 'AcceptedSettlementCompleted'
          AND NOT EXISTS (SELECT 1 FROM v_payment_matches m WHERE m.payment_id = p.payment_id)
        ORDER BY p.status_updated_at, p.payment_id, c.bank, c.account_id, c.transaction_id`,
  );
}

export async function reconciliationCounts(db: SqlRunner): Promise<ReconciliationCounts> {
  return await aggregate(
    db,
    ReconciliationCounts,
    sql`SELECT (SELECT count(*) FROM v_payments WHERE status = 'AcceptedSettlementCompleted') AS settled,
               (SELECT count(*) FROM v_payment_matches) AS matched`,
  );
}

export async function storeTotals(db: SqlRunner): Promise<StoreTotals> {
  return await aggregate(
    db,
    StoreTotals,
    sql`SELECT (SELECT count(*) FROM v_transactions) AS transactions, (SELECT count(*) FROM v_accounts) AS accounts,
               (SELECT count(*) FROM v_balances) AS balances, (SELECT count(*) FROM v_statements WHERE file_path IS NOT NULL) AS files`,
  );
}

/** Accounts the database knows for a consent (from its accounts and its watermarks). */
export async function knownAccounts(
  db: SqlRunner,
  key: { consentId: ConsentId; bank: BankName },
): Promise<AccountId[]> {
  const rows = await all(
    db,
    z.object({ account_id: text }),
    sql`SELECT account_id FROM v_accounts WHERE consent_id = ${key.consentId} AND bank = ${key.bank}
        UNION SELECT account_id FROM sync_state WHERE consent_id = ${key.consentId} AND bank = ${key.bank} ORDER BY 1`,
  );
  return rows.map((r) => r.account_id as AccountId);
}

/** The Store's `reports` operations over one runner: the same queries on both dialects. */
export function reportsOf(runner: SqlRunner, clock: Clock): Store['reports'] {
  return {
    consents: () => consentViewRows(runner),
    latestRuns: (limit, options) => latestRunRows(runner, limit, clock(), options),
    rejectCounts: () => rejectCounts(runner),
    payment: (paymentId) => paymentViewRow(runner, paymentId),
    paymentMatch: (paymentId) => paymentMatchRow(runner, paymentId),
    unmatchedPayments: () => unmatchedPaymentRows(runner),
    unresolvedCandidates: () => unresolvedCandidateRows(runner),
    reconciliationCounts: () => reconciliationCounts(runner),
    totals: () => storeTotals(runner),
  };
}
