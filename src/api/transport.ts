/**
 * An authorised, retried exchange with the bank, the ONE implementation both clients ride (the
 * Data API with `toApiError`, the Payments API with `toPaymentsError`): the bearer token on
 * every call, the token rule (a 401 gets one new token and one retry; a second 401 is an
 * authentication error), a 3xx refused (never followed), the retry policy around it with the
 * token veto, and every other non-success answer mapped by the API's own error mapper.
 */
import type { Logger } from '../log';
import { ProtocolError, type ApiError } from './api-errors';
import type { Http, HttpAnswer, HttpExchange, HttpKind, HttpMethod, StreamAnswer } from './http';
import type { AnswerFacts } from './map-api-error';
import type { Pacer } from './pacer';
import { DEFAULT_MAX_PAGES, DEFAULT_MAX_RECORDS } from './paginate';
import { parseErrorBody } from './parse';
import { withRetry, type RetryDeps, type RetryPolicy } from './retry';
import type { Endpoint } from '@bankdata/core/endpoint-access';
import { isTokenFailure, type TokenProvider } from './token';

export interface ApiRequest<K extends HttpKind = Endpoint> {
  kind: K;
  method: HttpMethod;
  url: URL;
  headers?: Record<string, string>;
  body?: string;
  /** Sent as `idempotency-key`, unchanged on every attempt; a POST retries only with one. */
  idempotencyKey?: string;
  timeoutMs?: number;
  /** One attempt, never retried (a payment POST: what follows a failure is the caller's decision). */
  once?: boolean;
}

/** An API's ONE mapping function from a non-success answer to its error class. */
export type ErrorMapper<K extends HttpKind> = (answer: AnswerFacts & { kind: K }) => Error;

export interface Transport<K extends HttpKind = Endpoint> {
  readonly base: URL;
  readonly maxPages: number;
  readonly maxRecords: number;
  /** `base` + an absolute API path (`/v1/...`) + query. */
  url(path: string, query?: Record<string, string | undefined>): URL;
  /** A 2xx answer with its body read, or a mapped error. */
  exchange(request: ApiRequest<K>): Promise<HttpAnswer>;
  /**
   * A 2xx answer handed to `onSuccess` while its body still streams. `canRetry` vetoes a
   * retry (e.g. once a caller-given Writable took bytes).
   */
  stream<T>(
    request: ApiRequest<K>,
    onSuccess: (answer: StreamAnswer) => Promise<T>,
    canRetry?: () => boolean,
  ): Promise<T>;
}

export interface TransportOptions<K extends HttpKind> {
  /** Names the API in the redirect refusal: `the ${apiName} never redirects`. */
  apiName: string;
  base: URL;
  /** Listing caps (paginate.ts); default DEFAULT_MAX_PAGES, DEFAULT_MAX_RECORDS. */
  maxPages?: number;
  maxRecords?: number;
  http: Http;
  tokens: TokenProvider;
  retryPolicy: RetryPolicy;
  retryDeps: RetryDeps;
  logger: Logger;
  /** Every request's send slot (the token request excepted); absent: unpaced. */
  pacer?: Pacer;
  /** Maps every non-success answer but a 3xx (toApiError, toPaymentsError). */
  mapError: ErrorMapper<K>;
  /** Headers made anew for each attempt (the Payments API's `request-id`, docs/payments-contract.md §1). */
  attemptHeaders?: () => Record<string, string>;
}

export function createTransport<K extends HttpKind = Endpoint>(options: TransportOptions<K>): Transport<K> {
  const { http, tokens, base } = options;
  const basePath = base.pathname.replace(/\/+$/, '');

  const toExchange = (request: ApiRequest<K>, token: string): HttpExchange => ({
    method: request.method,
    url: request.url,
    kind: request.kind,
    body: request.body,
    timeoutMs: request.timeoutMs,
    headers: {
      accept: 'application/json',
      ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(request.idempotencyKey ? { 'idempotency-key': request.idempotencyKey } : {}),
      ...options.attemptHeaders?.(),
      ...request.headers,
      authorization: `Bearer ${token}`,
    },
  });

  /** One request through the pacer: its slot first, then what the bank answered. */
  async function openPaced(exchange: HttpExchange): Promise<StreamAnswer> {
    if (!options.pacer) return http.open(exchange);
    const sentAt = await options.pacer.acquire();
    let answer: StreamAnswer;
    try {
      answer = await http.open(exchange);
    } catch (error) {
      options.pacer.abandon();
      throw error;
    }
    options.pacer.settle(sentAt, answer);
    return answer;
  }

  /** docs/bank-api.md §7.4: on 401 get a new token and retry once. */
  async function openAuthorised(request: ApiRequest<K>): Promise<StreamAnswer> {
    const first = await tokens.getToken();
    const answer = await openPaced(toExchange(request, first));
    if (answer.status !== 401) return answer;
    answer.body.resume();
    tokens.invalidate(first);
    const second = await tokens.getToken();
    options.logger.debug('401 answered: retrying once with a new token', {
      path: answer.path,
      requestId: answer.requestId,
    });
    // A second 401 falls through to the error mapper: an authentication error.
    return openPaced(toExchange(request, second));
  }

  /** Throws the mapped error for a non-2xx answer (its body read for code and message). */
  async function failOnError(request: ApiRequest<K>, answer: StreamAnswer): Promise<void> {
    if (answer.status >= 200 && answer.status < 300) return;
    const details = { status: answer.status, code: null, path: answer.path, requestId: answer.requestId };
    if (answer.status >= 300 && answer.status < 400) {
      answer.body.resume();
      throw new ProtocolError(
        `redirect (${answer.status}) not followed: the ${options.apiName} never redirects`,
        details,
      );
    }
    const body = await http.readBody(answer);
    const { code, message } = parseErrorBody({ ...answer, body });
    throw options.mapError({
      status: answer.status,
      code,
      message,
      headers: answer.headers,
      path: answer.path,
      requestId: answer.requestId,
      kind: request.kind,
    });
  }

  function retrying<T>(request: ApiRequest<K>, attempt: () => Promise<T>, veto?: () => boolean): Promise<T> {
    if (request.once) return attempt();
    // A token failure already had its retries (token.ts): retrying the call around it would multiply them.
    const canRetry = (error: unknown) => !isTokenFailure(error) && (veto ? veto() : true);
    const deps: RetryDeps = {
      ...options.retryDeps,
      onRetry: (info: { attempt: number; delayMs: number; error: ApiError }) => {
        options.logger.debug('retrying request', {
          kind: request.kind,
          method: request.method,
          path: request.url.pathname,
          attempt: info.attempt,
          delayMs: info.delayMs,
          status: info.error.status,
          code: info.error.code,
          errorKind: info.error.kind,
        });
        options.retryDeps.onRetry?.(info);
      },
    };
    return withRetry(
      options.retryPolicy,
      deps,
      { method: request.method, idempotencyKey: request.idempotencyKey, canRetry },
      attempt,
    );
  }

  return {
    base,
    maxPages: options.maxPages ?? DEFAULT_MAX_PAGES,
    maxRecords: options.maxRecords ?? DEFAULT_MAX_RECORDS,
    url(path, query) {
      const url = new URL(base.origin + basePath + path);
      for (const [key, value] of Object.entries(query ?? {})) if (value !== undefined) url.searchParams.set(key, value);
      return url;
    },
    exchange(request) {
      return retrying(request, async () => {
        const answer = await openAuthorised(request);
        await failOnError(request, answer);
        const body = await http.readBody(answer);
        return { status: answer.status, headers: answer.headers, requestId: answer.requestId, path: answer.path, body };
      });
    },
    stream(request, onSuccess, canRetry) {
      return retrying(
        request,
        async () => {
          const answer = await openAuthorised(request);
          await failOnError(request, answer);
          return onSuccess(answer);
        },
        canRetry,
      );
    },
  };
}
