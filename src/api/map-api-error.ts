/**
 * The ONE function that maps an HTTP answer (status, code, headers, path, request-id) to its
 * error class (docs/bank-api.md §7.2, §7.3). It decides by `code` first, then `status`; it never reads
 * `error`, and reads `message` only for the legacy no-code BDT237 of docs/bank-api.md §7.2. The parts
 * that do not depend on the API (details, 401 with a fresh token, unavailable) are exported for
 * the Payments API's mapping function (payments/map-payment-error.ts).
 */
import {
  AuthenticationError,
  CONSENT_ENDED_CODES,
  isConsentEndedCode,
  ConfigurationError,
  ConsentEndedError,
  ConsentNotAuthorisedError,
  DateRuleError,
  IdempotencyError,
  NotFoundError,
  NotSupportedError,
  PermissionMissingError,
  RequestRejectedError,
  ScopeMissingError,
  SecretRefusedError,
  SplitNeededError,
  UnavailableError,
  type ApiError,
  type ApiErrorKind,
  type ApiErrorDetails,
  type RequestKind,
} from './api-errors';
import { ENDPOINT_ACCESS } from '@bankdata/core/endpoint-access';

/** docs/bank-api.md §7.2: the legacy no-code form of BDT237. The ONE place a message text is read. */
export const LEGACY_BDT237_MESSAGE = 'To date time must not be before from date time';

/**
 * Every BDT code of the bank's API documentation: the status it comes with (docs/bank-api.md §7.3)
 * the error kind (class) `toApiError` gives it, and the client action, in §7.3's words.
 * test/api/code-tables.test.ts holds this table, §7.3 and `toApiError` to each other.
 */
export const DATA_CODE_ACTIONS: Readonly<Record<string, { status: number; kind: ApiErrorKind; action: string }>> = {
  BDT101: { status: 404, kind: 'consent_ended', action: 'stop using it' },
  BDT211: { status: 400, kind: 'configuration', action: 'configuration error' },
  BDT212: { status: 400, kind: 'configuration', action: 'fix the request' },
  BDT213: { status: 400, kind: 'configuration', action: 'configuration error' },
  BDT228: { status: 400, kind: 'configuration', action: 'fix the request' },
  BDT230: { status: 400, kind: 'configuration', action: 'fix the request' },
  BDT241: { status: 400, kind: 'configuration', action: 'fix the request; re-read meta' },
  BDT242: { status: 400, kind: 'configuration', action: 'fix the request' },
  BDT243: { status: 400, kind: 'configuration', action: 'fix the request' },
  BDT245: { status: 400, kind: 'configuration', action: 'fix the request' },
  BDT246: { status: 400, kind: 'configuration', action: 'fix the request' },
  BDT254: { status: 400, kind: 'configuration', action: 'client bug' },
  BDT255: { status: 400, kind: 'configuration', action: 'client bug' },
  BDT259: { status: 400, kind: 'configuration', action: 'client bug' },
  BDT260: { status: 400, kind: 'configuration', action: 'client bug' },
  BDT261: { status: 400, kind: 'configuration', action: 'client bug' },
  BDT262: { status: 400, kind: 'configuration', action: 'client bug' },
  BDT299: { status: 400, kind: 'configuration', action: 'client bug' },
  BDT264: { status: 400, kind: 'configuration', action: 'fix `callback_url`' },
  BDT265: { status: 400, kind: 'configuration', action: 'fix `callback_url`' },
  BDT266: { status: 400, kind: 'configuration', action: 'fix `callback_url`' },
  BDT267: { status: 400, kind: 'configuration', action: 'fix `callback_url`' },
  BDT268: { status: 400, kind: 'configuration', action: 'fix `callback_url`' },
  BDT401: { status: 400, kind: 'configuration', action: 'pick another flow' },
  BDT402: { status: 400, kind: 'configuration', action: 'pick another flow' },
  BDT403: { status: 400, kind: 'configuration', action: 'pick another flow' },
  BDT014: { status: 400, kind: 'configuration', action: 'fix dates' },
  BDT240: { status: 400, kind: 'configuration', action: 'fix dates' },
  BDT244: { status: 400, kind: 'configuration', action: 'fix dates' },
  BDT251: { status: 400, kind: 'configuration', action: 'fix dates' },
  BDT252: { status: 400, kind: 'configuration', action: 'fix dates' },
  BDT257: { status: 400, kind: 'configuration', action: 'fix dates' },
  BDT258: { status: 400, kind: 'configuration', action: 'fix dates' },
  BDT236: { status: 400, kind: 'date_rule', action: 'clamp the range to the window' },
  BDT237: { status: 400, kind: 'date_rule', action: 'client bug' },
  BDT238: { status: 400, kind: 'date_rule', action: 'clamp to today (NZ)' },
  BDT239: { status: 400, kind: 'date_rule', action: 'skip' },
  BDT263: { status: 422, kind: 'split_needed', action: 'split the range and retry (§6.4)' },
  BDT009: { status: 422, kind: 'consent_ended', action: 'record it' },
  BDT013: { status: 422, kind: 'consent_ended', action: 'new consent needed' },
  BDT409: { status: 422, kind: 'consent_ended', action: 'new consent needed' },
  BDT410: { status: 422, kind: 'consent_ended', action: 'stop syncing it' },
  BDT412: { status: 422, kind: 'consent_ended', action: 'stop syncing it' },
  BDT413: { status: 422, kind: 'consent_not_authorised', action: 'try on a later run' },
  BDT415: { status: 422, kind: 'consent_ended', action: 'new consent needed' },
  BDT411: { status: 403, kind: 'permission_missing', action: 'skip that resource' },
  BDT601: { status: 503, kind: 'unavailable', action: 'back off and retry' },
  BDT602: { status: 503, kind: 'unavailable', action: 'back off and retry' },
  BDT603: { status: 503, kind: 'unavailable', action: 'back off and retry' },
  BDT604: { status: 503, kind: 'unavailable', action: 'retry shortly' },
  BDT701: { status: 409, kind: 'idempotency', action: 'new key' },
  BDT702: { status: 409, kind: 'idempotency', action: 'treat as done' },
  BDT704: { status: 409, kind: 'idempotency', action: 'retry with the same key' },
};

const codesOfKind = (kind: ApiErrorKind): ReadonlySet<string> =>
  new Set(Object.entries(DATA_CODE_ACTIONS).flatMap(([code, entry]) => (entry.kind === kind ? [code] : [])));
const DATE_RULE_CODES = codesOfKind('date_rule');
const IDEMPOTENCY_CODES = codesOfKind('idempotency');
const AVAILABILITY_CODES = codesOfKind('unavailable');
/** Consent-creation codes (docs/bank-api.md §7.3): fix the request or the configuration. */
const CONFIGURATION_CODES = codesOfKind('configuration');
/** Statuses that mean "try again later" for both APIs (docs/bank-api.md §7.3; docs/payments-contract.md §5). */
/**
 * An answer with no clear outcome, to wait out and retry: 429, and every 5xx that no code or
 * earlier rule explains (a 507, or a 520–524 from an edge in front of the API, as much as a 503).
 * The bank: "For a timeout or other 5xx with no clear answer, the client checks the resource state
 * before resubmitting"; a payment answered so is looked for before it is sent again.
 */
export function isUnavailableStatus(status: number): boolean {
  return status === 429 || (status >= 500 && status <= 599);
}

export const AUTHENTICATION_HINT =
  'check the client id and secret, and that they belong to the environment of the base URL (sandbox vs production)';

/** An HTTP answer that is not a success, as the mapping function reads it. */
export interface ErrorAnswer {
  status: number;
  /** `code` of the error body, when the body parsed as the error body of docs/bank-api.md §7.1. */
  code?: string | null | undefined;
  /** `message` of the error body: shown to people, read only for the legacy BDT237 form. */
  message?: string | null | undefined;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  path: string;
  requestId: string | null;
  kind: RequestKind;
  cause?: unknown;
}

/** What both mapping functions read from an answer, whichever API it came from. */
export type AnswerFacts = Omit<ErrorAnswer, 'kind'>;

/** A header's (first) value, or null. */
export function firstHeader(headers: AnswerFacts['headers'], name: string): string | null {
  const value = headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? null;
}

/** An answer's code, error details and the two message parts every mapped error uses. */
export function describeAnswer(answer: AnswerFacts): {
  code: string | null;
  details: ApiErrorDetails;
  what: string;
  said: string;
} {
  const { status } = answer;
  const code = answer.code ?? null;
  return {
    code,
    details: { status, code, path: answer.path, requestId: answer.requestId, cause: answer.cause },
    what: `${status}${code ? ` ${code}` : ''} on ${answer.path}`,
    said: answer.message ? `: ${answer.message}` : '',
  };
}

/** A 401 on a request sent with a fresh token (docs/bank-api.md §7.4): the credentials are wrong. */
export function toFreshTokenError(answer: AnswerFacts, details: ApiErrorDetails): AuthenticationError {
  return new AuthenticationError(`401 on ${answer.path} with a fresh token: ${AUTHENTICATION_HINT}`, details);
}

/** Service unavailable (BDT601–604, BP codes of that kind, or an unavailable status), with Retry-After and Date. */
export function toUnavailableError(
  answer: AnswerFacts,
  details: ApiErrorDetails,
  what: string,
  said: string,
): UnavailableError {
  return new UnavailableError(
    `service unavailable, ${what}${said}`,
    details,
    firstHeader(answer.headers, 'retry-after'),
    firstHeader(answer.headers, 'date'),
  );
}

/** Maps a non-success answer to its error class. Code first, then status (docs/bank-api.md §7.3). */
export function toApiError(answer: ErrorAnswer): ApiError {
  const { status, kind } = answer;
  const { code, details, what, said } = describeAnswer(answer);

  if (kind === 'token' && status === 401) {
    return new SecretRefusedError(`token request refused (401): ${AUTHENTICATION_HINT}`, details);
  }
  if (kind === 'token' && status === 403) {
    return new AuthenticationError(`token request refused (403): ${AUTHENTICATION_HINT}`, details);
  }
  if (code !== null) {
    // Own keys only (isConsentEndedCode): a code named `constructor` is no consent's end.
    if (isConsentEndedCode(code)) {
      return new ConsentEndedError(`consent can no longer be used (${CONSENT_ENDED_CODES[code]}), ${what}${said}`, {
        ...details,
        code,
      });
    }
    if (code === 'BDT413') return new ConsentNotAuthorisedError(`consent not yet authorised, ${what}${said}`, details);
    if (code === 'BDT411') {
      const permissions = kind === 'token' ? [] : ENDPOINT_ACCESS[kind].permissions;
      return new PermissionMissingError(
        `consent lacks the permission for ${kind} (any of ${permissions.join(', ')}), ${what}${said}`,
        details,
        permissions,
      );
    }
    if (code === 'BDT263')
      return new SplitNeededError(`bank result too large, split the range, ${what}${said}`, details);
    if (DATE_RULE_CODES.has(code)) {
      return new DateRuleError(`date rule broken, ${what}${said}`, details, code as DateRuleError['ruleCode'], false);
    }
    if (CONFIGURATION_CODES.has(code)) return new ConfigurationError(`request refused, ${what}${said}`, details);
    if (IDEMPOTENCY_CODES.has(code)) return new IdempotencyError(`idempotency conflict, ${what}${said}`, details);
    if (AVAILABILITY_CODES.has(code)) return toUnavailableError(answer, details, what, said);
    // An unknown code falls through to its status.
  }
  if (status === 401) return toFreshTokenError(answer, details);
  if (status === 403 && code === null) {
    const scope = kind === 'token' ? null : ENDPOINT_ACCESS[kind].scope;
    return new ScopeMissingError(
      `the client is not assigned the scope ${scope} needed for ${kind}, ${what}`,
      details,
      scope,
    );
  }
  if (status === 400 && code === null && answer.message === LEGACY_BDT237_MESSAGE) {
    return new DateRuleError(`date rule broken (BDT237, legacy form), ${what}${said}`, details, 'BDT237', true);
  }
  if (status === 404 && code === null) return new NotFoundError(`not found, ${what}${said}`, details);
  if (status === 501) return new NotSupportedError(`resource not supported by the bank, ${what}${said}`, details);
  if (isUnavailableStatus(status)) return toUnavailableError(answer, details, what, said);
  return new RequestRejectedError(`request refused, ${what}${said}`, details);
}
