/**
 * What every Payments API route shares: the runtime (the Data emulator's context for clock, log
 * and rate limit, plus the payments state), auth (401, 429, 403 scope), the UUID header rule
 * (BP299) and body reading (BP299 when not a JSON object).
 */
import { UUID_PATTERN } from '@bankdata/core/schemas';
import type { PaymentsScope } from '@bankdata/core/payment-schemas';
import type { EmulatorContext, RequestInfo } from '../emulator-context';
import { authenticateBearer, requireScope } from '../auth';
import { ApiError } from '../http-reply';
import type { PaymentsToken } from './auth';
import type { PaymentsState } from './state';

export interface PaymentsRuntime {
  ctx: EmulatorContext;
  state: PaymentsState;
}

const tokens = new WeakMap<RequestInfo, PaymentsToken>();

/** 401 (empty body, WWW-Authenticate), then the shared rate limit (429), then the scope (403, no code). */
export function authorizePayments(
  rt: PaymentsRuntime,
  rq: RequestInfo,
  scopes: readonly PaymentsScope[] | null,
): PaymentsToken {
  let token = tokens.get(rq);
  if (!token) {
    // Payments clients get their own rate-limit buckets beside the Data API's.
    token = authenticateBearer(rt.ctx, rq, rt.state.auth, 'payments ');
    tokens.set(rq, token);
  }
  if (scopes !== null) requireScope(token.scopes, scopes);
  return token;
}

/** BP299: idempotency-key, request-id and x-correlation-id must be UUIDs when sent (seed). */
export function checkUuidHeaders(rq: RequestInfo): { idempotencyKey?: string } {
  for (const name of ['idempotency-key', 'request-id', 'x-correlation-id']) {
    const value = rq.req.headers[name];
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(',') : value;
    if (!UUID_PATTERN.test(text.toLowerCase()))
      throw new ApiError(400, `Header ${name} is not a UUID: ${text}`, 'BP299');
  }
  const key = rq.req.headers['idempotency-key'];
  return typeof key === 'string' ? { idempotencyKey: key.toLowerCase() } : {};
}

/** The body as a JSON object; BP299 otherwise. */
export function readJsonObject(raw: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new ApiError(400, 'Request body is not valid JSON', 'BP299');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ApiError(400, 'Request body must be a JSON object', 'BP299');
  }
  return value as Record<string, unknown>;
}

/** BP299 for a path id that is not a UUID. */
export function requireUuid(id: string, what: string): string {
  // A UUID's hex digits are case-insensitive on input (RFC 9562); ids are kept in lower case.
  const lower = id.toLowerCase();
  if (!UUID_PATTERN.test(lower)) throw new ApiError(400, `${what} is not a UUID: ${id}`, 'BP299');
  return lower;
}
