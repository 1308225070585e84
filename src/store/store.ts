/**
 * The Store: one open database and the operations the sync, the CLI and the export use.
 * Synchronous (better-sqlite3); each write unit is one SQLite transaction. Every `now` is
 * optional and defaults to the store's clock (`openStore(path, { now })`).
 */
import type Database from 'better-sqlite3';
import type { AccountId, BankMeta, BankName, Consent, ConsentId, StatementId } from '../api/schemas';
import { inWriteTransaction, type BankdataDb } from './db';
import { acquireLease, releaseLease, renewLease, type AcquireResult, type LeaseHolder } from './lease';
import { openDatabase, type OpenDatabaseOptions } from './open';
import {
  addConsent,
  getBankMeta,
  getConsent,
  listConsents,
  markConsentEnded,
  recordConsentOutcome,
  recordConsentStatus,
  saveBankMeta,
  type AddConsentResult,
  type ConsentRecord,
  type StoredBankMeta,
} from './registry';
import { insertRejectRows, listRejects } from './rejects';
import {
  commitAccounts,
  commitBalances,
  commitParty,
  commitStatements,
  latestStatementStart,
  listStatementsWithoutFile,
  partyLastSeen,
  recordStatementFile,
  type InsertCounts,
  type PartyInput,
  type StatementFileInput,
  type UnitInput,
  type UpsertCounts,
} from './resource-writes';
import type { AccountRow, BalanceRow, RejectInput, RejectRow, StatementRow } from './rows';
import { finishRun, getRun, listRuns, startRun, type RunRow, type RunSummary } from './runs';
import type { ConsentOutcome } from './schema';
import {
  getRowsPerDay,
  getWatermark,
  getWindowDays,
  getWindowKnowledge,
  oldestOpenPending,
  recordWindowKnowledge,
  setRowsPerDay,
  setWatermark,
  setWindowDays,
  type SyncResource,
  type WindowKnowledge,
} from './sync-state';
import { systemClock, toStoredInstant, type Clock, type Instant } from './time';
import { commitTransactionWindow, type TransactionWindowInput, type WindowCounts } from './window-commit';

/** `now` may be left out: the store's clock fills it. */
type WithNow<T extends { now: Instant }> = Omit<T, 'now'> & { now?: Instant };

export interface Store {
  /** Absolute path of the database file. */
  readonly path: string;
  /** For read queries over the views (export) and for tests. */
  readonly db: BankdataDb;
  readonly sqlite: Database.Database;
  now(): Date;
  close(): void;

  consents: {
    add(consentId: ConsentId, now?: Instant): AddConsentResult;
    get(consentId: ConsentId): ConsentRecord | null;
    list(filter?: { active?: boolean }): ConsentRecord[];
    recordStatus(consent: Consent, options?: { raw?: unknown; now?: Instant }): void;
    recordOutcome(consentId: ConsentId, outcome: ConsentOutcome, now?: Instant): void;
    markEnded(consentId: ConsentId, reason: string, now?: Instant): void;
  };
  meta: {
    save(meta: BankMeta, options?: { raw?: unknown; now?: Instant }): void;
    get(bank: BankName): StoredBankMeta | null;
  };

  commitAccounts(input: WithNow<UnitInput<AccountRow>>): UpsertCounts;
  commitBalances(input: WithNow<UnitInput<BalanceRow>> & { accountId: AccountId }): InsertCounts;
  commitTransactionWindow(input: WithNow<TransactionWindowInput>): WindowCounts;
  commitStatements(input: WithNow<UnitInput<StatementRow>> & { accountId: AccountId }): UpsertCounts;
  recordStatementFile(input: WithNow<StatementFileInput>): void;
  listStatementsWithoutFile(key: { bank: BankName; accountId: AccountId }): StatementId[];
  /** The `StartDateTime` (stored instant) of the newest statement held for the account. */
  latestStatementStart(key: { bank: BankName; accountId: AccountId }): Promise<string | null>;
  /** When the customer's (accountId null) or the account's party was last read, or null. */
  partyLastSeen(key: { bank: BankName; consentId: ConsentId; accountId: AccountId | null }): Promise<string | null>;
  commitParty(input: WithNow<PartyInput>): UpsertCounts;

  syncState: {
    getWatermark(key: { bank: BankName; accountId: AccountId; consentId: ConsentId; resource?: SyncResource }): string | null;
    setWatermark(key: { bank: BankName; accountId: AccountId; consentId: ConsentId; resource?: SyncResource; watermark: Instant | null; now?: Instant }): void;
    oldestOpenPending(key: { bank: BankName; accountId: AccountId }): string | null;
    getWindowDays(bank: BankName): number | null;
    setWindowDays(bank: BankName, windowDays: number, now?: Instant): void;
    /** What the bank's transaction queries taught (BDT263 and accepted sizes). */
    getWindowKnowledge(bank: BankName): Promise<WindowKnowledge>;
    recordWindowKnowledge(bank: BankName, learned: { acceptedRows?: number | null; refusedRows?: number | null; windowDays?: number | null }, now?: Instant): Promise<void>;
    getRowsPerDay(key: { bank: BankName; accountId: AccountId; consentId: ConsentId }): Promise<number | null>;
    setRowsPerDay(key: { bank: BankName; accountId: AccountId; consentId: ConsentId; rowsPerDay: number; now?: Instant }): Promise<void>;
  };
  runs: {
    start(options?: { runId?: string; now?: Instant }): string;
    finish(runId: string, summary: RunSummary, now?: Instant): void;
    get(runId: string): RunRow | null;
    list(limit?: number): RunRow[];
  };
  rejects: {
    /** Rejects outside a unit commit (e.g. a consent record that failed its schema). */
    insert(rejects: readonly RejectInput[], options: { runId: string | null; now?: Instant }): number;
    list(filter?: { runId?: string }): RejectRow[];
  };
  lease: {
    acquire(holder: LeaseHolder & { now?: Instant }): AcquireResult;
    renew(holder: LeaseHolder & { now?: Instant }): boolean;
    release(holder: LeaseHolder): boolean;
  };
}

export interface OpenStoreOptions extends OpenDatabaseOptions {
  /** The clock for every `now` left out (tests fix it). */
  now?: Clock;
}

/** Opens the database (writing: creating it, its directory and the schema as needed; see open.ts). */
export function openStore(path: string, options: OpenStoreOptions = {}): Store {
  const { sqlite, db, path: file } = openDatabase(path, options);
  const clock = options.now ?? systemClock;
  const at = (now: Instant | undefined): Instant => now ?? clock();

  return {
    path: file,
    db,
    sqlite,
    now: clock,
    close: () => sqlite.close(),

    consents: {
      add: (consentId, now) => addConsent(db, consentId, at(now)),
      get: (consentId) => getConsent(db, consentId),
      list: (filter) => listConsents(db, filter),
      recordStatus: (consent, opts = {}) => recordConsentStatus(db, consent, { raw: opts.raw, now: at(opts.now) }),
      recordOutcome: (consentId, outcome, now) => recordConsentOutcome(db, consentId, outcome, at(now)),
      markEnded: (consentId, reason, now) => markConsentEnded(db, consentId, reason, at(now)),
    },
    meta: {
      save: (meta, opts = {}) => saveBankMeta(db, meta, { raw: opts.raw, now: at(opts.now) }),
      get: (bank) => getBankMeta(db, bank),
    },

    commitAccounts: (input) => commitAccounts(db, { ...input, now: at(input.now) }),
    commitBalances: (input) => {
      checkAccount(input.accountId, input.rows);
      return commitBalances(db, { ...input, now: at(input.now) });
    },
    commitTransactionWindow: (input) => commitTransactionWindow(db, { ...input, now: at(input.now) }),
    commitStatements: (input) => {
      checkAccount(input.accountId, input.rows);
      return commitStatements(db, { ...input, now: at(input.now) });
    },
    recordStatementFile: (input) => recordStatementFile(db, { ...input, now: at(input.now) }),
    listStatementsWithoutFile: (key) => listStatementsWithoutFile(db, key),
    latestStatementStart: (key) => latestStatementStart(db, key),
    partyLastSeen: (key) => partyLastSeen(db, key),
    commitParty: (input) => commitParty(db, { ...input, now: at(input.now) }),

    syncState: {
      getWatermark: (key) => getWatermark(db, key),
      setWatermark: (key) => setWatermark(db, { ...key, now: at(key.now) }),
      oldestOpenPending: (key) => oldestOpenPending(db, key),
      getWindowDays: (bank) => getWindowDays(db, bank),
      setWindowDays: (bank, days, now) => setWindowDays(db, bank, days, at(now)),
      getWindowKnowledge: (bank) => getWindowKnowledge(db, bank),
      recordWindowKnowledge: (bank, learned, now) => recordWindowKnowledge(db, bank, learned, at(now)),
      getRowsPerDay: (key) => getRowsPerDay(db, key),
      setRowsPerDay: (key) => setRowsPerDay(db, { ...key, now: at(key.now) }),
    },
    runs: {
      start: (opts = {}) => startRun(db, { runId: opts.runId, now: at(opts.now) }),
      finish: (runId, summary, now) => finishRun(db, runId, summary, at(now)),
      get: (runId) => getRun(db, runId),
      list: (limit) => listRuns(db, limit),
    },
    rejects: {
      insert: (rejects, opts) =>
        inWriteTransaction(db, (tx) => insertRejectRows(tx, rejects, opts.runId, toStoredInstant(at(opts.now)))),
      list: (filter) => listRejects(db, filter),
    },
    lease: {
      acquire: (holder) => acquireLease(db, { ...holder, now: at(holder.now) }),
      renew: (holder) => renewLease(db, { ...holder, now: at(holder.now) }),
      release: (holder) => releaseLease(db, holder),
    },
  };
}

function checkAccount(accountId: AccountId, rows: readonly { accountId: AccountId }[]): void {
  for (const row of rows) {
    if (row.accountId !== accountId) throw new RangeError(`row of account ${row.accountId} committed as ${accountId}`);
  }
}
