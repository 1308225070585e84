/**
 * Injected faults and the rate limit. Faults draw from the seeded PRNG, one draw per eligible
 * request, so the same seed and request sequence fail the same way. Upstream 503s (BDT601–604)
 * mean the bank did nothing; 500/502/504 and dropped connections may come after the effect
 * (a consent created, a revoke done) so that clients must retry idempotently.
 */
import type { DateTime } from 'luxon';
import type { Random } from './server-random';
import { FAULT_KINDS, type EmulatorSettings, type FaultKind, type RateLimit } from './settings';
import { ApiError } from './http-reply';

/** Thrown to destroy the connection without an answer. */
export class DropConnection extends Error {
  constructor() {
    super('connection dropped');
    this.name = 'DropConnection';
  }
}

/** One draw: the fault kind whose cumulative rate the draw falls under, or null. */
export function drawFault(random: Random, settings: EmulatorSettings): FaultKind | null {
  return drawWeighted(random, FAULT_KINDS, settings.faults);
}

/**
 * One draw over a table of rates (each in [0, 1]): the kind whose cumulative rate the draw
 * falls under, or null (no fault). Rates summing past 1 are scaled down to share the draw.
 * Both listeners draw their faults this way (payments/faults.ts).
 */
export function drawWeighted<K extends string>(
  random: Random,
  kinds: readonly K[],
  rates: Readonly<Record<K, number>>,
): K | null {
  const total = kinds.reduce((sum, kind) => sum + rates[kind], 0);
  if (total <= 0) return null;
  const draw = random() * Math.max(1, total);
  let edge = 0;
  for (const kind of kinds) {
    edge += rates[kind];
    if (draw < edge) return kind;
  }
  return null;
}

export function isUpstreamFault(kind: FaultKind): boolean {
  return kind.startsWith('bdt');
}

const FAULT_MESSAGES: Record<FaultKind, string> = {
  bdt601: 'Bank service is unavailable',
  bdt602: 'Bank rate-limited the request',
  bdt603: 'Bank could not accept the request now',
  bdt604: 'Temporary service problem',
  http500: 'Internal server error',
  http502: 'Bad gateway',
  http504: 'Gateway timeout',
  drop: 'connection dropped',
};

/** The error a fault answers with (the fault's name travels in the error for the log). */
export function faultError(kind: FaultKind, settings: EmulatorSettings, now: DateTime): Error {
  if (kind === 'drop') return new DropConnection();
  if (isUpstreamFault(kind)) {
    const headers: Record<string, string> =
      settings.faultRetryAfterSeconds === null
        ? {}
        : { 'retry-after': retryAfter(settings.faultRetryAfterSeconds, settings, now) };
    return new FaultError(503, FAULT_MESSAGES[kind], kind, kind.toUpperCase(), headers);
  }
  return new FaultError(Number(kind.slice(4)), FAULT_MESSAGES[kind], kind);
}

export class FaultError extends ApiError {
  constructor(
    status: number,
    message: string,
    readonly fault: FaultKind,
    code?: string,
    headers: Record<string, string> = {},
  ) {
    super(status, message, code, headers);
  }
}

/**
 * Retry-After: integer seconds (docs/bank-api.md §7.2), or an HTTP-date when the setting asks. The date
 * is on the data clock, the same clock as the `Date` header, so `Retry-After − Date` is the wait.
 */
export function retryAfter(seconds: number, settings: EmulatorSettings, now: DateTime): string {
  // Delay-seconds, the other form of Retry-After, should the date not be printable.
  const date = settings.retryAfterHttpDate ? now.plus({ seconds }).toHTTP() : null;
  return date ?? String(seconds);
}

/** Token bucket per client, on real time (a rate limit is about real request rates). */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; atMs: number }>();

  reset(): void {
    this.buckets.clear();
  }

  /** Null when the request may pass; otherwise whole seconds until a token is available. */
  take(clientId: string, limit: RateLimit, nowMs: number): number | null {
    const bucket = this.buckets.get(clientId) ?? { tokens: limit.burst, atMs: nowMs };
    bucket.tokens = Math.min(limit.burst, bucket.tokens + ((nowMs - bucket.atMs) / 1000) * limit.requestsPerSecond);
    bucket.atMs = nowMs;
    this.buckets.set(clientId, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return null;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / limit.requestsPerSecond));
  }
}
