/** What the rest of bankdata uses from the Data API client. */
export {
  createDataApiClient,
  pacingApiKey,
  type ClientPacing,
  type ClientStats,
  type DataApiClient,
  type DataApiClientOptions,
} from './client';
export type { RetryEvent } from './client-core';
export { countingRequests, type RequestCount } from './request-count';
export type { PaceEvent } from './pacer';
export type { LearnedPacing } from './pacer';
export type { CreateConsentOptions } from './endpoints/consents';
export type { QueryDate, TransactionRange } from './endpoints/accounts';
export {
  STATEMENT_FILE_ACCEPT,
  type StatementFileResult,
  type StatementFileSink,
  type StatementRange,
} from './endpoints/statements';
/** Every error class, and the kinds and reasons they carry: what callers branch on. */
export * from './api-errors';
export { AUTHENTICATION_HINT, LEGACY_BDT237_MESSAGE, toApiError, type ErrorAnswer } from './map-api-error';
export { DEFAULT_MAX_PAGES, DEFAULT_MAX_RECORDS, TooManyRecordsError, type ListResult } from './paginate';
export type { RecordReject, SingleResult } from './parse';
export { DEFAULT_RETRY_POLICY, type RetryPolicy, type RetryRule } from './retry';
export type { TokenAuthMethod } from './token';
