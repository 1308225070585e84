import { describe, expect, it } from 'vitest';
import {
  AuthenticationError,
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
  SplitNeededError,
  UnavailableError,
} from '../../src/api/api-errors';
import { toApiError, type ErrorAnswer } from '../../src/api/map-api-error';

const answer = (status: number, code?: string, extra: Partial<ErrorAnswer> = {}): ErrorAnswer => ({
  status,
  code,
  message: 'server text',
  headers: {},
  path: '/v1/accounts/acc-1/transactions',
  requestId: 'req-1',
  kind: 'transactions',
  ...extra,
});

describe('toApiError maps status and code per docs/bank-api.md §7.3', () => {
  it.each([
    ['BDT009', 422, 'already_ended'],
    ['BDT013', 422, 'gateway_timeout'],
    ['BDT101', 404, 'not_found'],
    ['BDT409', 422, 'rejected'],
    ['BDT410', 422, 'revoked'],
    ['BDT412', 422, 'expired'],
    ['BDT415', 422, 'unusable'],
  ])('%s is a consent-ended error that says which (%s, %s)', (code, status, reason) => {
    const error = toApiError(answer(status, code));
    expect(error).toBeInstanceOf(ConsentEndedError);
    expect((error as ConsentEndedError).reason).toBe(reason);
    expect(error.code).toBe(code);
  });

  it('BDT413 is consent not yet authorised', () => {
    expect(toApiError(answer(422, 'BDT413'))).toBeInstanceOf(ConsentNotAuthorisedError);
  });

  it('BDT411 is permission missing and names the permissions the endpoint accepts', () => {
    const error = toApiError(answer(403, 'BDT411'));
    expect(error).toBeInstanceOf(PermissionMissingError);
    expect((error as PermissionMissingError).permissions).toEqual(['ReadTransactionsBasic', 'ReadTransactionsDetail']);
  });

  it('BDT263 is split needed', () => {
    expect(toApiError(answer(422, 'BDT263'))).toBeInstanceOf(SplitNeededError);
  });

  it.each(['BDT236', 'BDT237', 'BDT238', 'BDT239'])('%s is a date rule error', (code) => {
    const error = toApiError(answer(400, code));
    expect(error).toBeInstanceOf(DateRuleError);
    expect((error as DateRuleError).ruleCode).toBe(code);
    expect((error as DateRuleError).legacy).toBe(false);
  });

  it('R-RES-1 the legacy no-code 400 "To date time must not be before from date time" is BDT237 (docs/bank-api.md §7.2)', () => {
    const error = toApiError(answer(400, undefined, { message: 'To date time must not be before from date time' }));
    expect(error).toBeInstanceOf(DateRuleError);
    expect((error as DateRuleError).ruleCode).toBe('BDT237');
    expect((error as DateRuleError).legacy).toBe(true);
    expect(error.code).toBeNull();
  });

  it('any other no-code 400 is a rejected request, whatever its message', () => {
    const error = toApiError(answer(400, undefined, { message: 'To date time must not be before from date time!' }));
    expect(error).toBeInstanceOf(RequestRejectedError);
  });

  it.each([
    'BDT211',
    'BDT212',
    'BDT213',
    'BDT228',
    'BDT230',
    'BDT240',
    'BDT241',
    'BDT242',
    'BDT243',
    'BDT244',
    'BDT245',
    'BDT246',
    'BDT251',
    'BDT252',
    'BDT254',
    'BDT255',
    'BDT257',
    'BDT258',
    'BDT259',
    'BDT260',
    'BDT261',
    'BDT262',
    'BDT264',
    'BDT265',
    'BDT266',
    'BDT267',
    'BDT268',
    'BDT401',
    'BDT402',
    'BDT403',
    'BDT014',
    'BDT299',
  ])('%s is a configuration error', (code) => {
    expect(toApiError(answer(400, code, { kind: 'consents' }))).toBeInstanceOf(ConfigurationError);
  });

  it.each(['BDT701', 'BDT702', 'BDT704'])('%s is an idempotency error', (code) => {
    expect(toApiError(answer(409, code, { kind: 'consents' }))).toBeInstanceOf(IdempotencyError);
  });

  it('403 without code is scope missing and names the endpoint scope', () => {
    const error = toApiError(answer(403, undefined, { kind: 'balances' }));
    expect(error).toBeInstanceOf(ScopeMissingError);
    expect((error as ScopeMissingError).scope).toBe('read:balances');
    expect(error.message).toContain('read:balances');
  });

  it('404 without code is not found; 501 is not supported', () => {
    expect(toApiError(answer(404))).toBeInstanceOf(NotFoundError);
    expect(toApiError(answer(501))).toBeInstanceOf(NotSupportedError);
  });

  it.each([
    [429, undefined],
    [500, undefined],
    [502, undefined],
    [504, undefined],
    [503, 'BDT601'],
    [503, 'BDT602'],
    [503, 'BDT603'],
    [503, 'BDT604'],
    [503, undefined],
  ])('%s %s is unavailable and keeps Retry-After and Date', (status, code) => {
    const error = toApiError(
      answer(status, code, { headers: { 'retry-after': '7', date: 'Wed, 05 Mar 2025 10:00:00 GMT' } }),
    );
    expect(error).toBeInstanceOf(UnavailableError);
    expect((error as UnavailableError).retryAfter).toBe('7');
    expect((error as UnavailableError).serverDate).toBe('Wed, 05 Mar 2025 10:00:00 GMT');
  });

  it('a 401 reaching the mapper is an authentication error that says to check credentials and environment', () => {
    const error = toApiError(answer(401, undefined, { message: null }));
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.message).toMatch(/credential|secret/);
    expect(error.message).toMatch(/sandbox vs production/);
  });

  it('token endpoint 401 and 403 are authentication errors, not scope errors', () => {
    expect(toApiError(answer(401, undefined, { kind: 'token' }))).toBeInstanceOf(AuthenticationError);
    expect(toApiError(answer(403, undefined, { kind: 'token' }))).toBeInstanceOf(AuthenticationError);
  });

  it('an unknown code falls through to its status; 405 and 406 are rejected requests', () => {
    expect(toApiError(answer(503, 'BDT999'))).toBeInstanceOf(UnavailableError);
    expect(toApiError(answer(422, 'BDT999'))).toBeInstanceOf(RequestRejectedError);
    expect(toApiError(answer(405))).toBeInstanceOf(RequestRejectedError);
    expect(toApiError(answer(406, undefined, { kind: 'statement_file' }))).toBeInstanceOf(RequestRejectedError);
  });

  it("a code named like an object's own property (constructor, toString) is an unknown code, not a consent ended", () => {
    for (const code of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      expect(toApiError(answer(503, code))).toBeInstanceOf(UnavailableError);
      expect(toApiError(answer(400, code))).not.toBeInstanceOf(ConsentEndedError);
    }
  });

  it('R-ERR-2 the `error` field is never read: only status and code decide', () => {
    // The mapper has no `error` input at all; the same status and code always give the same class.
    const a = toApiError(answer(422, 'BDT410', { message: 'UNAUTHORIZED' }));
    const b = toApiError(answer(422, 'BDT410', { message: 'anything' }));
    expect(a.constructor).toBe(b.constructor);
  });

  it('every error carries status, code, path, requestId and cause, and serialises without the cause', () => {
    const cause = new Error('inner');
    const error = toApiError(answer(404, 'BDT101', { cause }));
    expect(error.status).toBe(404);
    expect(error.code).toBe('BDT101');
    expect(error.path).toBe('/v1/accounts/acc-1/transactions');
    expect(error.requestId).toBe('req-1');
    expect(error.cause).toBe(cause);
    expect(JSON.parse(JSON.stringify(error))).toMatchObject({
      name: 'ConsentEndedError',
      kind: 'consent_ended',
      status: 404,
      code: 'BDT101',
      requestId: 'req-1',
      reason: 'not_found',
    });
  });
});
