/**
 * One HTTP exchange with undici: a timeout on every request, no redirect followed (undici 7's
 * `request` follows none without the redirect interceptor; a 3xx is a protocol error upstream),
 * `https` required except for loopback hosts, a cap on the response size, the `request-id`
 * captured, and the server's `Date` header recorded (the emulator's data clock travels there).
 * It counts every request it sends, retries included, and counts it to the work sending it too
 * (request-count.ts). It knows nothing of tokens or retries.
 */
import type { Readable } from 'node:stream';
import { DateTime } from 'luxon';
import type { Dispatcher } from 'undici';
import { systemClock, type Clock } from '@bankdata/core/clock';
import type { Logger } from '../log';
import { countRequest } from './request-count';
import {
  ConfigurationError,
  ProtocolError,
  unreachableError,
  type RequestKind,
  type UnavailableError,
} from './api-errors';

/** undici loads on the first request sent: commands that send none (export, status) never load it. */
let undici: Promise<typeof import('undici')> | null = null;

export type HttpMethod = 'GET' | 'POST' | 'DELETE';
/** Payments API requests (src/api/payments), counted beside the Data API's kinds. */
export type PaymentsRequestKind =
  | 'payment_create'
  | 'payment'
  | 'payment_consent_create'
  | 'payment_consent'
  | 'payment_consent_revoke';
/** What a request is, for counts and the debug log. */
export type HttpKind = RequestKind | PaymentsRequestKind;
export type ResponseHeaders = Readonly<Record<string, string | string[] | undefined>>;

export interface HttpExchange {
  method: HttpMethod;
  url: URL;
  kind: HttpKind;
  headers: Record<string, string>;
  body?: string;
  /** Overrides the client's timeout (statement files take longer). */
  timeoutMs?: number;
}

/** An answer whose body is still a stream: read it or dump it. */
export interface StreamAnswer {
  status: number;
  headers: ResponseHeaders;
  requestId: string | null;
  path: string;
  body: Readable;
  /** The error to report when reading `body` fails: the timeout, or a dropped connection. */
  streamError(error: unknown): UnavailableError;
}

export interface HttpAnswer {
  status: number;
  headers: ResponseHeaders;
  requestId: string | null;
  path: string;
  body: Buffer;
}

export interface HttpStats {
  /** Every HTTP request sent, retries and token requests included. */
  requests: number;
  byKind: Partial<Record<HttpKind, number>>;
}

export interface HttpOptions {
  timeoutMs: number;
  maxResponseBytes: number;
  logger: Logger;
  /** Our clock, against which the server's `Date` is judged (systemClock by default). */
  now?: Clock;
  dispatcher?: Dispatcher | undefined;
}

export interface Http {
  /** Sends and reads the whole body (up to the size cap). */
  send(exchange: HttpExchange): Promise<HttpAnswer>;
  /** Sends and hands back the body as a stream; the timeout runs until the body ends. */
  open(exchange: HttpExchange): Promise<StreamAnswer>;
  /** Reads a streamed body up to `maxBytes` (a protocol error beyond). */
  readBody(answer: StreamAnswer, maxBytes?: number): Promise<Buffer>;
  stats(): HttpStats;
  /** The instant of the last `Date` header seen, or null before any answer. */
  serverNow(): DateTime | null;
}

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/** `https` required, except for loopback hosts (the emulator). */
export function assertTransportAllowed(url: URL): void {
  if (url.protocol === 'https:') return;
  if (url.protocol === 'http:' && LOOPBACK.test(url.hostname)) return;
  throw new ConfigurationError(
    `refusing ${url.protocol}//${url.host}: the Data API is https only (plain http is allowed for loopback hosts)`,
    { status: null, code: null, path: url.pathname, requestId: null },
  );
}

function firstHeader(headers: ResponseHeaders, name: string): string | null {
  const value = headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? null;
}

class TimeoutSignal extends Error {
  constructor() {
    super('request timed out');
    this.name = 'TimeoutSignal';
  }
}

/** A server `Date` further than this from our clock is warned about (once a day per client). */
export const CLOCK_SKEW_WARN_MS = 365 * 86_400_000;
/** How often the warning is said again by a client that lives on (`bankdata schedule`): daily. */
const CLOCK_SKEW_REPEAT_MS = 86_400_000;

export function createHttp(options: HttpOptions): Http {
  const { logger } = options;
  const now = options.now ?? systemClock;
  const stats: { requests: number; byKind: Partial<Record<HttpKind, number>> } = { requests: 0, byKind: {} };
  let lastServerDate: DateTime | null = null;
  /** When (our clock, ms) the skew was last said; null: never. */
  let skewWarnedAt: number | null = null;

  // Every answer's `Date` passes here. One a year or more from our clock (a server's clock reset
  // to 1970, ours decades off) is said once per command run, and once a day by a client that
  // lives on (the scheduler's: once per nightly run): token timing, consent expiry and the sync's
  // windows lean on the server's time, so the user should know which clock is wrong
  // (docs/security.md "Unix use").
  // The header has whole seconds: answers of one second repeat it, and parse it once.
  let lastRaw: string | null = null;
  const recordDate = (headers: ResponseHeaders) => {
    const raw = firstHeader(headers, 'date');
    if (!raw) return;
    const parsed = raw === lastRaw && lastServerDate ? lastServerDate : DateTime.fromHTTP(raw, { zone: 'utc' });
    if (!parsed.isValid) return;
    lastRaw = raw;
    lastServerDate = parsed;
    const ours = now();
    const due = skewWarnedAt === null || ours.getTime() - skewWarnedAt >= CLOCK_SKEW_REPEAT_MS;
    if (due && Math.abs(parsed.toMillis() - ours.getTime()) > CLOCK_SKEW_WARN_MS) {
      skewWarnedAt = ours.getTime();
      logger.warn("the server's clock is more than a year from ours: one of them is wrong", {
        serverDate: parsed.toISO(),
        ourDate: ours.toISOString(),
      });
    }
  };

  async function open(exchange: HttpExchange): Promise<StreamAnswer> {
    const { url, method, kind } = exchange;
    assertTransportAllowed(url);
    const path = url.pathname;
    const timeoutMs = exchange.timeoutMs ?? options.timeoutMs;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new TimeoutSignal()), timeoutMs);
    const started = performance.now();
    stats.requests += 1;
    stats.byKind[kind] = (stats.byKind[kind] ?? 0) + 1;
    countRequest();
    const fail = (error: unknown): never => {
      clearTimeout(timer);
      const timedOut = controller.signal.aborted;
      logger.debug('http request failed', {
        method,
        path,
        kind,
        reason: timedOut ? 'timeout' : 'connection',
        durationMs: Math.round(performance.now() - started),
      });
      throw unreachableError(path, timedOut ? 'timeout' : 'connection', timedOut ? new TimeoutSignal() : error);
    };
    let response: Dispatcher.ResponseData;
    try {
      const { request } = await (undici ??= import('undici'));
      response = await request(url, {
        method,
        headers: exchange.headers,
        body: exchange.body,
        signal: controller.signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
      });
    } catch (error) {
      return fail(error);
    }
    const headers = response.headers as ResponseHeaders;
    const requestId = firstHeader(headers, 'request-id');
    recordDate(headers);
    logger.debug('http request', {
      method,
      path,
      kind,
      status: response.statusCode,
      requestId,
      durationMs: Math.round(performance.now() - started),
    });
    const body = response.body;
    body.once('close', () => clearTimeout(timer));
    body.once('end', () => clearTimeout(timer));
    body.once('error', () => clearTimeout(timer));
    // A failure while the body streams is a dropped connection or the timeout.
    const streamError = (error: unknown) =>
      controller.signal.aborted
        ? unreachableError(path, 'timeout', new TimeoutSignal())
        : unreachableError(path, 'connection', error);
    return { status: response.statusCode, headers, requestId, path, body, streamError };
  }

  async function readBody(answer: StreamAnswer, maxBytes = options.maxResponseBytes): Promise<Buffer> {
    const details = { status: answer.status, code: null, path: answer.path, requestId: answer.requestId };
    const declared = Number(firstHeader(answer.headers, 'content-length') ?? NaN);
    if (Number.isFinite(declared) && declared > maxBytes) {
      answer.body.destroy();
      throw new ProtocolError(`response body too large (${declared} bytes, cap ${maxBytes})`, details);
    }
    const chunks: Buffer[] = [];
    let total = 0;
    try {
      for await (const chunk of answer.body) {
        const buf = chunk as Buffer;
        total += buf.length;
        if (total > maxBytes) {
          answer.body.destroy();
          throw new ProtocolError(`response body too large (over the cap of ${maxBytes} bytes)`, details);
        }
        chunks.push(buf);
      }
    } catch (error) {
      if (error instanceof ProtocolError) throw error;
      throw answer.streamError(error);
    }
    return Buffer.concat(chunks);
  }

  return {
    open,
    readBody,
    send: async (exchange) => {
      const answer = await open(exchange);
      const body = await readBody(answer);
      return { status: answer.status, headers: answer.headers, requestId: answer.requestId, path: answer.path, body };
    },
    stats: () => ({ requests: stats.requests, byKind: { ...stats.byKind } }),
    serverNow: () => lastServerDate,
  };
}
