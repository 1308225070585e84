/**
 * What the Data API client and the Payments API client share (_internal: src/api and
 * src/api/payments only): the base URL check, one HTTP layer, one token provider on
 * `{base_url}/oauth2/token`, the retry policy with its injectable clock, and the counts and
 * scopes both clients report. Each client adds its own requests on top.
 */
import type { DateTime } from 'luxon';
import type { Dispatcher } from 'undici';
import { silentLogger, type Logger } from '../log';
import { ConfigurationError, type ApiError } from './api-errors';
import { assertTransportAllowed, createHttp, type Http, type HttpStats } from './http';
import { createPacer, type Pacer, type PacerState, type PaceEvent, type SharedBudget } from './pacer';
import { DEFAULT_RETRY_POLICY, realSleep, type RetryDeps, type RetryPolicy } from './retry';
import { createTokenProvider, type TokenAuthMethod, type TokenProvider } from './token';
import { systemClock, type Clock } from '@bankdata/core/clock';

/** The options both clients take. */
export interface ApiClientOptions {
  /** The API's base URL: https, or http on a loopback host (the emulator). */
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** How the token request carries the credentials: form fields (default) or HTTP Basic. */
  tokenAuth?: TokenAuthMethod;
  logger?: Logger;
  /**
   * Called before each wait of a retry (token request or API call), with the attempt that failed,
   * the policy's last attempt, the wait and the error: the CLI shows it (docs/bank-api.md §7.4);
   * the client itself only logs it at debug level.
   */
  onRetry?: (event: RetryEvent) => void;
  /** Called when a 429 lowers the pacer's pace (pacer.ts `onSlowdown`): the CLI shows it. */
  onPace?: (event: PaceEvent) => void;
  /** Per request, headers and body (default 30 s). */
  timeoutMs?: number;
  /** Overrides of the retry policy (docs/bank-api.md §7.4 defaults). */
  retry?: Partial<RetryPolicy>;
  /** Injectable for tests: wait, jitter draw in [0, 1), and the local clock. */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  now?: Clock;
  /** undici dispatcher (default: undici's global one). */
  dispatcher?: Dispatcher;
  /** The pacing budget shared with the other workers of this client (see pacer.ts `shared`). */
  sharedPacing?: SharedBudget;
}

/** What differs between the two clients' cores. */
export interface ClientCoreSettings {
  /** Names the API in configuration errors: `the ${apiName} base URL …`. */
  apiName: string;
  maxResponseBytes: number;
  /** Fixed over `options.retry` (the Payments API retries only when unavailable). */
  retryOverrides?: Partial<RetryPolicy>;
}

export interface ClientCoreStats extends HttpStats {
  /** Retries made by the policy (waits taken), all requests. */
  retries: number;
  /** The pacer's learned rate and counts (docs/client.md "Pacing"). */
  pacing?: PacerState;
}

export interface ClientCore {
  /** 'Data API' or 'Payments API': names the API in errors (the transport's redirect refusal). */
  apiName: string;
  base: URL;
  /** The base URL's path without trailing slashes ('' at the root). */
  basePath: string;
  logger: Logger;
  http: Http;
  tokens: TokenProvider;
  retryPolicy: RetryPolicy;
  retryDeps: RetryDeps;
  /** One pacer for every request of this client, all lanes. */
  pacer: Pacer;
  /** Scopes assigned to the client, from the token response (fetches a token if none yet). */
  grantedScopes(): Promise<readonly string[]>;
  stats(): ClientCoreStats;
  /** The instant of the last `Date` header (the emulator's data clock), or null. */
  serverNow(): DateTime | null;
}

function parseBaseUrl(baseUrl: string, apiName: string): URL {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch (cause) {
    throw new ConfigurationError(`the ${apiName} base URL is not an absolute URL`, {
      status: null,
      code: null,
      path: '',
      requestId: null,
      cause,
    });
  }
  if (url.search || url.hash || url.username || url.password) {
    throw new ConfigurationError(`the ${apiName} base URL must not carry credentials, a query or a fragment`, {
      status: null,
      code: null,
      path: url.pathname,
      requestId: null,
    });
  }
  assertTransportAllowed(url);
  return url;
}

/** One retry about to wait: `attempt` (of `maxAttempts`) failed with `error`; the next starts after `delayMs`. */
export interface RetryEvent {
  attempt: number;
  maxAttempts: number;
  delayMs: number;
  error: ApiError;
}

export function createClientCore(options: ApiClientOptions, settings: ClientCoreSettings): ClientCore {
  const base = parseBaseUrl(options.baseUrl, settings.apiName);
  const basePath = base.pathname.replace(/\/+$/, '');
  const logger = options.logger ?? silentLogger;
  const now = options.now ?? systemClock;
  const retryPolicy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...options.retry, ...settings.retryOverrides };
  let retries = 0;
  const retryDeps: RetryDeps = {
    sleep: options.sleep ?? realSleep,
    random: options.random ?? Math.random,
    now,
    onRetry: (info) => {
      retries += 1;
      options.onRetry?.({ ...info, maxAttempts: retryPolicy.maxAttempts });
    },
  };
  const http = createHttp({
    timeoutMs: options.timeoutMs ?? 30_000,
    maxResponseBytes: settings.maxResponseBytes,
    logger,
    now,
    dispatcher: options.dispatcher,
  });
  const tokens = createTokenProvider({
    tokenUrl: new URL(`${base.origin}${basePath}/oauth2/token`),
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    authMethod: options.tokenAuth ?? 'form',
    http,
    retryPolicy,
    retryDeps,
    now,
    logger,
  });
  const pacer = createPacer({
    now,
    sleep: retryDeps.sleep,
    ...(options.onPace ? { onSlowdown: options.onPace } : {}),
    ...(options.sharedPacing ? { shared: options.sharedPacing } : {}),
  });
  return {
    apiName: settings.apiName,
    base,
    basePath,
    logger,
    http,
    tokens,
    retryPolicy,
    retryDeps,
    pacer,
    grantedScopes: async () => {
      await tokens.getToken();
      return tokens.scopes();
    },
    stats: () => ({ ...http.stats(), retries, pacing: pacer.state() }),
    serverNow: () => http.serverNow(),
  };
}
