/**
 * Retry as a policy written as data (docs/bank-api.md §7.4): which error kinds retry, how many
 * attempts, and the delay: `Retry-After` when the server sent a readable one (then, refused
 * again, `Retry-After` and the backoff: "the client waits, then backs off"), else exponential
 * backoff with FULL jitter. A `Retry-After` longer than `maxRetryAfterMs` is not waited out, nor
 * cut short: the request is not retried (the bank: "Retry after Retry-After"), and the error
 * surfaces for a later run. A 401 is not here: the token rule handles it.
 */
import { DateTime } from 'luxon';
import { ApiError, UnavailableError, type ApiErrorKind } from './api-errors';
import { nowMs, type Clock } from '@bankdata/core/clock';
import { backoffDelayMs } from '../backoff';

export interface RetryRule {
  kind: ApiErrorKind;
  /** Only these codes of the kind (absent: every error of the kind). */
  codes?: readonly string[];
}

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  baseDelayMs: number;
  /**
   * The longest wait. The default equals `maxRetryAfterMs`, so a `Retry-After` is waited out
   * whole; tests set it lower to run the emulator's answers without its seconds.
   */
  maxDelayMs: number;
  /** The longest `Retry-After` a run waits out; beyond it the request is not retried in this run. */
  maxRetryAfterMs: number;
  retryOn: readonly RetryRule[];
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = Object.freeze({
  maxAttempts: 5,
  baseDelayMs: 1_000,
  maxDelayMs: 60_000,
  maxRetryAfterMs: 60_000,
  retryOn: Object.freeze<RetryRule[]>([
    // 429, 503 BDT601–604, 500, 502, 504, timeouts, dropped connections.
    { kind: 'unavailable' },
    // BDT704: the consent request with this key is still in progress; retry with the same key.
    { kind: 'idempotency', codes: ['BDT704'] },
  ]),
});

/** Is the error one the policy retries? Any other 4xx (and every non-ApiError) is not. */
export function isRetryable(policy: RetryPolicy, error: unknown): error is ApiError {
  if (!(error instanceof ApiError)) return false;
  return policy.retryOn.some(
    (rule) => rule.kind === error.kind && (!rule.codes || (error.code !== null && rule.codes.includes(error.code))),
  );
}

/**
 * `Retry-After` (RFC 9110 10.2.3) in milliseconds: integer seconds, or an HTTP-date judged
 * against `referenceMs` (the answer's own `Date` when it had one, so a skewed local clock
 * cannot stretch or cut the wait). Null when absent or unreadable: the backoff applies.
 */
export function parseRetryAfterMs(value: string | null | undefined, referenceMs: number): number | null {
  if (value == null) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = DateTime.fromHTTP(text, { zone: 'utc' });
  if (!date.isValid) return null;
  return Math.max(0, date.toMillis() - referenceMs);
}

export interface RetryClock {
  now: Clock;
  random: () => number;
}

/**
 * The wait before the attempt after `attempt` (1-based) failed with `error`: its `Retry-After`,
 * plus the backoff of the attempts before it when it is not the first refusal; null when the
 * server asks for a longer wait than `maxRetryAfterMs`: no retry in this run, never one sooner
 * than it allows.
 */
export function retryDelayMs(policy: RetryPolicy, attempt: number, error: unknown, clock: RetryClock): number | null {
  const { retryAfter, serverDate } = retryHints(error);
  if (retryAfter !== null) {
    const serverNow = serverDate ? DateTime.fromHTTP(serverDate, { zone: 'utc' }) : null;
    const reference = serverNow?.isValid ? serverNow.toMillis() : nowMs(clock.now);
    const fromServer = parseRetryAfterMs(retryAfter, reference);
    if (fromServer !== null) {
      if (fromServer > policy.maxRetryAfterMs) return null;
      // The bank: "the client waits, then backs off". The first retry waits what it asks; each
      // one refused again waits that plus a backoff drawn under a ceiling that doubles (full
      // jitter), so a bank that keeps refusing is asked less often, never sooner than it allows.
      const backoff = attempt > 1 ? backoffDelayMs(policy, attempt - 1, clock.random, 'full') : 0;
      return Math.min(policy.maxDelayMs, fromServer + backoff);
    }
  }
  // Full jitter: a uniform draw in [0, min(cap, base * 2^(attempt-1))) (src/backoff.ts).
  return backoffDelayMs(policy, attempt, clock.random, 'full');
}

/** `Retry-After` and `Date` of an answer: an UnavailableError's, or any error that carries a `retryAfter` (BP603). */
function retryHints(error: unknown): { retryAfter: string | null; serverDate: string | null } {
  if (error instanceof UnavailableError) return { retryAfter: error.retryAfter, serverDate: error.serverDate };
  const carried = (error as { retryAfter?: unknown } | null)?.retryAfter;
  return { retryAfter: typeof carried === 'string' ? carried : null, serverDate: null };
}

export interface RetryDeps extends RetryClock {
  sleep: (ms: number) => Promise<void>;
  /** Called before each wait, for logging. */
  onRetry?: (info: { attempt: number; delayMs: number; error: ApiError }) => void;
}

export interface RetryContext {
  /** A POST is retried only when it carries an idempotency key (sent unchanged each time). */
  method: string;
  idempotencyKey?: string | undefined;
  /** A POST that has no effect to repeat (the token request): retried without a key. */
  repeatable?: boolean;
  /** A veto on retrying after this error (e.g. a sink that already took bytes). */
  canRetry?: (error: unknown) => boolean;
}

/** Runs `operation` until it succeeds, the error is not retryable, or attempts run out. */
export async function withRetry<T>(
  policy: RetryPolicy,
  deps: RetryDeps,
  context: RetryContext,
  operation: (attempt: number) => Promise<T>,
): Promise<T> {
  const postWithoutKey = context.method === 'POST' && !context.idempotencyKey && !context.repeatable;
  for (let attempt = 1; ; attempt++) {
    try {
      return await operation(attempt);
    } catch (error) {
      const again =
        attempt < policy.maxAttempts &&
        !postWithoutKey &&
        isRetryable(policy, error) &&
        (context.canRetry ? context.canRetry(error) : true);
      if (!again) throw error;
      const delayMs = retryDelayMs(policy, attempt, error, deps);
      if (delayMs === null) throw error;
      deps.onRetry?.({ attempt, delayMs, error });
      await deps.sleep(delayMs);
    }
  }
}

export const realSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
