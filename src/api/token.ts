/**
 * OAuth2 client credentials (docs/bank-api.md §2). The token is cached and renewed
 * before expiry (`tokenRenewAfterMs`: 5 minutes before, or at half a short lifetime);
 * concurrent callers share ONE refresh. Secrets are registered for redaction the moment they
 * are known, and never put in a message.
 */
import { registerSecret } from '@bankdata/core/secrets';
import { type Logger } from '../log';
import { ProtocolError } from './api-errors';
import { toApiError } from './map-api-error';
import type { Http } from './http';
import { parseErrorBody, parseJsonBody, formatIssues } from './parse';
import { withRetry, type RetryDeps, type RetryPolicy } from './retry';
import { tokenRenewAfterMs } from '@bankdata/core/token-timing';
import { TokenResponse } from '@bankdata/core/schemas';
import { nowMs, type Clock } from '@bankdata/core/clock';

export type TokenAuthMethod = 'form' | 'basic';

export interface TokenProviderOptions {
  tokenUrl: URL;
  clientId: string;
  clientSecret: string;
  /** Form fields (default) or HTTP Basic; docs/bank-api.md §2 allows both. */
  authMethod: TokenAuthMethod;
  http: Http;
  retryPolicy: RetryPolicy;
  retryDeps: RetryDeps;
  now: Clock;
  logger: Logger;
}

export interface TokenProvider {
  /** A valid access token: the cached one, or a fresh one shared by every concurrent caller. */
  getToken(): Promise<string>;
  /** Drops `token` from the cache when it is still the cached one (after a 401). */
  invalidate(token: string): void;
  /** Scopes of the last token (space-separated list of the token response), empty before one. */
  scopes(): readonly string[];
}

/**
 * Failures of the token request, which already had the retry policy's attempts: a call that
 * needed the token must not retry around them again (5 × 5 attempts against a service that is
 * down). Both clients' retry loops veto them through `isTokenFailure`.
 */
const tokenFailures = new WeakSet<object>();

/** True when `error` came from the token request (its retries are spent). */
export function isTokenFailure(error: unknown): boolean {
  return typeof error === 'object' && error !== null && tokenFailures.has(error);
}

interface CachedToken {
  value: string;
  renewAt: number;
}

export function createTokenProvider(options: TokenProviderOptions): TokenProvider {
  const { http, now, logger } = options;
  registerSecret(options.clientSecret);
  const basic = Buffer.from(
    `${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`,
  ).toString('base64');
  registerSecret(basic);

  let cached: CachedToken | null = null;
  let inflight: Promise<string> | null = null;
  let grantedScopes: readonly string[] = [];

  async function fetchToken(): Promise<string> {
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    };
    if (options.authMethod === 'basic') {
      // RFC 6749 2.3.1: id and secret are form-urlencoded before Basic encoding.
      headers.authorization = `Basic ${basic}`;
    } else {
      form.set('client_id', options.clientId);
      form.set('client_secret', options.clientSecret);
    }
    const requestedAt = nowMs(now);
    // The token POST changes nothing on the server: retrying it on 429/5xx needs no key.
    const answer = await withRetry(
      options.retryPolicy,
      options.retryDeps,
      { method: 'POST', repeatable: true },
      async () => {
        const res = await http.send({
          method: 'POST',
          url: options.tokenUrl,
          kind: 'token',
          headers,
          body: form.toString(),
        });
        if (res.status !== 200) {
          const body = parseErrorBody(res);
          throw toApiError({
            ...body,
            status: res.status,
            headers: res.headers,
            path: res.path,
            requestId: res.requestId,
            kind: 'token',
          });
        }
        return res;
      },
    );
    const json = parseJsonBody(answer);
    const parsed = TokenResponse.safeParse(json);
    if (!parsed.success) {
      throw new ProtocolError(`token response does not match the contract: ${formatIssues(parsed.error)}`, {
        status: answer.status,
        code: null,
        path: answer.path,
        requestId: answer.requestId,
        cause: parsed.error,
      });
    }
    const token = parsed.data;
    registerSecret(token.access_token);
    grantedScopes = token.scope.split(' ').filter(Boolean);
    cached = { value: token.access_token, renewAt: requestedAt + tokenRenewAfterMs(token.expires_in) };
    logger.debug('token obtained', { expiresIn: token.expires_in, scopes: grantedScopes.length });
    return token.access_token;
  }

  return {
    getToken() {
      if (cached && nowMs(now) < cached.renewAt) return Promise.resolve(cached.value);
      if (!inflight) {
        inflight = fetchToken()
          .catch((error: unknown) => {
            if (typeof error === 'object' && error !== null) tokenFailures.add(error);
            throw error;
          })
          .finally(() => {
            inflight = null;
          });
      }
      return inflight;
    },
    invalidate(token) {
      if (cached?.value === token) cached = null;
    },
    scopes: () => grantedScopes,
  };
}
