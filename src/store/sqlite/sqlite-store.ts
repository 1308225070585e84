/**
 * The SQLite implementation of the Store (store.ts) over better-sqlite3 and drizzle. The driver
 * is synchronous: each operation runs its one transaction at once and hands back a settled
 * promise, so callers are written for an asynchronous driver. `SqliteStore` adds the raw
 * handles for tests only; domain code receives a `Store`.
 */
import type Database from 'better-sqlite3';
import type { AccountId } from '@bankdata/core/schemas';
import { inWriteTransaction, type BankdataDb } from './db';
import * as creations from '../consent-creations';
import { continuityReads } from '../continuity';
import { forgetConsentData } from '../forget';
import { getJobRun, recordJobRun } from '../job-runs';
import { acquireLease, readLease, releaseLease, renewLease } from '../lease';
import { openDatabase, type OpenDatabaseOptions } from './open';
import { findEarlierPayment, findUnansweredAttempt } from '../payment-requests';
import * as payments from '../payments';
import * as registry from '../registry';
import { insertRejectRows, listRejects } from '../rejects';
import { reportReads } from '../report-queries';
import * as reports from '../reports';
import * as writes from '../resource-writes';
import { beginSqliteRun } from '../run-work';
import { finishRun, getRun, listRuns, startRun } from '../runs';
import type { Store } from '../store';
import { sqliteRunner } from '../sql-runner';
import * as syncState from '../sync-state';
import { systemClock, toStoredInstant, type Clock, type Instant } from '../time';
import { viewReads } from '../view-reads';
import { commitTransactionWindow } from '../window-commit';

export interface OpenStoreOptions extends OpenDatabaseOptions {
  /** The clock for every `now` left out (tests fix it). */
  now?: Clock;
}

/** The SQLite store with its raw handles, for tests that look at tables directly. */
export interface SqliteStore extends Store {
  readonly db: BankdataDb;
  readonly sqlite: Database.Database;
}

/** Opens the database (writing: creating it, its directory and the schema as needed; see open.ts). */
export async function openStore(path: string, options: OpenStoreOptions = {}): Promise<SqliteStore> {
  const { sqlite, db, path: file } = openDatabase(path, options);
  const runner = sqliteRunner(sqlite);
  const clock = options.now ?? systemClock;
  const at = (now: Instant | undefined): Instant => now ?? clock();
  // Each operation: its synchronous unit, run now, its result or error as a promise.
  const unit =
    <A extends unknown[], R>(fn: (...args: A) => R) =>
    (...args: A): Promise<R> => {
      try {
        return Promise.resolve(fn(...args));
      } catch (error) {
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
    };

  // The reads written once for both dialects (continuity, report, export), integers exact.
  const exact = sqliteRunner(sqlite, { safeIntegers: true });

  return {
    path: file,
    dialect: 'sqlite',
    db,
    sqlite,
    now: clock,
    close: unit(() => {
      sqlite.close();
    }),

    consents: {
      add: unit((consentId, now) => registry.addConsent(db, consentId, at(now))),
      get: unit((consentId) => registry.getConsent(db, consentId)),
      list: unit((filter) => registry.listConsents(db, filter)),
      recordStatus: unit((consent, opts = {}) =>
        registry.recordConsentStatus(db, consent, { raw: opts.raw, now: at(opts.now) }),
      ),
      recordOutcome: unit((consentId, outcome, now) => registry.recordConsentOutcome(db, consentId, outcome, at(now))),
      markEnded: unit((consentId, reason, now) => registry.markConsentEnded(db, consentId, reason, at(now))),
      forget: (consentId, opts) => forgetConsentData(sqlite, consentId, opts),
      knownAccounts: (key) => reports.knownAccounts(runner, key),
    },
    creations: {
      findOpen: unit((intentHash, now) => creations.findOpenCreation(db, intentHash, at(now))),
      begin: unit((input) => creations.beginCreation(db, { ...input, now: at(input.now) })),
      recordCreated: unit((key, response, now) => creations.recordCreated(db, key, response, at(now))),
      recordSettled: unit((key, status, now) => creations.recordSettled(db, key, status, at(now))),
      recordFailed: unit((key, code, now) => creations.recordFailed(db, key, code, at(now))),
      get: unit((key) => creations.getCreation(db, key)),
      getOf: unit((consentId) => creations.getCreationOf(db, consentId)),
    },
    meta: {
      save: unit((meta, opts = {}) => registry.saveBankMeta(db, meta, { raw: opts.raw, now: at(opts.now) })),
      get: unit((bank) => registry.getBankMeta(db, bank)),
    },

    commitAccounts: unit((input) => writes.commitAccounts(db, { ...input, now: at(input.now) })),
    commitBalances: unit((input) => {
      checkAccount(input.accountId, input.rows);
      return writes.commitBalances(db, { ...input, now: at(input.now) });
    }),
    commitTransactionWindow: unit((input) => commitTransactionWindow(db, { ...input, now: at(input.now) })),
    commitStatements: unit((input) => {
      checkAccount(input.accountId, input.rows);
      return writes.commitStatements(db, { ...input, now: at(input.now) });
    }),
    recordStatementFile: unit((input) => writes.recordStatementFile(db, { ...input, now: at(input.now) })),
    listStatementsWithoutFile: unit((key) => writes.listStatementsWithoutFile(db, key)),
    latestStatementStart: (key) => writes.latestStatementStart(db, key),
    partyLastSeen: (key) => writes.partyLastSeen(db, key),
    commitParty: unit((input) => writes.commitParty(db, { ...input, now: at(input.now) })),

    syncState: {
      getWatermark: unit((key) => syncState.getWatermark(db, key)),
      setWatermark: unit((key) => syncState.setWatermark(db, { ...key, now: at(key.now) })),
      oldestOpenPending: unit((key) => syncState.oldestOpenPending(db, key)),
      getWindowDays: unit((bank) => syncState.getWindowDays(db, bank)),
      setWindowDays: unit((bank, days, now) => syncState.setWindowDays(db, bank, days, at(now))),
      getWindowKnowledge: (bank) => syncState.getWindowKnowledge(db, bank),
      recordWindowKnowledge: (bank, learned, now) => syncState.recordWindowKnowledge(db, bank, learned, at(now)),
      getRowsPerDay: (key) => syncState.getRowsPerDay(db, key),
      maxRowsPerDay: (bank) => syncState.maxRowsPerDay(db, bank),
      setRowsPerDay: (key) => syncState.setRowsPerDay(db, { ...key, now: at(key.now) }),
    },
    runs: {
      begin: unit((input) => beginSqliteRun(db, { ...input, now: at(input.now) })),
      start: unit((opts = {}) => startRun(db, { runId: opts.runId, now: at(opts.now) })),
      finish: unit((runId, summary, now) => finishRun(db, runId, summary, at(now))),
      get: unit((runId) => getRun(db, runId)),
      list: unit((limit) => listRuns(db, limit)),
      recordJob: unit((runId, job, scheduledFor) => recordJobRun(db, runId, job, scheduledFor)),
      getJob: unit((runId) => getJobRun(db, runId)),
    },
    rejects: {
      insert: unit((rejects, opts) =>
        inWriteTransaction(db, (tx) => insertRejectRows(tx, rejects, opts.runId, toStoredInstant(at(opts.now)))),
      ),
      list: unit((filter) => listRejects(db, filter)),
    },
    lease: {
      acquire: unit((holder) => acquireLease(db, { ...holder, now: at(holder.now) })),
      renew: unit((holder) => renewLease(db, { ...holder, now: at(holder.now) })),
      release: unit((holder) => releaseLease(db, holder)),
      current: () => readLease(db),
    },
    payments: {
      record: unit((payment, now) => payments.recordPayment(db, payment, at(now))),
      get: unit((paymentId) => payments.getPaymentRow(db, paymentId)),
      history: unit((paymentId) => payments.listPaymentHistory(db, paymentId)),
      listOpen: unit(() => payments.listOpenPayments(db)),
      insertAttempt: unit((attempt) => payments.insertAttempt(db, { ...attempt, now: at(attempt.now) })),
      updateAttempt: unit((key, update) => payments.updateAttempt(db, key, { ...update, now: at(update.now) })),
      findUnansweredAttempt: (request) => findUnansweredAttempt(runner, request),
      getAttempt: unit((key) => payments.getAttempt(db, key)),
      findEarlier: (request) => findEarlierPayment(runner, request),
    },
    reports: reports.reportsOf(runner),
    continuity: continuityReads(exact),
    reportData: reportReads(exact),
    views: viewReads(exact),
  };
}

function checkAccount(accountId: AccountId, rows: readonly { accountId: AccountId }[]): void {
  for (const row of rows) {
    if (row.accountId !== accountId) throw new RangeError(`row of account ${row.accountId} committed as ${accountId}`);
  }
}
