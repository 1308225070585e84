/**
 * The one assembly of the Store (store.ts) for both dialects: every operation whose SQL is the
 * same on SQLite and PostgreSQL is written once over a SqlRunner (registry, creations, payments,
 * runs, rejects, sync state, unit writes, the lease, the reads over the views) and bound here to
 * the dialect's runner; the few operations whose SQL truly differs come from the dialect
 * (`DialectParts`: sqlite/sqlite-store.ts, pg/pg-store.ts). Each operation fills a `now` left
 * out from the store's clock and checks its input before it reaches SQL.
 */
import { hostname } from 'node:os';
import type { AccountId, ConsentId } from '@bankdata/core/schemas';
import * as categories from './categories';
import { pruneChanges, readChanges } from './changes';
import * as creations from './consent-creations';
import * as alerts from './alerts';
import { continuityReads } from './continuity';
import { duplicateOps } from './duplicates';
import type { ForgetReport } from './forget';
import { forgetConsent } from './forget-consent';
import { getJobRun, recordJobRun } from './job-runs';
import { acquireLease, readLease, releaseLease, renewLease } from './lease';
import * as pacing from './pacing';
import * as payments from './payments';
import {
  claimAttempt,
  findEarlierPayment,
  findUnansweredAttempt,
  successorOf,
  supersedeAttempt,
} from './payment-requests';
import * as registry from './registry';
import { insertRejects, listRejects } from './rejects';
import { reportReads } from './report-queries';
import * as reports from './reports';
import * as writes from './resource-writes';
import type { BeginInput, BeginResult } from './run-work';
import { finishRun, getRun, listRuns, startRun } from './runs';
import type { SqlRunner } from './sql-runner';
import type { Store, WithNow } from './store';
import { rowTimesSince } from './recent-rows';
import { newestStatementPeriod } from './statement-dates';
import * as syncState from './sync-state';
import { toStoredInstant, type Clock, type Instant } from './time';
import { transferReads } from './transfers';
import { viewReads } from './view-reads';
import type { TransactionWindowInput, WindowCounts } from './window-commit';

/** What a dialect adds to the shared operations: where its SQL truly differs, each with its reason there. */
export interface DialectParts {
  readonly path: string;
  readonly dialect: Store['dialect'];
  /** Integers as numbers, the row types' JS types (the unit writes, registry, runs…). */
  readonly runner: SqlRunner;
  /** Integers exact (BigInt): the reads over the views (continuity, report, export). */
  readonly exact: SqlRunner;
  readonly clock: Clock;
  readonly rateBudget?: Store['rateBudget'];
  close(): Promise<void>;
  commitTransactionWindow(input: TransactionWindowInput): Promise<WindowCounts>;
  /**
   * The runner a consent's unit writes through: each transaction checks, just before it commits,
   * that this process still holds the unit's consent in its run (SQLite: the run's lease,
   * run-work.ts `SqliteRuns`; PostgreSQL: the worker's lease of the consent, pg/run-work.ts
   * `LocalWorkers`), else it is rolled back with LeaseLostError.
   */
  unitRunner(unit: { runId: string | null; consentId: ConsentId }): SqlRunner;
  /** What PostgreSQL stores beside a statement's file columns in their transaction (the bytes). */
  statementFileAlongside?(input: writes.StatementFileInput): Promise<(tx: SqlRunner, now: string) => Promise<void>>;
  /** What PostgreSQL deletes beside a forgotten consent's rows in their transaction (the files' bytes). */
  forgetAlongside?(tx: SqlRunner, report: ForgetReport): Promise<void>;
  beginRun(input: BeginInput): Promise<BeginResult>;
}

export function storeOf(parts: DialectParts): Store {
  const { runner: r, exact, clock } = parts;
  const at = <T extends { now?: Instant }>(input: T): T & { now: Instant } => ({ ...input, now: input.now ?? clock() });
  /** The runner of a consent's unit: fenced by the run that holds it (DialectParts.unitRunner). */
  const unit = (input: { runId: string | null; consentId: ConsentId }): SqlRunner => parts.unitRunner(input);
  /**
   * The files' rows in one transaction of the consent's unit (fenced as every unit write), each
   * after what the dialect stores beside it (PostgreSQL: the bytes).
   */
  const recordStatementFiles = async (
    inputs: readonly WithNow<writes.StatementFileInput>[],
    owner: writes.StatementFileUnit,
  ): Promise<void> => {
    const full = inputs.map(at);
    for (const input of full) writes.checkStatementFile(input);
    const alongside = parts.statementFileAlongside;
    const extra = alongside ? await Promise.all(full.map((input) => alongside(input))) : [];
    return writes.recordStatementFiles(unit(owner), full, extra);
  };
  return {
    path: parts.path,
    dialect: parts.dialect,
    ...(parts.rateBudget ? { rateBudget: parts.rateBudget } : {}),
    now: clock,
    close: () => parts.close(),

    consents: settled({
      add: (consentId, now) => registry.addConsent(r, consentId, now ?? clock()),
      get: (consentId) => registry.getConsent(r, consentId),
      list: (filter) => registry.listConsents(r, filter),
      recordStatus: (consent, opts = {}) =>
        registry.recordConsentStatus(r, consent, at({ raw: opts.raw, now: opts.now })),
      recordOutcome: (consentId, outcome, now) => registry.recordConsentOutcome(r, consentId, outcome, now ?? clock()),
      markEnded: (consentId, reason, now) => registry.markConsentEnded(r, consentId, reason, now ?? clock()),
      forget: (consentId, opts) => forgetConsent(r, consentId, opts, parts.forgetAlongside),
      knownAccounts: (key) => reports.knownAccounts(r, key),
    }),
    creations: settled({
      findOpen: (intentHash, now) => creations.findOpenCreation(r, intentHash, now ?? clock()),
      begin: (input) => creations.beginCreation(r, at(input)),
      recordCreated: (key, response, now) => creations.recordCreated(r, key, response, now ?? clock()),
      recordSettled: (key, status, now) => creations.recordSettled(r, key, status, now ?? clock()),
      recordFailed: (key, code, now) => creations.recordFailed(r, key, code, now ?? clock()),
      get: (key) => creations.getCreation(r, key),
      getOf: (consentId) => creations.getCreationOf(r, consentId),
    }),
    meta: settled({
      save: (meta, opts = {}) => registry.saveBankMeta(r, meta, at({ raw: opts.raw, now: opts.now })),
      get: (bank) => registry.getBankMeta(r, bank),
    }),

    commitAccounts: async (input) => writes.commitAccounts(unit(input), at(input)),
    commitBalances: async (input) => {
      checkAccount(input.accountId, input.rows);
      return writes.commitBalances(unit(input), at(input));
    },
    commitTransactionWindow: async (input) => parts.commitTransactionWindow(at(input)),
    commitStatements: async (input) => {
      checkAccount(input.accountId, input.rows);
      return writes.commitStatements(unit(input), at(input));
    },
    recordStatementFile: async (input, owner) => recordStatementFiles([input], owner),
    recordStatementFiles: async (inputs, owner) => recordStatementFiles(inputs, owner),
    listStatementsWithoutFile: async (key) => writes.listStatementsWithoutFile(r, key),
    newestStatementPeriod: async (key) => newestStatementPeriod(r, key),
    rowTimesSince: async (key) => rowTimesSince(r, key),
    partyLastSeen: async (key) => writes.partyLastSeen(r, key),
    commitParty: async (input) => writes.commitParty(unit(input), at(input)),

    changes: settled({
      read: (options) => readChanges(r, options),
      prune: (options) => pruneChanges(r, at(options)),
    }),
    pacing: settled({
      get: (key) => pacing.getPacing(r, key),
      list: () => pacing.listPacing(r),
      save: (record) => pacing.savePacing(r, at(record)),
      reset: (filter) => pacing.resetPacing(r, filter),
    }),
    syncState: settled({
      getWatermark: (key) => syncState.getWatermark(r, key),
      setWatermark: (key) => syncState.setWatermark(r, at(key)),
      oldestOpenPending: (key, reach) => syncState.oldestOpenPending(r, key, reach),
      getWindowDays: (bank) => syncState.getWindowDays(r, bank),
      setWindowDays: (bank, days, now) => syncState.setWindowDays(r, bank, days, now ?? clock()),
      getWindowKnowledge: (bank) => syncState.getWindowKnowledge(r, bank),
      recordWindowKnowledge: (bank, learned, now) => syncState.recordWindowKnowledge(r, bank, learned, now ?? clock()),
      getRowsPerDay: (key) => syncState.getRowsPerDay(r, key),
      storedDensities: (bank) => syncState.storedDensities(r, bank),
      setRowsPerDay: (key) => syncState.setRowsPerDay(r, at(key)),
    }),
    runs: settled({
      begin: (input) => parts.beginRun(at(input)),
      start: (opts = {}) => {
        const { job } = opts;
        const input = at({ runId: opts.runId, now: opts.now });
        if (!job) return startRun(r, input);
        return r.transaction(async (tx) => {
          const runId = await startRun(tx, input);
          // The process running it: status judges it as it judges the lease's holder (lease.ts).
          await recordJobRun(tx, runId, job.name, job.scheduledFor, { host: hostname(), pid: process.pid });
          return runId;
        });
      },
      finish: (runId, summary, now) => finishRun(r, runId, summary, now ?? clock()),
      get: (runId) => getRun(r, runId),
      list: (limit) => listRuns(r, limit),
      recordJob: (runId, job, scheduledFor) => recordJobRun(r, runId, job, scheduledFor),
      getJob: (runId) => getJobRun(r, runId),
    }),
    rejects: settled({
      insert: (list, opts) =>
        r.transaction((tx) => insertRejects(tx, list, opts.runId, toStoredInstant(opts.now ?? clock()))),
      list: (filter) => listRejects(r, filter),
    }),
    lease: settled({
      acquire: (holder) => acquireLease(r, at(holder)),
      renew: (holder) => renewLease(r, at(holder)),
      release: (holder) => releaseLease(r, holder),
      current: () => readLease(r),
    }),
    payments: settled({
      record: (payment, now) => payments.recordPayment(r, payment, now ?? clock()),
      get: (paymentId) => payments.getPaymentRow(r, paymentId),
      history: (paymentId) => payments.listPaymentHistory(r, paymentId),
      listOpen: () => payments.listOpenPayments(r),
      insertAttempt: (attempt) => payments.insertAttempt(r, at(attempt)),
      updateAttempt: (key, update) => payments.updateAttempt(r, key, at(update)),
      findUnansweredAttempt: (request) => findUnansweredAttempt(r, request),
      getAttempt: (key) => payments.getAttempt(r, key),
      findEarlier: (request, options) => findEarlierPayment(r, request, options),
      claimAttempt: (claim) => claimAttempt(r, at(claim)),
      supersedeAttempt: (takeover) => supersedeAttempt(r, at(takeover)),
      successorOf: (key) => successorOf(r, key),
    }),
    alerts: settled({
      states: (kind) => alerts.listAlertStates(r, kind),
      evaluate: (kinds, judge, now) => alerts.evaluateInTurn(r, kinds, judge, now ?? clock),
      enqueue: (event, now) => alerts.enqueueEvent(r, event, now ?? clock()),
      claimDue: (options) => alerts.claimDue(r, at(options)),
      recordAttempt: (id, result) => alerts.recordAttempt(r, id, at(result)),
      list: (filter) => alerts.listOutbox(r, filter),
      counts: () => alerts.countOutbox(r),
      latestFinishedRuns: (limit) => alerts.latestFinishedRuns(r, limit),
      openFindings: () => alerts.openFindings(r),
      rejectedPayments: () => alerts.rejectedPayments(r),
    }),
    reports: reports.reportsOf(r, clock),
    continuity: continuityReads(exact),
    categories: settled({
      rows: (options) => categories.categoryRows(r, options),
      save: (decisions, now) => categories.saveDecisions(r, decisions, toStoredInstant(now ?? clock())),
      counts: () => categories.categoryCounts(r),
    }),
    duplicates: settled(duplicateOps(exact)),
    reportData: reportReads(exact),
    views: viewReads(exact),
    transfers: transferReads(exact),
  };
}

/**
 * The operations with every failure as a rejected promise, never a synchronous throw (a check of
 * the input or of an instant runs before the first await), so that a caller's `.catch` sees it.
 */
function settled<T extends object>(operations: T): T {
  const wrapped: Record<string, unknown> = {};
  for (const [name, operation] of Object.entries(operations)) {
    wrapped[name] =
      typeof operation === 'function'
        ? (...args: unknown[]) => {
            try {
              return Promise.resolve((operation as (...a: unknown[]) => unknown)(...args));
            } catch (error) {
              return Promise.reject(error instanceof Error ? error : new Error(String(error)));
            }
          }
        : operation;
  }
  return wrapped as T;
}

function checkAccount(accountId: AccountId, rows: readonly { accountId: AccountId }[]): void {
  for (const row of rows) {
    if (row.accountId !== accountId) throw new RangeError(`row of account ${row.accountId} committed as ${accountId}`);
  }
}
