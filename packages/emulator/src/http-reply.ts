/**
 * Replies as values: every handler returns a Reply or throws an ApiError; the server writes it,
 * adds `request-id` and the data-clock `Date`, and logs it. Error bodies follow docs/bank-api.md §7.1.
 */
import type { DateTime } from 'luxon';
import { NZ } from '@bankdata/core/nz-time';
import type { ErrorBody } from '@bankdata/core/schemas';

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: Buffer | string;
  /** The BDT code, for the request log. */
  code?: string;
  /** Destroy the connection instead of answering (a dropped-connection fault). */
  drop?: boolean;
  /** Name of the injected fault, for the request log. */
  fault?: string;
}

/** An answer with the error body of 7.1 (`code` only on classified errors). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** 401 on API calls (docs/bank-api.md §7.2): empty body, WWW-Authenticate; bare `Bearer` when no token. */
export class Unauthorized extends Error {
  constructor(readonly tokenSent: boolean) {
    super('unauthorized');
    this.name = 'Unauthorized';
  }
}

const STATUS_NAMES: Record<number, string> = {
  400: '400 BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  406: 'NOT_ACCEPTABLE',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  422: 'UNPROCESSABLE_CONTENT',
  429: 'TOO_MANY_REQUESTS',
  500: 'INTERNAL_SERVER_ERROR',
  501: 'NOT_IMPLEMENTED',
  502: 'BAD_GATEWAY',
  503: 'SERVICE_UNAVAILABLE',
  504: 'GATEWAY_TIMEOUT',
};

export function statusName(status: number): string {
  return STATUS_NAMES[status] ?? `HTTP_${status}`;
}

export const JSON_TYPE = 'application/json; charset=utf-8';

export function jsonReply(status: number, value: unknown, headers: Record<string, string> = {}): Reply {
  return { status, headers: { 'content-type': JSON_TYPE, ...headers }, body: JSON.stringify(value) };
}

/** The 7.1 error body; `timestamp` is the data clock with its NZ offset, `path` has no query. */
/** An instant's ISO text; luxon gives null only for an invalid DateTime, which the clock never makes. */
function isoOf(at: DateTime): string {
  const text = at.toISO();
  if (text === null) throw new RangeError(`invalid date-time: ${at.invalidReason ?? 'unknown'}`);
  return text;
}

export function errorBody(error: ApiError, path: string, now: DateTime): ErrorBody {
  return {
    timestamp: isoOf(now.setZone(NZ)),
    path,
    status: error.status,
    error: statusName(error.status),
    message: error.message,
    ...(error.code ? { code: error.code } : {}),
  };
}

export function errorReply(error: ApiError, path: string, now: DateTime): Reply {
  return {
    ...jsonReply(error.status, errorBody(error, path, now), error.headers),
    ...(error.code ? { code: error.code } : {}),
  };
}

export function unauthorizedReply(error: Unauthorized): Reply {
  return {
    status: 401,
    headers: { 'www-authenticate': error.tokenSent ? 'Bearer error="invalid_token"' : 'Bearer' },
  };
}

/** 400 without code (docs/bank-api.md §7.2: missing field or parameter, unparsable date, id not a UUID). */
export function badRequest(message: string): ApiError {
  return new ApiError(400, message);
}
