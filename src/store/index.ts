/** The store's public surface: what the sync, the CLI and the export import. */
export type { Store, WithNow } from './store';
export { openStore, type OpenStoreOptions, type SqliteStore } from './sqlite/sqlite-store';
export { displayLocation, isPostgresUrl, openDatabaseStore } from './open-any';
export { sha256, CREATION_KEY_TTL_MS, type ConsentCreationRow } from './consent-creations';
export type { JobRunRow } from './job-runs';
export type { PaymentAttemptRow, PaymentRow, PaymentStatusRow } from './payments';
export type { PacingKey, PacingRecord } from './pacing';
export { MAX_CHANGE_LIMIT, type Change, type ChangeKey, type ChangePage, type PruneResult } from './changes';
export { WATCHED_COLUMNS } from './change-feed';
export type * from './reports';
export type { AddConsentResult, ConsentRecord, StoredBankMeta } from './registry';
export type { TransactionWindowInput, WindowCounts } from './window-commit';
export type {
  InsertCounts,
  PartyInput,
  StatementFileInput,
  StatementFileUnit,
  UnitInput,
  UpsertCounts,
} from './resource-writes';
export type { PendingReach, StoredDensity, SyncResource } from './sync-state';
export type { StatementPeriod } from './statement-dates';
export type {
  TransferAccount,
  TransferCandidate,
  TransferLinkInput,
  TransferReferences,
  TransferSide,
  TransferViewRow,
} from './transfers';
export type { RunRow, RunSummary } from './runs';
export { LeaseLostError, type BeginResult, type RunWork } from './run-work';
export {
  DEFAULT_LEASE_RENEW_MS,
  DEFAULT_LEASE_TTL_MS,
  type AcquireResult,
  type LeaseHolder,
  type LeaseTerm,
} from './lease';
export { isProcessAlive } from '../fs/writers';
export {
  ACCOUNT_DETAIL_COLUMNS,
  TRANSACTION_DETAIL_COLUMNS,
  type AccountRow,
  type BalanceRow,
  type PartyRow,
  type RejectInput,
  type RejectRow,
  type StatementRow,
  type TransactionRow,
} from './rows';
export { CONSENT_OUTCOMES, RUN_OUTCOMES, type ConsentOutcome, type RunOutcome } from './sqlite/schema';
export { VIEW_COLUMNS, VIEW_NAMES, type ViewName, type ViewRow } from './views';
export { toStoredInstant, toStoredInstantOrNull, type Clock, type Instant } from './time';
export type {
  AlertEventInput,
  AlertOutboxRow,
  AlertStateRow,
  AlertTransition,
  AttemptResult,
  FinishedRun,
  OpenFinding,
  RejectedPayment,
} from './alerts';
export {
  ALERT_DELIVERY_STATES,
  ALERT_DESTINATIONS,
  type AlertDeliveryState,
  type AlertDestination,
} from './sqlite/schema';
