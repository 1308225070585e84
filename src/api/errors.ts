/**
 * One error class per kind of failure (docs/bank-api.md §7.3); `map-error.ts` holds the ONE function
 * that maps an HTTP answer to them. Every error carries status, code, path, requestId and
 * cause. Messages are passed through `redact`, and are built so that no secret is put in
 * them in the first place.
 */
import { redact } from '../log';
import type { Endpoint } from './rules';
import type { Permission, Scope } from './schemas';

export type ApiErrorKind =
  | 'consent_ended'
  | 'consent_not_authorised'
  | 'permission_missing'
  | 'split_needed'
  | 'date_rule'
  | 'configuration'
  | 'idempotency'
  | 'scope_missing'
  | 'not_found'
  | 'not_supported'
  | 'unavailable'
  | 'authentication'
  | 'protocol'
  | 'request_rejected';

/** Which request an answer belongs to: a Data API endpoint, or the token endpoint. */
export type RequestKind = Endpoint | 'token';

export interface ApiErrorDetails {
  /** HTTP status; null when no answer came (timeout, dropped connection) or before sending. */
  status: number | null;
  /** The BDT code as sent (for the legacy BDT237 message: null, see DateRuleError.ruleCode). */
  code: string | null;
  /** Request path without query string. */
  path: string;
  requestId: string | null;
  cause?: unknown;
}

/**
 * What an error of an API answer carries, for the Data and the Payments client alike
 * (`payments/errors.ts` extends it with the client action).
 */
export abstract class AnswerError<TKind extends string> extends Error {
  abstract readonly kind: TKind;
  readonly status: number | null;
  readonly code: string | null;
  readonly path: string;
  readonly requestId: string | null;

  constructor(message: string, details: ApiErrorDetails) {
    super(redact(message), details.cause === undefined ? undefined : { cause: details.cause });
    this.status = details.status;
    this.code = details.code;
    this.path = details.path;
    this.requestId = details.requestId;
  }

  /** What logs and `--json` output show: no headers, no body, no cause internals. */
  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      kind: this.kind,
      message: this.message,
      status: this.status,
      code: this.code,
      path: this.path,
      requestId: this.requestId,
    };
  }
}

/** A Data API error (the Payments client's errors are `PaymentsApiError`s, not these). */
export abstract class ApiError extends AnswerError<ApiErrorKind> {}

/** Why a consent can no longer be used (docs/bank-api.md §7.3, "consent ended" codes). */
export type ConsentEndReason =
  | 'not_found' // BDT101
  | 'already_ended' // BDT009: revoke of a Rejected, GatewayTimeout or Consumed consent
  | 'gateway_timeout' // BDT013
  | 'rejected' // BDT409
  | 'revoked' // BDT410
  | 'expired' // BDT412
  | 'unusable'; // BDT415

export const CONSENT_ENDED_CODES: Readonly<Record<string, ConsentEndReason>> = {
  BDT009: 'already_ended',
  BDT013: 'gateway_timeout',
  BDT101: 'not_found',
  BDT409: 'rejected',
  BDT410: 'revoked',
  BDT412: 'expired',
  BDT415: 'unusable',
};

/** BDT009, 013, 101, 409, 410, 412, 415: record the status, stop using the consent. */
export class ConsentEndedError extends ApiError {
  readonly kind = 'consent_ended' as const;
  override readonly name = 'ConsentEndedError';
  readonly reason: ConsentEndReason;
  constructor(message: string, details: ApiErrorDetails & { code: string }) {
    super(message, details);
    this.reason = CONSENT_ENDED_CODES[details.code] ?? 'unusable';
  }
  override toJSON() {
    return { ...super.toJSON(), reason: this.reason };
  }
}

/** BDT413: the consent is not yet authorised; try on a later run. */
export class ConsentNotAuthorisedError extends ApiError {
  readonly kind = 'consent_not_authorised' as const;
  override readonly name = 'ConsentNotAuthorisedError';
}

/** BDT411: the consent lacks the permission the endpoint needs; skip that resource. */
export class PermissionMissingError extends ApiError {
  readonly kind = 'permission_missing' as const;
  override readonly name = 'PermissionMissingError';
  /** Any one of these would do (docs/bank-api.md §3). */
  readonly permissions: readonly Permission[];
  constructor(message: string, details: ApiErrorDetails, permissions: readonly Permission[]) {
    super(message, details);
    this.permissions = permissions;
  }
  override toJSON() {
    return { ...super.toJSON(), permissions: this.permissions };
  }
}

/** BDT263: the bank's result is too large for one request; split the range and retry. */
export class SplitNeededError extends ApiError {
  readonly kind = 'split_needed' as const;
  override readonly name: string = 'SplitNeededError'; // TooManyRecordsError (paginate.ts) names itself
}

/** BDT236–239 and the legacy no-code form of BDT237: a date query rule was broken. */
export class DateRuleError extends ApiError {
  readonly kind = 'date_rule' as const;
  override readonly name = 'DateRuleError';
  /** The rule broken: the code sent, or BDT237 for the legacy message (docs/bank-api.md §7.2). */
  readonly ruleCode: 'BDT236' | 'BDT237' | 'BDT238' | 'BDT239';
  /** True when the server used the legacy no-code message for BDT237. */
  readonly legacy: boolean;
  constructor(message: string, details: ApiErrorDetails, ruleCode: DateRuleError['ruleCode'], legacy: boolean) {
    super(message, details);
    this.ruleCode = ruleCode;
    this.legacy = legacy;
  }
  override toJSON() {
    return { ...super.toJSON(), ruleCode: this.ruleCode, legacy: this.legacy };
  }
}

/** Request or configuration must be fixed: consent-creation codes, transport not allowed. */
export class ConfigurationError extends ApiError {
  readonly kind = 'configuration' as const;
  override readonly name = 'ConfigurationError';
}

/** BDT701 (key reused, other body), BDT702 (already revoked), BDT704 (in progress). */
export class IdempotencyError extends ApiError {
  readonly kind = 'idempotency' as const;
  override readonly name = 'IdempotencyError';
}

/** 403 without code: the client was not assigned the endpoint's scope (docs/bank-api.md §2, §3). */
export class ScopeMissingError extends ApiError {
  readonly kind = 'scope_missing' as const;
  override readonly name = 'ScopeMissingError';
  readonly scope: Scope | null;
  constructor(message: string, details: ApiErrorDetails, scope: Scope | null) {
    super(message, details);
    this.scope = scope;
  }
  override toJSON() {
    return { ...super.toJSON(), scope: this.scope };
  }
}

/** 404 without code: unknown path, account_id or statement_id (docs/bank-api.md §7.2, §6.0). */
export class NotFoundError extends ApiError {
  readonly kind = 'not_found' as const;
  override readonly name = 'NotFoundError';
}

/** 501: the resource is not supported by the consent's bank. */
export class NotSupportedError extends ApiError {
  readonly kind = 'not_supported' as const;
  override readonly name = 'NotSupportedError';
}

/**
 * 429, 503 (BDT601–604), 500, 502, 504, timeouts, dropped connections: the service could not
 * answer now. Retried by the policy; after the last attempt it reaches the caller.
 */
export class UnavailableError extends ApiError {
  readonly kind = 'unavailable' as const;
  override readonly name = 'UnavailableError';
  /** Raw `Retry-After` header, judged by the retry policy (integer seconds or HTTP-date). */
  readonly retryAfter: string | null;
  /** Raw `Date` header of the same answer: the reference instant for an HTTP-date Retry-After. */
  readonly serverDate: string | null;
  constructor(message: string, details: ApiErrorDetails, retryAfter: string | null = null, serverDate: string | null = null) {
    super(message, details);
    this.retryAfter = retryAfter;
    this.serverDate = serverDate;
  }
}

/** Credentials or environment wrong: token endpoint 401/403, or a 401 after a fresh token. */
export class AuthenticationError extends ApiError {
  readonly kind = 'authentication' as const;
  override readonly name = 'AuthenticationError';
}

/**
 * The server broke the contract: a response that fails its schema envelope, an off-origin
 * `Next`, a page loop, too many pages, a body too large, a redirect, a wrong Content-Type.
 */
export class ProtocolError extends ApiError {
  readonly kind = 'protocol' as const;
  override readonly name = 'ProtocolError';
}

/**
 * Any other refusal: 400 without code (missing parameter, unparsable date: a client bug),
 * 405, 406, and codes this client does not know. Never retried.
 */
export class RequestRejectedError extends ApiError {
  readonly kind = 'request_rejected' as const;
  override readonly name = 'RequestRejectedError';
}

/** A timeout or dropped connection: no HTTP answer at all. */
export function unreachableError(path: string, reason: 'timeout' | 'connection', cause: unknown): UnavailableError {
  const text = reason === 'timeout' ? 'request timed out' : 'connection failed or dropped';
  return new UnavailableError(`${text} on ${path}`, { status: null, code: null, path, requestId: null, cause });
}
