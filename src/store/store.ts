/**
 * The Store: the one way from domain code to the database. Every operation returns a promise
 * and is one transaction (a unit: it commits whole or not at all), so no caller depends on the
 * driver being synchronous and a second dialect (PostgreSQL) implements this interface without
 * changing a caller. `openStore` (sqlite-store.ts) is the SQLite implementation. Every `now` is
 * optional and defaults to the store's clock. Rows come back typed (drizzle's table types) or
 * parsed (reports.ts); no SQL leaves src/store.
 */
import type { BudgetCounts } from '../api/pacer';
import type {
  AlertEventInput,
  AlertJudge,
  AlertKind,
  AlertOutboxRow,
  AlertStateRow,
  AttemptResult,
  FinishedRun,
  OpenFinding,
  RejectedPayment,
} from './alerts';
import type { AlertDeliveryState } from './sqlite/schema';
import type { ChangePage, PruneResult } from './changes';
import type { PacingKey, PacingRecord } from './pacing';
import type { Payment } from '@bankdata/core/payment-schemas';
import type {
  AccountId,
  BankMeta,
  BankName,
  Consent,
  ConsentId,
  ConsentStatus,
  CreateConsentResponse,
  StatementId,
} from '@bankdata/core/schemas';
import type { CategoryCounts, CategoryInputRow, DecisionWrite, TransactionKey } from './categories';
import type { BeginCreationInput, ConsentCreationRow } from './consent-creations';
import type { ContinuityReads } from './continuity';
import type { DuplicateOps } from './duplicates';
import type { ForgetReport } from './forget';
import type { JobRunRow } from './job-runs';
import type { AcquireResult, LeaseHolder, LeaseRow, LeaseTerm } from './lease';
import type { BeginInput, BeginResult } from './run-work';
import type {
  AttemptClaim,
  AttemptClaimInput,
  Takeover,
  TakeoverInput,
  EarlierPayment,
  PaymentRequestKey,
  UnansweredAttempt,
} from './payment-requests';
import type { PaymentAttemptRow, PaymentAttemptUpdate, PaymentRow, PaymentStatusRow } from './payments';
import type { AddConsentResult, ConsentRecord, StoredBankMeta } from './registry';
import type {
  ConsentViewRow,
  LatestRun,
  PaymentMatchRow,
  PaymentViewRow,
  ReconciliationCounts,
  RejectCount,
  StoreTotals,
  UnmatchedPaymentRow,
  UnresolvedCandidateRow,
} from './reports';
import type {
  InsertCounts,
  PartyInput,
  StatementFileInput,
  StatementFileUnit,
  UnitInput,
  UpsertCounts,
} from './resource-writes';
import type { AccountRow, BalanceRow, RejectInput, RejectRow, StatementRow } from './rows';
import type { ReportReads } from './report-queries';
import type { RunRow, RunSummary } from './runs';
import type { ConsentOutcome } from './sqlite/schema';
import type { StatementPeriod } from './statement-dates';
import type { PendingReach, StoredDensity, SyncResource, WindowKnowledge } from './sync-state';
import type { Clock, Instant } from './time';
import type { ViewReads } from './view-reads';
import type { TransferReads } from './transfers';
import type { TransactionWindowInput, WindowCounts } from './window-commit';

/** `now` may be left out: the store's clock fills it. */
export type WithNow<T extends { now: Instant }> = Omit<T, 'now'> & { now?: Instant };

type WatermarkKey = { bank: BankName; accountId: AccountId; consentId: ConsentId; resource?: SyncResource };
type AccountKey = { bank: BankName; accountId: AccountId };

export interface Store {
  /** Where the database is (a file path for SQLite), for messages. */
  readonly path: string;
  readonly dialect: 'sqlite' | 'postgres';
  /**
   * PostgreSQL only: the pacing budget the workers of one client share (pg/work-queue.ts
   * reserveRequestSlotAt, countRefusal; src/api/pacer.ts SharedBudget): reserves the next send
   * slot at `intervalMs` and returns the wait in ms with the client's counts; counts a 429.
   */
  readonly rateBudget?: {
    reserve(key: string, intervalMs: number): Promise<BudgetCounts & { waitMs: number }>;
    refuse(key: string): Promise<BudgetCounts>;
  };
  /** The store's clock: the `now` of every operation that is given none. */
  readonly now: Clock;
  close(): Promise<void>;

  consents: {
    add(consentId: ConsentId, now?: Instant): Promise<AddConsentResult>;
    get(consentId: ConsentId): Promise<ConsentRecord | null>;
    list(filter?: { active?: boolean }): Promise<ConsentRecord[]>;
    recordStatus(consent: Consent, options?: { raw?: unknown; now?: Instant }): Promise<void>;
    recordOutcome(consentId: ConsentId, outcome: ConsentOutcome, now?: Instant): Promise<void>;
    markEnded(consentId: ConsentId, reason: string, now?: Instant): Promise<void>;
    /** Deletes (or, dry, counts) an ended consent's rows, payloads and file list; see forget.ts. */
    forget(consentId: ConsentId, options: { dryRun: boolean }): Promise<ForgetReport>;
    /** Accounts known for a consent (its stored accounts and its watermarks). */
    knownAccounts(key: { consentId: ConsentId; bank: BankName }): Promise<AccountId[]>;
  };
  /** Consent creations with their idempotency keys (`bankdata consents create`). */
  creations: {
    findOpen(intentHash: string, now?: Instant): Promise<ConsentCreationRow | null>;
    begin(input: WithNow<BeginCreationInput>): Promise<ConsentCreationRow>;
    recordCreated(key: string, response: CreateConsentResponse, now?: Instant): Promise<void>;
    recordSettled(key: string, status: ConsentStatus | 'PollTimeout', now?: Instant): Promise<void>;
    recordFailed(key: string, code: string, now?: Instant): Promise<void>;
    get(key: string): Promise<ConsentCreationRow | null>;
    getOf(consentId: ConsentId): Promise<ConsentCreationRow | null>;
  };
  meta: {
    save(meta: BankMeta, options?: { raw?: unknown; now?: Instant }): Promise<void>;
    get(bank: BankName): Promise<StoredBankMeta | null>;
  };

  commitAccounts(input: WithNow<UnitInput<AccountRow>>): Promise<UpsertCounts>;
  commitBalances(input: WithNow<UnitInput<BalanceRow>> & { accountId: AccountId }): Promise<InsertCounts>;
  commitTransactionWindow(input: WithNow<TransactionWindowInput>): Promise<WindowCounts>;
  commitStatements(input: WithNow<UnitInput<StatementRow>> & { accountId: AccountId }): Promise<UpsertCounts>;
  /**
   * A statement's file (already durable on disk), written as a unit of `unit`'s consent in its run:
   * fenced as every unit write is (store-of.ts DialectParts.unitRunner); `runId` null outside a sync.
   */
  recordStatementFile(input: WithNow<StatementFileInput>, unit: StatementFileUnit): Promise<void>;
  /** Several statements' files (each already durable on disk) in one transaction: all or none. */
  recordStatementFiles(inputs: readonly WithNow<StatementFileInput>[], unit: StatementFileUnit): Promise<void>;
  listStatementsWithoutFile(key: AccountKey): Promise<StatementId[]>;
  /** Booking instants (ms, oldest first) of the account's rows held since `since`, the newest `limit` (recent-rows.ts). */
  rowTimesSince(
    key: AccountKey & { since: Instant; limit: number; indicator?: 'Credit' | 'Debit' | null },
  ): Promise<number[]>;
  /**
   * The statement the account's next one is planned from (its type, start and end): the newest
   * periodic one, else the newest of any type; null when none is held (statement-dates.ts).
   */
  newestStatementPeriod(key: AccountKey): Promise<StatementPeriod | null>;
  /** When the customer's (accountId null) or the account's party was last read, or null. */
  partyLastSeen(key: { bank: BankName; consentId: ConsentId; accountId: AccountId | null }): Promise<string | null>;
  commitParty(input: WithNow<PartyInput>): Promise<UpsertCounts>;

  /** The change feed of v_transactions (changes.ts, docs/changes.md). */
  changes: {
    /** One page after the cursor (none: from the start), at most `limit` changes; a bad or too old cursor throws a UsageError. */
    read(options: { since?: string; limit: number }): Promise<ChangePage>;
    /** Deletes the entries logged more than `keepDays` days ago; cursors before them are then too old. */
    prune(options: { keepDays: number; now?: Instant }): Promise<PruneResult>;
  };
  /** What the pacer learned of a client's rate limit, per bank API and client (pacing.ts). */
  pacing: {
    get(key: PacingKey): Promise<PacingRecord | null>;
    list(): Promise<PacingRecord[]>;
    save(record: PacingKey & { rate: number; ceiling: number | null; now?: Instant }): Promise<void>;
    /** Forgets the stored pacing of one API, or of all; the rows removed. */
    reset(filter?: { api?: string }): Promise<number>;
  };
  syncState: {
    getWatermark(key: WatermarkKey): Promise<string | null>;
    setWatermark(key: WatermarkKey & { watermark: Instant | null; now?: Instant }): Promise<void>;
    /** The oldest open pending row's booking instant, of those a consent can read again (`reach`). */
    oldestOpenPending(key: AccountKey, reach?: PendingReach): Promise<string | null>;
    getWindowDays(bank: BankName): Promise<number | null>;
    setWindowDays(bank: BankName, windowDays: number, now?: Instant): Promise<void>;
    /** What the bank's transaction queries taught (BDT263 and accepted sizes). */
    getWindowKnowledge(bank: BankName): Promise<WindowKnowledge>;
    recordWindowKnowledge(
      bank: BankName,
      learned: { acceptedRows?: number | null; refusedRows?: number | null; windowDays?: number | null },
      now?: Instant,
    ): Promise<void>;
    getRowsPerDay(key: { bank: BankName; accountId: AccountId; consentId: ConsentId }): Promise<number | null>;
    /** Every rows-per-day reading stored for the bank's accounts (the priors of a new account's first window). */
    storedDensities(bank: BankName): Promise<StoredDensity[]>;
    setRowsPerDay(key: {
      bank: BankName;
      accountId: AccountId;
      consentId: ConsentId;
      rowsPerDay: number;
      now?: Instant;
    }): Promise<void>;
  };
  runs: {
    /**
     * Joins the open run or opens one with these consents (run-work.ts). SQLite: under the
     * single-run lease, refused while another live process holds it; PostgreSQL: shared by workers.
     */
    begin(input: Omit<BeginInput, 'now'> & { now?: Instant }): Promise<BeginResult>;
    /**
     * Opens a run. With `job` (a scheduled job's run, src/jobs/recorded-run.ts) the run and its
     * job_runs tag are written in one transaction: a run is never left untagged, where it would
     * pass for a sync from the command line (status, the report's last run, alerts' run:sync).
     */
    start(options?: { runId?: string; now?: Instant; job?: { name: string; scheduledFor: Instant } }): Promise<string>;
    finish(runId: string, summary: RunSummary, now?: Instant): Promise<void>;
    get(runId: string): Promise<RunRow | null>;
    list(limit?: number): Promise<RunRow[]>;
    /** Which scheduled job a run was (`bankdata schedule`). */
    recordJob(runId: string, job: string, scheduledFor: Instant): Promise<void>;
    getJob(runId: string): Promise<JobRunRow | null>;
  };
  rejects: {
    /** Rejects outside a unit commit (e.g. a consent record that failed its schema). */
    insert(rejects: readonly RejectInput[], options: { runId: string | null; now?: Instant }): Promise<number>;
    list(filter?: { runId?: string }): Promise<RejectRow[]>;
  };
  lease: {
    acquire(holder: LeaseHolder & LeaseTerm & { now?: Instant }): Promise<AcquireResult>;
    renew(holder: LeaseHolder & LeaseTerm & { now?: Instant }): Promise<boolean>;
    release(holder: LeaseHolder): Promise<boolean>;
    /** The lease as stored (expired or not), or null: status tells a live run from a killed one. */
    current(): Promise<LeaseRow | null>;
  };
  payments: {
    /** Upserts the payment as the API showed it and adds its status to the history. */
    record(payment: Payment, now?: Instant): Promise<PaymentRow>;
    get(paymentId: string): Promise<PaymentRow | null>;
    history(paymentId: string): Promise<PaymentStatusRow[]>;
    /** Payments not yet in a final status, oldest first. */
    listOpen(): Promise<PaymentRow[]>;
    /** Written before the request is sent: a crash after it is resumed with this key. */
    insertAttempt(attempt: {
      idempotencyKey: string;
      consentId: string;
      requestJson: string;
      now?: Instant;
    }): Promise<void>;
    updateAttempt(key: string, update: WithNow<PaymentAttemptUpdate>): Promise<void>;
    /** The newest attempt of the same payment (payment-requests.ts) sent without a stored answer, or null. */
    findUnansweredAttempt(request: PaymentRequestKey): Promise<UnansweredAttempt | null>;
    getAttempt(key: string): Promise<PaymentAttemptRow | null>;
    /** The newest payment an earlier attempt of the same payment made (payment-requests.ts), or null. */
    findEarlier(
      request: PaymentRequestKey,
      options?: { standing?: boolean; except?: readonly string[] },
    ): Promise<EarlierPayment | null>;
    /**
     * `payments create`'s guard in one transaction under the consent's lock (payment-requests.ts):
     * the earlier payment, an unreadable attempt or the unanswered attempt of the same payment,
     * else the new attempt inserted. Two runs at once cannot both insert.
     */
    claimAttempt(claim: WithNow<AttemptClaimInput>): Promise<AttemptClaim>;
    /**
     * The bank will not pay the request under this run's key (BP710 Rejected, BP702): the fresh
     * key takes it over, unless another run's already did (payment-requests.ts), in one transaction
     * under the consent's lock.
     */
    supersedeAttempt(takeover: WithNow<TakeoverInput>): Promise<Takeover>;
    /** The last attempt of a key's takeovers, or null (payment-requests.ts `successorOf`). */
    successorOf(key: string): Promise<PaymentAttemptRow | null>;
  };
  /** Reads over the public views (status, payments show and reconcile, the demo). */
  reports: {
    consents(): Promise<ConsentViewRow[]>;
    /**
     * The latest runs, newest first, each with its job and, on PostgreSQL, its workers; a run
     * with no end whose holder is gone is 'interrupted' (reports.ts `latestRunRows`): status, the
     * report. `syncOnly`: the syncs alone (no job, or the nightly sync).
     */
    latestRuns(limit: number, options?: { syncOnly?: boolean }): Promise<LatestRun[]>;
    rejectCounts(): Promise<RejectCount[]>;
    payment(paymentId: string): Promise<PaymentViewRow | null>;
    paymentMatch(paymentId: string): Promise<PaymentMatchRow | null>;
    unmatchedPayments(): Promise<UnmatchedPaymentRow[]>;
    unresolvedCandidates(): Promise<UnresolvedCandidateRow[]>;
    reconciliationCounts(): Promise<ReconciliationCounts>;
    totals(): Promise<StoreTotals>;
  };
  /**
   * The continuity check's reads and its findings (src/check; docs/continuity.md); continuity.ts.
   * Amounts in exact integer units (1/100000 of the major unit) as BigInt.
   */
  continuity: {
    /** Every account (or the one asked for) with its currency, by bank and id. */
    listAccounts: ContinuityReads['listAccounts'];
    /** The consents through which the account's transactions were synced (a watermark is set), by start. */
    transactionCoverage: ContinuityReads['transactionCoverage'];
    /** The account's booked balance snapshots from `from` on, oldest first, with the booked sums between them. */
    balanceSnapshots: ContinuityReads['balanceSnapshots'];
    /** The latest booking instant among the account's rows, booked or pending, or null. */
    latestBookingDateTime: ContinuityReads['latestBookingDateTime'];
    /**
     * The running-balance breaks between rows alone at their instant and the row before them in
     * booking order, from `from` on, up to `horizon`: one pass in SQL, the breaks only.
     */
    runningSteps: ContinuityReads['runningSteps'];
    /** The booking instants from `from` on that two or more booked rows share, in order. */
    sharedInstants: ContinuityReads['sharedInstants'];
    /** The row before a shared instant and the rows from it to the next row alone at its instant (units). */
    bookedRowsAround: ContinuityReads['bookedRowsAround'];
    /** True when two or more booked rows in (from, to] look alike (instant, amount, text) and each is `units`. */
    hasLookAlikeRows: ContinuityReads['hasLookAlikeRows'];
    /** True when a pending row (open or since removed) of `units` was booked within [from − 3 days, to]. */
    /** Every pending row of the account (instant, units), by instant: the check's pending-row rule (check-accounts.ts pendingLookup) answers from them. */
    pendingAmounts: ContinuityReads['pendingAmounts'];
    /** Replaces the findings of the accounts checked, in one transaction. */
    replaceFindings: ContinuityReads['replaceFindings'];
    /** Rows of v_continuity (amount as its exact text), per account and date. */
    listFindings: ContinuityReads['listFindings'];
    /** How many findings the latest checks left. */
    countFindings: ContinuityReads['countFindings'];
  };
  /** Each transaction's category and payee (src/categories; docs/categories.md); categories.ts. */
  categories: {
    /**
     * The next `limit` rows (not removed) after `after` in key order, with their stored decision:
     * every row (`all`), else those without one or changed by a sync since theirs.
     */
    rows(options: { after: TransactionKey | null; limit: number; all: boolean }): Promise<CategoryInputRow[]>;
    /** Inserts or replaces the decisions in one transaction; returns how many. */
    save(decisions: readonly DecisionWrite[], now?: Instant): Promise<number>;
    /** Rows of v_transactions per category_source and per category. */
    counts(): Promise<CategoryCounts>;
  };
  /**
   * Duplicates the bank served (docs/continuity.md "Duplicates the bank served"): the check's
   * look-ups that name the suspected row, and duplicate_suspicions (v_duplicates); duplicates.ts.
   */
  duplicates: DuplicateOps;
  /** The HTML report's aggregates (src/report); report-queries.ts. */
  reportData: {
    /** v_accounts rows (or the one asked for), by bank and id. */
    accounts: ReportReads['accounts'];
    /** Booked money in and out per NZ booking date, oldest first, in exact units. */
    dailyFlows: ReportReads['dailyFlows'];
    /** The part of dailyFlows that is own-account transfers (linked in v_transfers), per NZ date. */
    transferFlows: ReportReads['transferFlows'];
    /** The part of dailyFlows the check suspects the bank served twice (open suspicions, not transfers), per NZ date. */
    duplicateFlows: ReportReads['duplicateFlows'];
    /** Booked debits per category and NZ month between two NZ dates, own-account transfers and suspected duplicates left out, in units. */
    categorySpend: ReportReads['categorySpend'];
    /** The latest booked balance held, else the latest running balance a row carries, in units; or null. */
    balanceAnchor: ReportReads['balanceAnchor'];
    /** v_consents rows, by bank and id. */
    consents: ReportReads['consents'];
    /** How many payments are held. */
    countPayments: ReportReads['countPayments'];
  };
  /** Alerts (docs/alerts.md): the subjects' last states, the outbox, what the evaluation judges; alerts.ts. */
  alerts: {
    states(kind?: string): Promise<AlertStateRow[]>;
    /**
     * One evaluation, in one transaction behind the evaluation's lock (PostgreSQL: an advisory
     * lock; SQLite: BEGIN IMMEDIATE): the facts of `kinds` read, `judge` given them and the
     * clock's time, each subject's state written and the events of those whose state changed
     * queued. Evaluations at once take turns, each judging what the one before committed.
     * Returns the event ids raised.
     */
    evaluate(kinds: readonly AlertKind[], judge: AlertJudge, now?: Clock): Promise<string[]>;
    enqueue(event: AlertEventInput, now?: Instant): Promise<void>;
    /** Claims the due pending rows (each one attempt) until `claimUntil`; no other process sends them meanwhile. */
    claimDue(options: {
      now?: Instant;
      claimUntil: Instant;
      limit: number;
      eventIds?: readonly string[];
      /** Rows left out (those this pass already attempted). */
      excludeIds?: readonly number[];
    }): Promise<AlertOutboxRow[]>;
    recordAttempt(id: number, result: WithNow<AttemptResult>): Promise<void>;
    list(filter?: { state?: AlertDeliveryState; limit?: number }): Promise<AlertOutboxRow[]>;
    counts(): Promise<Record<AlertDeliveryState, number>>;
    latestFinishedRuns(limit?: number): Promise<FinishedRun[]>;
    openFindings(): Promise<OpenFinding[]>;
    rejectedPayments(): Promise<RejectedPayment[]>;
  };
  /**
   * Own-account transfers (docs/transfers.md; transfers.ts): what the matching in src/transfers
   * reads, the links it stores (transfer_links, v_transfers, v_transfer_ambiguities) and their reads.
   */
  transfers: {
    /**
     * One matching: every account (its consent, account number, owner's PartyId) and the candidate
     * pairs (booked debit × booked credit of another account: same currency, opposite minor units,
     * within the days, neither suspected a duplicate) read, judged by `judge`, and with `save` every
     * stored link replaced, in one transaction behind the matching's lock.
     */
    rematch: TransferReads['rematch'];
    /** Rows of v_transfers (`linked`) or v_transfer_ambiguities (`ambiguous`), by the debit's date. */
    list: TransferReads['list'];
    /** How many pairs each view holds. */
    counts: TransferReads['counts'];
  };
  /** The export's reads over the public views (src/export; docs/exports.md); view-reads.ts. */
  views: {
    /**
     * A dataset's rows, filtered, in its total order: the file's column names and the rows in
     * batches (arrays in column order, integers as BigInt, amounts as exact text), streamed.
     */
    rows: ViewReads['rows'];
    /** v_accounts rows by account id, consent and bank (each optional), by bank and id. */
    accounts: ViewReads['accounts'];
    /** Count, first NZ date and last row of the transactions rows these filters export. */
    range: ViewReads['range'];
    /** The latest balance (exact text) of the types at or before an instant (null: the latest). */
    latestBalance: ViewReads['latestBalance'];
    /** The exact amounts of an account's booked rows booked in (after, upTo]. */
    bookedAmounts: ViewReads['bookedAmounts'];
    /** A consent's space-separated permissions, or null. */
    consentPermissions: ViewReads['consentPermissions'];
    /** The accounts a transactions export covers, with their consent's permissions and window. */
    exportScope: ViewReads['exportScope'];
    /** These reads on one read snapshot of the database, for a document read in several queries (OFX). */
    snapshot: ViewReads['snapshot'];
  };
}
