/**
 * `createDataApiClient`: one typed function per endpoint of the contract, over one token
 * provider, one retry policy and one HTTP layer. Knows nothing of SQLite.
 */
import type { DateTime } from 'luxon';
import type { Dispatcher } from 'undici';
import { silentLogger, type Logger } from '../log';
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
import { ConfigurationError } from './errors';
import { assertTransportAllowed, createHttp, type HttpStats } from './http';
import { DEFAULT_MAX_PAGES, type ListResult } from './paginate';
import type { SingleResult } from './parse';
import { DEFAULT_RETRY_POLICY, realSleep, type RetryDeps, type RetryPolicy } from './retry';
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
} from './schemas';
import { createTokenProvider, type TokenAuthMethod } from './token';
import { createTransport } from './transport';

export interface DataApiClientOptions {
  /** `{data_base_url}`: https, or http on a loopback host (the emulator). */
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** How the token request carries the credentials: form fields (default) or HTTP Basic. */
  tokenAuth?: TokenAuthMethod;
  logger?: Logger;
  /** Per request, headers and body (default 30 s). */
  timeoutMs?: number;
  /** Statement file transfers (default 5 minutes). */
  fileTimeoutMs?: number;
  /** Cap on a JSON response body (default 16 MiB). */
  maxResponseBytes?: number;
  /** Cap on a statement file (default 64 MiB). */
  maxFileBytes?: number;
  /** Pages per listing before it is refused as a protocol error (default 10 000). */
  maxPages?: number;
  /** Overrides of the retry policy (contract 7.4 defaults). */
  retry?: Partial<RetryPolicy>;
  /** Injectable for tests: wait, jitter draw in [0, 1), and the local clock (epoch ms). */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  now?: () => number;
  /** undici dispatcher (default: undici's global one). */
  dispatcher?: Dispatcher;
}

export interface ClientStats extends HttpStats {
  /** Retries made by the policy (waits taken), all endpoints. */
  retries: number;
}

export interface DataApiClient {
  getMeta(): Promise<MetaResponse>;
  createConsent(body: CreateConsentRequest, options?: CreateConsentOptions): Promise<CreateConsentResponse>;
  getConsent(consentId: ConsentId): Promise<Consent>;
  revokeConsent(consentId: ConsentId): Promise<void>;
  listAccounts(consentId: ConsentId): Promise<ListResult<Account>>;
  getAccount(consentId: ConsentId, accountId: AccountId): Promise<SingleResult<'Account'>>;
  getBalances(consentId: ConsentId, accountId: AccountId): Promise<ListResult<Balance>>;
  listTransactions(consentId: ConsentId, accountId: AccountId, range: TransactionRange): Promise<ListResult<Transaction>>;
  listStatements(consentId: ConsentId, accountId: AccountId, range?: StatementRange): Promise<ListResult<Statement>>;
  getStatement(consentId: ConsentId, accountId: AccountId, statementId: StatementId): Promise<SingleResult<'Statement'>>;
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
}

function parseBaseUrl(baseUrl: string): URL {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch (cause) {
    throw new ConfigurationError('the Data API base URL is not an absolute URL', { status: null, code: null, path: '', requestId: null, cause });
  }
  if (url.search || url.hash || url.username || url.password) {
    throw new ConfigurationError('the Data API base URL must not carry credentials, a query or a fragment', {
      status: null,
      code: null,
      path: url.pathname,
      requestId: null,
    });
  }
  assertTransportAllowed(url);
  return url;
}

export function createDataApiClient(options: DataApiClientOptions): DataApiClient {
  const base = parseBaseUrl(options.baseUrl);
  const logger = options.logger ?? silentLogger;
  const now = options.now ?? Date.now;
  const retryPolicy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  let retries = 0;
  const retryDeps: RetryDeps = {
    sleep: options.sleep ?? realSleep,
    random: options.random ?? Math.random,
    now,
    onRetry: () => {
      retries += 1;
    },
  };
  const http = createHttp({
    timeoutMs: options.timeoutMs ?? 30_000,
    maxResponseBytes: options.maxResponseBytes ?? 16 * 1024 * 1024,
    logger,
    dispatcher: options.dispatcher,
  });
  const tokens = createTokenProvider({
    tokenUrl: new URL(`${base.origin}${base.pathname.replace(/\/+$/, '')}/oauth2/token`),
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    authMethod: options.tokenAuth ?? 'form',
    http,
    retryPolicy,
    retryDeps,
    now,
    logger,
  });
  const t = createTransport({
    base,
    maxPages: options.maxPages ?? DEFAULT_MAX_PAGES,
    http,
    tokens,
    retryPolicy,
    retryDeps,
    logger,
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
    grantedScopes: async () => {
      await tokens.getToken();
      return tokens.scopes();
    },
    stats: () => ({ ...http.stats(), retries }),
    serverNow: () => http.serverNow(),
  };
}
