/**
 * One error class per kind of failure (docs/bank-api.md §7.3); `map-api-error.ts` holds the ONE function
 * that maps an HTTP answer to them. Every error carries status, code, path, requestId and
 * cause. Messages are passed through `redact`, and are built so that no secret is put in
 * them in the first place.
 */
import { redact } from '@bankdata/core/secrets';
import type { Endpoint } from '@bankdata/core/endpoint-access';
import type { Permission, Scope } from '@bankdata/core/schemas';
import { ownValue } from '@bankdata/core/own-value';

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
 * (`payments/payment-errors.ts` extends it with the client action).
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

/**
 * The base of one kind of Data API error: its kind, and the name that logs and `--json` output
 * show (written out: bundling may rename a class).
 */
function apiErrorClass<K extends ApiErrorKind>(kind: K, name: string) {
  return class extends ApiError {
    readonly kind = kind;
    override readonly name: string = name;
  };
}

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

/**
 * Whether an answer's code says the consent has ended (CONSENT_ENDED_CODES): a read answered so
 * told the consent's state (it is recorded ended, as the sync records it), it did not fail to.
 */
export function isConsentEndedCode(code: string | null): boolean {
  return ownValue(CONSENT_ENDED_CODES, code) !== undefined;
}

/** BDT009, 013, 101, 409, 410, 412, 415: record the status, stop using the consent. */
export class ConsentEndedError extends apiErrorClass('consent_ended', 'ConsentEndedError') {
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
export class ConsentNotAuthorisedError extends apiErrorClass('consent_not_authorised', 'ConsentNotAuthorisedError') {}

/** BDT411: the consent lacks the permission the endpoint needs; skip that resource. */
export class PermissionMissingError extends apiErrorClass('permission_missing', 'PermissionMissingError') {
  /** @param permissions any one of these would do (docs/bank-api.md §3) */
  constructor(
    message: string,
    details: ApiErrorDetails,
    readonly permissions: readonly Permission[],
  ) {
    super(message, details);
  }
  override toJSON() {
    return { ...super.toJSON(), permissions: this.permissions };
  }
}

/**
 * BDT263: the bank's result is too large for one request; split the range and retry.
 * TooManyRecordsError (paginate.ts) extends it and names itself.
 */
export class SplitNeededError extends apiErrorClass('split_needed', 'SplitNeededError') {}

/** BDT236–239 and the legacy no-code form of BDT237: a date query rule was broken. */
export class DateRuleError extends apiErrorClass('date_rule', 'DateRuleError') {
  /**
   * @param ruleCode the rule broken: the code sent, or BDT237 for the legacy message (docs/bank-api.md §7.2)
   * @param legacy true when the server used the legacy no-code message for BDT237
   */
  constructor(
    message: string,
    details: ApiErrorDetails,
    readonly ruleCode: 'BDT236' | 'BDT237' | 'BDT238' | 'BDT239',
    readonly legacy: boolean,
  ) {
    super(message, details);
  }
  override toJSON() {
    return { ...super.toJSON(), ruleCode: this.ruleCode, legacy: this.legacy };
  }
}

/** Request or configuration must be fixed: consent-creation codes, transport not allowed. */
export class ConfigurationError extends apiErrorClass('configuration', 'ConfigurationError') {}

/** BDT701 (key reused, other body), BDT702 (already revoked), BDT704 (in progress). */
export class IdempotencyError extends apiErrorClass('idempotency', 'IdempotencyError') {}

/** 403 without code: the client was not assigned the endpoint's scope (docs/bank-api.md §2, §3). */
export class ScopeMissingError extends apiErrorClass('scope_missing', 'ScopeMissingError') {
  constructor(
    message: string,
    details: ApiErrorDetails,
    readonly scope: Scope | null,
  ) {
    super(message, details);
  }
  override toJSON() {
    return { ...super.toJSON(), scope: this.scope };
  }
}

/** 404 without code: unknown path, account_id or statement_id (docs/bank-api.md §7.2, §6.0). */
export class NotFoundError extends apiErrorClass('not_found', 'NotFoundError') {}

/** 501: the resource is not supported by the consent's bank. */
export class NotSupportedError extends apiErrorClass('not_supported', 'NotSupportedError') {}

/**
 * 429, 503 (BDT601–604), 500, 502, 504, timeouts, dropped connections: the service could not
 * answer now. Retried by the policy; after the last attempt it reaches the caller.
 */
export class UnavailableError extends apiErrorClass('unavailable', 'UnavailableError') {
  /**
   * @param retryAfter the raw `Retry-After` header, judged by the retry policy (integer seconds or HTTP-date)
   * @param serverDate the raw `Date` header of the same answer: the reference instant for an HTTP-date Retry-After
   */
  constructor(
    message: string,
    details: ApiErrorDetails,
    readonly retryAfter: string | null = null,
    readonly serverDate: string | null = null,
  ) {
    super(message, details);
  }
}

/** Credentials or environment wrong: token endpoint 401/403, or a 401 after a fresh token. */
export class AuthenticationError extends apiErrorClass('authentication', 'AuthenticationError') {}

/**
 * The token endpoint answered 401: the client id or secret was refused. The bank's API
 * documentation: a rotated secret takes effect at once, so a rotated and a wrong secret look the
 * same (docs/bank-api.md §2); `SECRET_REFUSED_HINT` says where the secret is read from.
 */
export class SecretRefusedError extends AuthenticationError {
  override readonly name: string = 'SecretRefusedError';
}

export const SECRET_REFUSED_HINT =
  'the bank refused the client secret (a rotated secret and a wrong one look the same): put the current one in ' +
  'BANKDATA_CLIENT_SECRET or the file BANKDATA_CLIENT_SECRET_FILE names (the Payments API: ' +
  'BANKDATA_PAYMENTS_CLIENT_SECRET or _FILE), and check the client id and BANKDATA_ENVIRONMENT';

/**
 * The server broke the contract: a response that fails its schema envelope, an off-origin
 * `Next`, a page loop, too many pages, a body too large, a redirect, a wrong Content-Type.
 */
export class ProtocolError extends apiErrorClass('protocol', 'ProtocolError') {}

/**
 * Any other refusal: 400 without code (missing parameter, unparsable date: a client bug),
 * 405, 406, and codes this client does not know. Never retried.
 */
export class RequestRejectedError extends apiErrorClass('request_rejected', 'RequestRejectedError') {}

/** A timeout or dropped connection: no HTTP answer at all. */
export function unreachableError(path: string, reason: 'timeout' | 'connection', cause: unknown): UnavailableError {
  const text = reason === 'timeout' ? 'request timed out' : 'connection failed or dropped';
  return new UnavailableError(`${text} on ${path}`, { status: null, code: null, path, requestId: null, cause });
}
