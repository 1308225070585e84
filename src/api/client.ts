/**
 * `createDataApiClient`: one typed function per endpoint of docs/bank-api.md, over one token
 * provider, one retry policy and one HTTP layer. Knows nothing of SQLite.
 */
import type { DateTime } from 'luxon';
import { createClientCore, type ApiClientOptions, type ClientCoreStats } from './client-core';
import { getAccount, getBalances, listAccounts, listTransactions, type TransactionRange } from './endpoints/accounts';
import { createConsent, getConsent, revokeConsent, type CreateConsentOptions } from './endpoints/consents';
import { getMeta } from './endpoints/meta';
import { getAccountParty, getParty } from './endpoints/party';
import {
  downloadStatementFile,
  getStatement,
  listStatements,
  type StatementFileResult,
  type StatementFileSink,
  type StatementRange,
} from './endpoints/statements';
import { toApiError } from './map-api-error';
import type { ListResult } from './paginate';
import type { LearnedPacing } from './pacer';
import type { SingleResult } from './parse';
import type {
  Account,
  AccountId,
  Balance,
  Consent,
  ConsentId,
  CreateConsentRequest,
  CreateConsentResponse,
  MetaResponse,
  Statement,
  StatementId,
  Transaction,
} from '@bankdata/core/schemas';
import { createTransport } from './transport';

export interface DataApiClientOptions extends ApiClientOptions {
  /** Statement file transfers (default 5 minutes). */
  fileTimeoutMs?: number;
  /** Cap on a JSON response body (default 16 MiB). */
  maxResponseBytes?: number;
  /** Cap on a statement file (default 64 MiB). */
  maxFileBytes?: number;
  /** Pages per listing before it is refused as a protocol error (default 10 000). */
  maxPages?: number;
  /** Records per listing held in memory before it is refused with TooManyRecordsError (default 100 000). */
  maxRecords?: number;
}

export type ClientStats = ClientCoreStats;

export interface DataApiClient {
  getMeta(): Promise<MetaResponse>;
  createConsent(body: CreateConsentRequest, options?: CreateConsentOptions): Promise<CreateConsentResponse>;
  getConsent(consentId: ConsentId): Promise<Consent>;
  revokeConsent(consentId: ConsentId): Promise<void>;
  listAccounts(consentId: ConsentId): Promise<ListResult<Account>>;
  getAccount(consentId: ConsentId, accountId: AccountId): Promise<SingleResult<'Account'>>;
  getBalances(consentId: ConsentId, accountId: AccountId): Promise<ListResult<Balance>>;
  listTransactions(
    consentId: ConsentId,
    accountId: AccountId,
    range: TransactionRange,
  ): Promise<ListResult<Transaction>>;
  listStatements(consentId: ConsentId, accountId: AccountId, range?: StatementRange): Promise<ListResult<Statement>>;
  getStatement(
    consentId: ConsentId,
    accountId: AccountId,
    statementId: StatementId,
  ): Promise<SingleResult<'Statement'>>;
  downloadStatementFile(
    consentId: ConsentId,
    accountId: AccountId,
    statementId: StatementId,
    sink: StatementFileSink,
  ): Promise<StatementFileResult>;
  getParty(consentId: ConsentId): Promise<SingleResult<'Party'>>;
  getAccountParty(consentId: ConsentId, accountId: AccountId): Promise<SingleResult<'Party'>>;
  /** Scopes assigned to the client, from the token response (fetches a token if none yet). */
  grantedScopes(): Promise<readonly string[]>;
  /** Requests made so far (every HTTP request, retries and token requests included). */
  stats(): ClientStats;
  /** The instant of the last `Date` header (the emulator's data clock), or null. */
  serverNow(): DateTime | null;
  /**
   * The pacer's memory between runs (docs/client.md "Pacing"): the key it is stored under (the
   * API's base URL and the client id), and resume / learned (pacer.ts). Absent in test doubles.
   */
  pacing?: ClientPacing;
}

export interface ClientPacing {
  readonly key: { api: string; clientId: string };
  resume(stored: LearnedPacing, options: { probe: boolean }): void;
  forget(): void;
  learned(): LearnedPacing | null;
}

/**
 * The key a bank API's pacing is stored under (docs/client.md "Pacing"): its base URL's origin and
 * path, trailing slashes trimmed (`https://API.bank.example:443/v1/` is `https://api.bank.example/v1`).
 * The client's own key, and what `bankdata pacing reset --api URL` looks for (src/store/pacing.ts).
 */
export function pacingApiKey(base: URL): string {
  return `${base.origin}${base.pathname.replace(/\/+$/, '')}`;
}

export function createDataApiClient(options: DataApiClientOptions): DataApiClient {
  const core = createClientCore(options, {
    apiName: 'Data API',
    maxResponseBytes: options.maxResponseBytes ?? 16 * 1024 * 1024,
  });
  const { apiName, base, http, tokens, retryPolicy, retryDeps, logger } = core;
  const t = createTransport({
    apiName,
    base,
    maxPages: options.maxPages,
    maxRecords: options.maxRecords,
    http,
    tokens,
    retryPolicy,
    retryDeps,
    logger,
    pacer: core.pacer,
    mapError: toApiError,
  });
  const fileOptions = {
    maxBytes: options.maxFileBytes ?? 64 * 1024 * 1024,
    timeoutMs: options.fileTimeoutMs ?? 5 * 60_000,
  };

  return {
    getMeta: () => getMeta(t),
    createConsent: (body, opts) => createConsent(t, body, opts),
    getConsent: (consentId) => getConsent(t, consentId),
    revokeConsent: (consentId) => revokeConsent(t, consentId),
    listAccounts: (consentId) => listAccounts(t, consentId),
    getAccount: (consentId, accountId) => getAccount(t, consentId, accountId),
    getBalances: (consentId, accountId) => getBalances(t, consentId, accountId),
    listTransactions: (consentId, accountId, range) => listTransactions(t, consentId, accountId, range),
    listStatements: (consentId, accountId, range) => listStatements(t, consentId, accountId, range),
    getStatement: (consentId, accountId, statementId) => getStatement(t, consentId, accountId, statementId),
    downloadStatementFile: (consentId, accountId, statementId, sink) =>
      downloadStatementFile(t, consentId, accountId, statementId, sink, fileOptions),
    getParty: (consentId) => getParty(t, consentId),
    getAccountParty: (consentId, accountId) => getAccountParty(t, consentId, accountId),
    grantedScopes: core.grantedScopes,
    stats: core.stats,
    serverNow: core.serverNow,
    pacing: {
      key: { api: pacingApiKey(base), clientId: options.clientId },
      resume: (stored, opts) => core.pacer.resume(stored, opts),
      forget: () => core.pacer.forget(),
      learned: () => core.pacer.learned(),
    },
  };
}
