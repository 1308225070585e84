/**
 * The SQLite tables (drizzle sqlite-core). Tables are internal; the public contract is the set of
 * `v_*` views (migrations/*_views.sql, columns in views.ts, documented in docs/data-model.md).
 * Over 300 lines on purpose: every table in one file, mirrored column for column by pg/schema.ts.
 *
 * Conventions: instants are UTC ISO 8601 strings with milliseconds (`2025-03-02T20:15:00.000Z`,
 * as `Date#toISOString`), one fixed width so that text order is time order; NZ dates are
 * `YYYY-MM-DD`; money is a signed decimal string plus an integer in minor units; every row from
 * the bank keeps the raw JSON it came from. `npx drizzle-kit generate` turns this file into SQL.
 */
import { sql } from 'drizzle-orm';
import {
  check,
  foreignKey,
  index,
  integer,
  real,
  primaryKey,
  sqliteTable,
  text,
  uniqueIndex,
} from 'drizzle-orm/sqlite-core';
import {
  BANKS,
  CONSENT_STATUSES,
  type AccountId,
  type ConsentId,
  type StatementId,
  type TransactionId,
  type PartyId,
} from '@bankdata/core/schemas';
import { PAYMENT_STATUSES } from '@bankdata/core/payment-schemas';

export const CONSENT_OUTCOMES = ['ok', 'partial', 'skipped', 'ended', 'failed'] as const;
export type ConsentOutcome = (typeof CONSENT_OUTCOMES)[number];
export const RUN_OUTCOMES = ['ok', 'partial', 'failed'] as const;
export type RunOutcome = (typeof RUN_OUTCOMES)[number];
export const INDICATORS = ['Credit', 'Debit'] as const;

/** The consent registry: what `consents add` registered, and what the last GET said. */
export const consents = sqliteTable('consents', {
  consentId: text('consent_id').$type<ConsentId>().primaryKey(),
  /** Unknown (NULL) until the consent has been read once. */
  bank: text('bank', { enum: BANKS }),
  status: text('status', { enum: CONSENT_STATUSES }),
  /** Space-separated, as the consent lists them. */
  permissions: text('permissions'),
  creationDateTime: text('creation_date_time'),
  statusUpdateDateTime: text('status_update_date_time'),
  startDateTime: text('start_date_time'),
  endDateTime: text('end_date_time'),
  expirationDateTime: text('expiration_date_time'),
  /** NZ date of expiration_date_time, computed with luxon (v_consents.days_to_expiry). */
  expirationNzDate: text('expiration_nz_date'),
  rawJson: text('raw_json'),
  registeredAt: text('registered_at').notNull(),
  /** Set when the consent ended (BDT009, 013, 101, 409, 410, 412, 415): skipped until re-added. */
  endedAt: text('ended_at'),
  endedReason: text('ended_reason'),
  statusFetchedAt: text('status_fetched_at'),
  lastSyncedAt: text('last_synced_at'),
  lastOutcome: text('last_outcome', { enum: CONSENT_OUTCOMES }),
});

/** Per-bank features from GET /v1/meta. */
export const bankMeta = sqliteTable('bank_meta', {
  bank: text('bank', { enum: BANKS }).primaryKey(),
  maxHistoryDays: integer('max_history_days'),
  rawJson: text('raw_json').notNull(),
  fetchedAt: text('fetched_at').notNull(),
});

export const accounts = sqliteTable(
  'accounts',
  {
    bank: text('bank', { enum: BANKS }).notNull(),
    accountId: text('account_id').$type<AccountId>().notNull(),
    consentId: text('consent_id')
      .$type<ConsentId>()
      .notNull()
      .references(() => consents.consentId),
    currency: text('currency').notNull(),
    nickname: text('nickname'),
    description: text('description'),
    accountType: text('account_type'),
    accountSubtype: text('account_subtype'),
    schemeName: text('scheme_name'),
    identification: text('identification'),
    accountName: text('account_name'),
    secondaryIdentification: text('secondary_identification'),
    servicerIdentification: text('servicer_identification'),
    rawJson: text('raw_json').notNull(),
    firstSeenAt: text('first_seen_at').notNull(),
    lastSeenAt: text('last_seen_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.bank, t.accountId] })],
);

/**
 * Balance history: a row only when (bank, account, type, date_time, amount, indicator) is new; a
 * balance fetched again moves only its `last_seen_at` (src/store/resource-writes.ts commitBalances).
 */
export const balances = sqliteTable(
  'balances',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    bank: text('bank', { enum: BANKS }).notNull(),
    accountId: text('account_id').$type<AccountId>().notNull(),
    consentId: text('consent_id')
      .$type<ConsentId>()
      .notNull()
      .references(() => consents.consentId),
    type: text('type').notNull(),
    amount: text('amount').notNull(),
    amountMinor: integer('amount_minor'),
    currency: text('currency').notNull(),
    creditDebitIndicator: text('credit_debit_indicator', { enum: INDICATORS }).notNull(),
    dateTime: text('date_time').notNull(),
    rawJson: text('raw_json').notNull(),
    /** When the fetch that first returned this balance ran. */
    fetchedAt: text('fetched_at').notNull(),
    /**
     * When the latest fetch that returned it ran (never moved back): of a balance the bank restated
     * for one instant and type, the one stated last is the one seen last (LATEST_BALANCE_FIRST in
     * src/store/continuity.ts), also when the bank restated it back to an amount it stated before.
     * '' for none: every row the store writes has one; migration SQLite 0020 / PostgreSQL 0019 gave
     * the rows before it their fetched_at.
     */
    lastSeenAt: text('last_seen_at').notNull().default(''),
  },
  (t) => [
    uniqueIndex('balances_identity').on(t.bank, t.accountId, t.type, t.dateTime, t.amount, t.creditDebitIndicator),
    foreignKey({ columns: [t.bank, t.accountId], foreignColumns: [accounts.bank, accounts.accountId] }),
  ],
);

export const transactions = sqliteTable(
  'transactions',
  {
    bank: text('bank', { enum: BANKS }).notNull(),
    accountId: text('account_id').$type<AccountId>().notNull(),
    transactionId: text('transaction_id').$type<TransactionId>().notNull(),
    /** The consent that last returned the row. */
    consentId: text('consent_id')
      .$type<ConsentId>()
      .notNull()
      .references(() => consents.consentId),
    status: text('status', { enum: ['Booked', 'Pending'] }).notNull(),
    bookingDateTime: text('booking_date_time').notNull(),
    bookingDate: text('booking_date').notNull(),
    valueDateTime: text('value_date_time'),
    amount: text('amount').notNull(),
    amountMinor: integer('amount_minor'),
    currency: text('currency').notNull(),
    creditDebitIndicator: text('credit_debit_indicator', { enum: INDICATORS }).notNull(),
    description: text('description'),
    merchantName: text('merchant_name'),
    merchantCategoryCode: text('merchant_category_code'),
    creditorName: text('creditor_name'),
    debtorName: text('debtor_name'),
    creditorParticulars: text('creditor_particulars'),
    creditorCode: text('creditor_code'),
    creditorReference: text('creditor_reference'),
    debtorParticulars: text('debtor_particulars'),
    debtorCode: text('debtor_code'),
    debtorReference: text('debtor_reference'),
    bankTransactionCode: text('bank_transaction_code'),
    bankTransactionSubcode: text('bank_transaction_subcode'),
    proprietaryCode: text('proprietary_code'),
    balanceAfter: text('balance_after'),
    counterpartyAccount: text('counterparty_account'),
    rawJson: text('raw_json').notNull(),
    firstSeenAt: text('first_seen_at').notNull(),
    lastSeenAt: text('last_seen_at').notNull(),
    /** Last content change (not bumped by a fetch that changed nothing). */
    updatedAt: text('updated_at').notNull(),
    /** A pending row that a later fetch of its range no longer returned. */
    removedAt: text('removed_at'),
  },
  (t) => [
    primaryKey({ columns: [t.bank, t.accountId, t.transactionId] }),
    foreignKey({ columns: [t.bank, t.accountId], foreignColumns: [accounts.bank, accounts.accountId] }),
    index('transactions_booking_date').on(t.bookingDate),
    // The views' order of v_transactions (ORDER BY bank, account_id, booking_date_time, transaction_id
    // over rows not removed): an export streams in it without sorting (docs/benchmarks.md "Export").
    index('transactions_view_order')
      .on(t.bank, t.accountId, t.bookingDateTime, t.transactionId)
      .where(sql`removed_at IS NULL`),
    // An account's rows by status, removed or not, in booking order, with every column the read side
    // reads (bankdata check and report, docs/continuity.md "Set-based"): the running-balance walk,
    // the sums between balances and the daily totals read this index alone, in order, never the
    // table. Its first five columns are the sync's look-up of open pending rows (the index
    // transactions_open_pending it replaced, migration 0011).
    index('transactions_account_rows').on(
      t.bank,
      t.accountId,
      t.status,
      t.removedAt,
      t.bookingDateTime,
      t.transactionId,
      t.amountMinor,
      t.amount,
      t.balanceAfter,
      t.bookingDate,
      t.firstSeenAt,
    ),
  ],
);

export const statements = sqliteTable(
  'statements',
  {
    bank: text('bank', { enum: BANKS }).notNull(),
    accountId: text('account_id').$type<AccountId>().notNull(),
    statementId: text('statement_id').$type<StatementId>().notNull(),
    consentId: text('consent_id')
      .$type<ConsentId>()
      .notNull()
      .references(() => consents.consentId),
    type: text('type').notNull(),
    startDateTime: text('start_date_time').notNull(),
    endDateTime: text('end_date_time').notNull(),
    creationDateTime: text('creation_date_time').notNull(),
    reference: text('reference'),
    rawJson: text('raw_json').notNull(),
    /** Relative to the data dir; set only once the file is on disk. */
    filePath: text('file_path'),
    fileContentType: text('file_content_type'),
    fileSha256: text('file_sha256'),
    fileBytes: integer('file_bytes'),
    fileFetchedAt: text('file_fetched_at'),
    firstSeenAt: text('first_seen_at').notNull(),
    lastSeenAt: text('last_seen_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.bank, t.accountId, t.statementId] }),
    foreignKey({ columns: [t.bank, t.accountId], foreignColumns: [accounts.bank, accounts.accountId] }),
  ],
);

/**
 * Parties: the consenting customer (GET /v1/party; account_id NULL, one per consent) and each
 * account's owner (GET /v1/accounts/{id}/party; one per account). Each endpoint returns one
 * object, so a new answer replaces the old one.
 */
export const parties = sqliteTable(
  'parties',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    bank: text('bank', { enum: BANKS }).notNull(),
    consentId: text('consent_id')
      .$type<ConsentId>()
      .notNull()
      .references(() => consents.consentId),
    accountId: text('account_id').$type<AccountId>(),
    partyId: text('party_id').$type<PartyId>().notNull(),
    partyNumber: text('party_number'),
    partyType: text('party_type'),
    name: text('name'),
    email: text('email'),
    phone: text('phone'),
    mobile: text('mobile'),
    address: text('address'),
    rawJson: text('raw_json').notNull(),
    firstSeenAt: text('first_seen_at').notNull(),
    lastSeenAt: text('last_seen_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('parties_customer')
      .on(t.bank, t.consentId)
      .where(sql`account_id IS NULL`),
    uniqueIndex('parties_account')
      .on(t.bank, t.accountId)
      .where(sql`account_id IS NOT NULL`),
  ],
);

export const runs = sqliteTable(
  'runs',
  {
    runId: text('run_id').primaryKey(),
    startedAt: text('started_at').notNull(),
    finishedAt: text('finished_at'),
    outcome: text('outcome', { enum: RUN_OUTCOMES }),
    consents: integer('consents').notNull().default(0),
    requests: integer('requests').notNull().default(0),
    rowsWritten: integer('rows_written').notNull().default(0),
    failedUnits: integer('failed_units').notNull().default(0),
    errorSummary: text('error_summary'),
  },
  (t) => [index('runs_started_at').on(t.startedAt)],
);

/** Records that failed their schema: kept aside with the reason, never silently dropped. */
export const rejects = sqliteTable(
  'rejects',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    resource: text('resource').notNull(),
    bank: text('bank', { enum: BANKS }),
    consentId: text('consent_id').$type<ConsentId>(),
    accountId: text('account_id').$type<AccountId>(),
    reason: text('reason').notNull(),
    rawPayload: text('raw_payload').notNull(),
    runId: text('run_id').references(() => runs.runId),
    createdAt: text('created_at').notNull(),
  },
  (t) => [index('rejects_run').on(t.runId)],
);

/** Per (bank, account, resource) watermark: the instant up to which the resource is synced. */
export const syncState = sqliteTable(
  'sync_state',
  {
    bank: text('bank', { enum: BANKS }).notNull(),
    accountId: text('account_id').$type<AccountId>().notNull(),
    /** Each consent covers its own window and filter, so each keeps its own watermark. */
    consentId: text('consent_id').$type<ConsentId>().notNull(),
    resource: text('resource').notNull(),
    watermark: text('watermark'),
    /** Transactions per NZ day seen in this account's windows (sizes the next windows). */
    rowsPerDay: real('rows_per_day'),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.bank, t.accountId, t.consentId, t.resource] })],
);

/**
 * Per bank, what its transaction queries taught (BDT263): the window size (NZ days) that last
 * worked, the most rows one accepted query returned, and the fewest rows known in a refused one.
 */
export const bankWindow = sqliteTable('bank_window', {
  bank: text('bank', { enum: BANKS }).primaryKey(),
  windowDays: integer('window_days').notNull(),
  maxAcceptedRows: integer('max_accepted_rows'),
  minRefusedRows: integer('min_refused_rows'),
  updatedAt: text('updated_at').notNull(),
});

/**
 * What the pacer learned of one client's rate limit at one bank's API (src/api/pacer.ts, docs/client.md
 * "Pacing"): the rate it ran at and the certified ceiling (the rate at which refusals began), both
 * requests per second. Keyed by the API's base URL and the client id (the bank limits the client).
 */
export const pacing = sqliteTable(
  'pacing',
  {
    api: text('api').notNull(),
    clientId: text('client_id').notNull(),
    rate: real('rate').notNull(),
    ceiling: real('ceiling'),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.api, t.clientId] })],
);

/** The run lock: at most one row. */
export const lease = sqliteTable(
  'lease',
  {
    id: integer('id').primaryKey(),
    holderPid: integer('holder_pid').notNull(),
    holderHost: text('holder_host').notNull(),
    acquiredAt: text('acquired_at').notNull(),
    expiresAt: text('expires_at').notNull(),
  },
  (t) => [check('lease_single_row', sql`${t.id} = 1`)],
);

/**
 * Pacific/Auckland UTC offsets from each transition instant on, written by the app at open from
 * luxon's zone data. SQLite has no time zones; v_consents finds NZ "today" with it, correctly
 * across DST, whenever the view is read (no value that goes stale between runs).
 */
export const nzOffsets = sqliteTable('nz_offsets', {
  utcFrom: text('utc_from').primaryKey(),
  offsetMinutes: integer('offset_minutes').notNull(),
});

export const CONSENT_CREATION_STATES = ['pending', 'created', 'settled', 'failed'] as const;
export type ConsentCreationState = (typeof CONSENT_CREATION_STATES)[number];

/**
 * Consent creations (`bankdata consents create`). The row, with its idempotency key and the exact
 * body, is written BEFORE the POST is sent: a crash between send and answer leaves it `pending`,
 * and the rerun sends the same body with the same key, so the server replays the first consent
 * instead of making a second (docs/bank-api.md §4.1: same key and body replays the original 201).
 */
export const consentCreations = sqliteTable(
  'consent_creations',
  {
    idempotencyKey: text('idempotency_key').primaryKey(),
    /** SHA-256 of what the user asked for (bank, flow, URIs, permissions, dates as given). */
    intentHash: text('intent_hash').notNull(),
    /** The exact JSON body sent, replayed byte for byte on a retry. */
    bodyJson: text('body_json').notNull(),
    bodySha256: text('body_sha256').notNull(),
    bank: text('bank', { enum: BANKS }).notNull(),
    flow: text('flow').notNull(),
    /** pending: sent or about to be, no answer stored; created: 201 stored; settled; failed. */
    state: text('state', { enum: CONSENT_CREATION_STATES }).notNull(),
    consentId: text('consent_id').$type<ConsentId>(),
    /** The create response (consent_id, redirect_uri to open); no secret in it. */
    responseJson: text('response_json'),
    /** The consent status it settled on, or the code that refused the request. */
    outcome: text('outcome'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [index('consent_creations_intent').on(t.intentHash, t.state)],
);

/** Which scheduled job a run of `runs` (v_runs) was, and what triggered it. */
export const jobRuns = sqliteTable('job_runs', {
  runId: text('run_id')
    .primaryKey()
    .references(() => runs.runId),
  job: text('job').notNull(),
  /** The cron instant it was scheduled for (UTC). */
  scheduledFor: text('scheduled_for').notNull(),
  /**
   * The process that runs it (`bankdata schedule`'s host and pid), for a job that takes no lease
   * (the expiry check, the meta refresh): status tells it running from killed by it, as it does a
   * sync by the lease's holder. Null for the nightly sync (tagged after its run) and older rows.
   */
  holderHost: text('holder_host'),
  holderPid: integer('holder_pid'),
});

// ---------------------------------------------------------------------------
// Payments API (issue 7; docs/payments-contract.md). v_payments and v_payment_matches are in
// migrations/*_payment_views.sql.

/** Each payment as GET /payments/v1/payments/{id} last showed it. */
export const payments = sqliteTable(
  'payments',
  {
    paymentId: text('payment_id').primaryKey(),
    consentId: text('consent_id').notNull(),
    status: text('status', { enum: PAYMENT_STATUSES }).notNull(),
    /** Decimal string as the API sent it (unsigned: a payment to the merchant). */
    amount: text('amount').notNull(),
    amountMinor: integer('amount_minor'),
    currency: text('currency').notNull(),
    particulars: text('particulars'),
    code: text('code'),
    reference: text('reference'),
    createdAt: text('created_at').notNull(),
    /** NZ dates (luxon, Pacific/Auckland), for the reconciliation date window. */
    createdNzDate: text('created_nz_date').notNull(),
    statusUpdatedAt: text('status_updated_at').notNull(),
    statusUpdatedNzDate: text('status_updated_nz_date').notNull(),
    idempotencyKey: text('idempotency_key'),
    rawJson: text('raw_json').notNull(),
    firstSeenAt: text('first_seen_at').notNull(),
    lastCheckedAt: text('last_checked_at').notNull(),
  },
  (t) => [index('payments_status').on(t.status), index('payments_consent').on(t.consentId)],
);

/** Every status a payment was seen in, with the instant the API says it changed. */
export const paymentStatusHistory = sqliteTable(
  'payment_status_history',
  {
    paymentId: text('payment_id')
      .notNull()
      .references(() => payments.paymentId),
    status: text('status', { enum: PAYMENT_STATUSES }).notNull(),
    statusUpdatedAt: text('status_updated_at').notNull(),
    observedAt: text('observed_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.paymentId, t.status] })],
);

export const PAYMENT_ATTEMPT_STATES = ['sending', 'created', 'refused', 'failed', 'superseded'] as const;
export type PaymentAttemptState = (typeof PAYMENT_ATTEMPT_STATES)[number];

/**
 * Each payment request, stored with its idempotency key BEFORE it is sent (BP713), so a crash
 * between send and answer is resumed with the same key and never pays twice.
 */
export const paymentAttempts = sqliteTable(
  'payment_attempts',
  {
    idempotencyKey: text('idempotency_key').primaryKey(),
    consentId: text('consent_id').notNull(),
    /** The request body exactly as sent (canonical JSON). */
    requestJson: text('request_json').notNull(),
    state: text('state', { enum: PAYMENT_ATTEMPT_STATES }).notNull(),
    paymentId: text('payment_id'),
    outcomeCode: text('outcome_code'),
    outcomeMessage: text('outcome_message'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
    /**
     * The key that took the request over when the bank would not pay it under this one (BP710
     * Rejected, BP702): set once, under the consent's lock, so a second run that meets the same
     * answer resumes that key instead of paying with one of its own (payment-requests.ts).
     */
    supersededBy: text('superseded_by'),
  },
  (t) => [index('payment_attempts_open').on(t.consentId, t.state)],
);

export const CONTINUITY_KINDS = ['balances', 'running_balance'] as const;
export type ContinuityKind = (typeof CONTINUITY_KINDS)[number];
export const CONTINUITY_CAUSES = [
  'missing_transaction',
  'duplicate',
  'pending_row',
  'minor_unit',
  'running_balance_jump',
] as const;
export type ContinuityCause = (typeof CONTINUITY_CAUSES)[number];

/**
 * Breaks found by `bankdata check` (v_continuity; docs/data-model.md "v_continuity"): the latest
 * check's findings per account (a check replaces the findings of the accounts it covered).
 */
export const continuityFindings = sqliteTable(
  'continuity_findings',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    bank: text('bank', { enum: BANKS }).notNull(),
    accountId: text('account_id').$type<AccountId>().notNull(),
    kind: text('kind', { enum: CONTINUITY_KINDS }).notNull(),
    /** The instants between which the break lies (UTC), and their NZ dates. */
    fromDateTime: text('from_date_time').notNull(),
    toDateTime: text('to_date_time').notNull(),
    fromDate: text('from_date').notNull(),
    toDate: text('to_date').notNull(),
    /** Signed decimal string: what the bank's balance moved by beyond the stored transactions. */
    amount: text('amount').notNull(),
    amountMinor: integer('amount_minor'),
    currency: text('currency').notNull(),
    cause: text('cause', { enum: CONTINUITY_CAUSES }).notNull(),
    /** The row after the break in a running balance; NULL for a break between balances. */
    transactionId: text('transaction_id').$type<TransactionId>(),
    detail: text('detail').notNull(),
    /** The sync run whose closing check found it; NULL for `bankdata check`. */
    runId: text('run_id').references(() => runs.runId),
    checkedAt: text('checked_at').notNull(),
  },
  (t) => [index('continuity_account').on(t.bank, t.accountId)],
);

// ---------------------------------------------------------------------------
// Alerts (issue 37; docs/alerts.md): the state each subject was last judged in, and the outbox
// the webhook and the command hook are delivered from (across runs: a cron'd sync that exits
// leaves its undelivered events here for the next command).

export const ALERT_DESTINATIONS = ['webhook', 'command'] as const;
export type AlertDestination = (typeof ALERT_DESTINATIONS)[number];
export const ALERT_DELIVERY_STATES = ['pending', 'delivered', 'failed'] as const;
export type AlertDeliveryState = (typeof ALERT_DELIVERY_STATES)[number];

/**
 * Each alert subject's state when it was last judged (`run:sync`, `consent:<id>`,
 * `continuity:<bank>:<account>:<kind>:<from>:<to>`, `payment:<id>`): an event is raised when it changes.
 */
export const alertState = sqliteTable('alert_state', {
  subject: text('subject').primaryKey(),
  /** run, consent, continuity, payment. */
  kind: text('kind').notNull(),
  state: text('state').notNull(),
  changedAt: text('changed_at').notNull(),
});

/** One row per event and destination; delivered with backoff across runs (attempts, next attempt). */
export const alertOutbox = sqliteTable(
  'alert_outbox',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    eventId: text('event_id').notNull(),
    /** run.failed, run.partial, consent.expiring, consent.ended, continuity.break, payment.rejected, test. */
    type: text('type').notNull(),
    subject: text('subject').notNull(),
    destination: text('destination', { enum: ALERT_DESTINATIONS }).notNull(),
    /** The exact JSON body sent (the webhook's signed bytes, the command's stdin). */
    payloadJson: text('payload_json').notNull(),
    state: text('state', { enum: ALERT_DELIVERY_STATES }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    /** When the next attempt may start (UTC); also the claim of an attempt under way. */
    nextAttemptAt: text('next_attempt_at').notNull(),
    lastAttemptAt: text('last_attempt_at'),
    /** The HTTP status or the command's exit code of the last attempt; NULL when none came. */
    lastStatus: integer('last_status'),
    lastError: text('last_error'),
    deliveredAt: text('delivered_at'),
    createdAt: text('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('alert_outbox_event').on(t.eventId, t.destination),
    index('alert_outbox_due').on(t.state, t.nextAttemptAt),
  ],
);

export const CATEGORY_SOURCES = ['rule', 'mcc', 'code', 'none'] as const;
export type CategorySourceColumn = (typeof CATEGORY_SOURCES)[number];

/**
 * Each transaction's category and payee and what decided them (docs/categories.md, docs/data-model.md
 * "Tables (internal)"): written after each sync for rows without a decision, and again by
 * `bankdata categorise`. Keyed as the transaction; no foreign key (a forgotten consent's rows are
 * deleted with its transactions by src/store/forget.ts; `db copy` moves the table as it is).
 */
export const transactionCategories = sqliteTable(
  'transaction_categories',
  {
    bank: text('bank', { enum: BANKS }).notNull(),
    accountId: text('account_id').$type<AccountId>().notNull(),
    transactionId: text('transaction_id').$type<TransactionId>().notNull(),
    category: text('category').notNull(),
    payee: text('payee'),
    categorySource: text('category_source', { enum: CATEGORY_SOURCES }).notNull(),
    /** The rule's id (or `line N`), the MCC, or the bank transaction code; NULL for `none`. */
    categoryRule: text('category_rule'),
    decidedAt: text('decided_at').notNull(),
    /**
     * The transaction's `updated_at` as the decision read it (docs/categories.md "When rows are
     * decided"): the sync decides a row again only when its `updated_at` differs. '' (a decision
     * from before migration 0017 / pg 0015) matches no row: decided again once.
     */
    rowUpdatedAt: text('row_updated_at').notNull().default(''),
  },
  (t) => [primaryKey({ columns: [t.bank, t.accountId, t.transactionId] })],
);
export const TRANSFER_STATUSES = ['linked', 'ambiguous'] as const;
export type TransferStatus = (typeof TRANSFER_STATUSES)[number];

/**
 * Own-account transfers (docs/transfers.md; v_transfers and v_transfer_ambiguities): each pair
 * of a debit and a credit the latest matching linked (`linked`: each side the other's unique best
 * candidate) or left unchosen because another candidate is as good (`ambiguous`), with the
 * evidence. Replaced whole by each matching (the sync's end, `bankdata transfers`).
 */
export const transferLinks = sqliteTable(
  'transfer_links',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    status: text('status', { enum: TRANSFER_STATUSES }).notNull(),
    debitBank: text('debit_bank', { enum: BANKS }).notNull(),
    debitAccountId: text('debit_account_id').$type<AccountId>().notNull(),
    debitTransactionId: text('debit_transaction_id').$type<TransactionId>().notNull(),
    creditBank: text('credit_bank', { enum: BANKS }).notNull(),
    creditAccountId: text('credit_account_id').$type<AccountId>().notNull(),
    creditTransactionId: text('credit_transaction_id').$type<TransactionId>().notNull(),
    currency: text('currency').notNull(),
    /** The amount moved, in the currency's minor units (positive). */
    amountMinor: integer('amount_minor').notNull(),
    /** Whole NZ days between the two booking dates. */
    daysApart: integer('days_apart').notNull(),
    /** 1 when both accounts belong to one consent, else 0. */
    sameConsent: integer('same_consent').notNull(),
    /** 1 when both accounts' owner (account party) has one PartyId at one bank, else 0. */
    sameParty: integer('same_party').notNull(),
    /** The configured group (transfers.groups) naming both accounts, or NULL. */
    ownerGroup: text('owner_group'),
    /** How many sides name the other account as their counterparty (0, 1 or 2). */
    counterpartySides: integer('counterparty_sides').notNull(),
    /** 1 when the references both sides carry agree, 0 when there was nothing to compare. */
    referenceAgrees: integer('reference_agrees').notNull(),
    score: integer('score').notNull(),
    linkedAt: text('linked_at').notNull(),
  },
  (t) => [
    index('transfer_links_debit').on(t.debitBank, t.debitAccountId, t.debitTransactionId, t.status),
    index('transfer_links_credit').on(t.creditBank, t.creditAccountId, t.creditTransactionId, t.status),
  ],
);
/**
 * Transactions the continuity check proves the bank served twice (docs/continuity.md "Duplicates
 * the bank served"; v_duplicates, v_transactions.suspected_duplicate): the suspected row, its twin
 * and the balance evidence. Never deleted by a check: a later check whose balances no longer support
 * the suspicion sets `cleared_at` (a suspicion proved again is reopened, its evidence replaced).
 */
export const duplicateSuspicions = sqliteTable(
  'duplicate_suspicions',
  {
    bank: text('bank', { enum: BANKS }).notNull(),
    accountId: text('account_id').$type<AccountId>().notNull(),
    /** The suspected row: of two otherwise identical rows, the one seen later (then the greater id). */
    transactionId: text('transaction_id').$type<TransactionId>().notNull(),
    /** The otherwise identical row kept as the real one. */
    twinTransactionId: text('twin_transaction_id').$type<TransactionId>().notNull(),
    /** Which balance proves it: a booked balance snapshot (`balances`) or the bank's running balance. */
    evidence: text('evidence', { enum: CONTINUITY_KINDS }).notNull(),
    /** The bank's balance that disagrees with the stored rows (signed decimal), its instant and NZ date. */
    balance: text('balance').notNull(),
    balanceDateTime: text('balance_date_time').notNull(),
    balanceDate: text('balance_date').notNull(),
    /** What that balance would be with every stored row counted (the row and its twin). */
    countedBalance: text('counted_balance').notNull(),
    /** What the bank's balance moved by beyond the stored rows (a debit stored twice is positive). */
    amountOff: text('amount_off').notNull(),
    amountOffMinor: integer('amount_off_minor'),
    currency: text('currency').notNull(),
    detail: text('detail').notNull(),
    /** The check that first proved it (reset when a cleared suspicion is proved again). */
    suspectedAt: text('suspected_at').notNull(),
    /** The latest check that proved it (or cleared it). */
    checkedAt: text('checked_at').notNull(),
    /** The sync run whose closing check proved it last; NULL for `bankdata check`. */
    runId: text('run_id'),
    /** When a later check no longer proved it; NULL while suspected. */
    clearedAt: text('cleared_at'),
  },
  (t) => [primaryKey({ columns: [t.bank, t.accountId, t.transactionId] })],
);
/**
 * The change feed's log (`bankdata changes`, docs/changes.md): one row per change of a row a
 * v_transactions column shows, written by the triggers src/store/change-feed.ts generates (never by
 * the code). `seq` is the order of commits on SQLite (writers serialise; AUTOINCREMENT never reuses
 * a pruned number); `xid` is PostgreSQL's writing transaction (NULL here). `changed`: the view
 * columns that changed, comma-separated.
 */
export const changeLog = sqliteTable('change_log', {
  seq: integer('seq').primaryKey({ autoIncrement: true }),
  xid: integer('xid'),
  source: text('source').notNull(),
  bank: text('bank').notNull(),
  accountId: text('account_id').notNull(),
  transactionId: text('transaction_id').notNull(),
  kind: text('kind', { enum: ['insert', 'update', 'remove', 'delete'] }).notNull(),
  changed: text('changed').notNull(),
  loggedAt: text('logged_at').notNull(),
});

/** How far the change log was pruned (one row, id 1): a cursor before it is too old to serve. */
export const changeLogHorizon = sqliteTable('change_log_horizon', {
  id: integer('id').primaryKey(),
  xid: integer('xid').notNull(),
  seq: integer('seq').notNull(),
  /** The fingerprint of the last entry pruned, the one at (xid, seq) (docs/changes.md "Cursors"); NULL: pruned before it was recorded. */
  fingerprint: text('fingerprint'),
  prunedAt: text('pruned_at').notNull(),
});

/**
 * Which change log this is (one row, id 1; docs/changes.md "Cursors"): a cursor names the log it
 * came from, so a cursor of another database, a copy or a restored backup is refused instead of
 * served entries that are not the ones after it. `logId`: random, made by the migration (a new
 * database, and each `db copy`, gets its own); a backup file gets a new one (`forkChangeLog`),
 * remembering the log it came from and its last position (`forkedFrom`, `forkedXid`, `forkedSeq`:
 * that log's cursors up to there are this one's too). `legacy`: cursors of before this table (they
 * name no log) are this log's own: 1 only when the migration found the log already used; `dbOid`:
 * PostgreSQL's database it was made in (a v1 cursor is accepted only there).
 */
export const changeLogIdentity = sqliteTable('change_log_identity', {
  id: integer('id').primaryKey(),
  logId: text('log_id').notNull(),
  legacy: integer('legacy').notNull().default(0),
  dbOid: integer('db_oid'),
  forkedFrom: text('forked_from'),
  forkedXid: integer('forked_xid').notNull().default(0),
  forkedSeq: integer('forked_seq').notNull().default(0),
});
