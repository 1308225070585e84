/**
 * The common checks of every resource call, in docs/bank-api.md §6.0's order: (1–2 in the server)
 * 3 query parameters → 4 date rules → 5 consent exists → 6 consent state → 7 permission →
 * 8 account / statement → 9 resource supported → (10 in the handler) → 11 upstream.
 */
import type { DateTime } from 'luxon';
import { NZ, parseQueryDateTime } from '@bankdata/core/nz-time';
import { checkQueryRange } from '@bankdata/core/consent-rules';
import { hasPermissionFor, ENDPOINT_RESOURCE, type Endpoint } from '@bankdata/core/endpoint-access';
import type { BankMeta, BankName, ConsentStatus, Statement } from '@bankdata/core/schemas';
import { bankMeta } from './bank-meta';
import type { EmulatorContext, RequestInfo } from './emulator-context';
import { findConsent, injectFault } from './consent-routes';
import type { ConsentRecord } from './consent-store';
import { ApiError, badRequest } from './http-reply';
import { accountKey, type WorldAccount } from './world-types';

/** Step 3: consent_id present (a UUID is checked with the consent). */
export function requireConsentIdParam(rq: RequestInfo): string {
  const id = rq.query.get('consent_id');
  if (id === null || id === '') throw badRequest('Required query parameter missing: consent_id');
  return id;
}

/** Step 3: a date query parameter (date-time with offset, or an NZ date); 400 without code. */
export function readDateParam(rq: RequestInfo, name: string, required: true): { value: string; at: DateTime };
export function readDateParam(
  rq: RequestInfo,
  name: string,
  required: boolean,
): { value: string; at: DateTime } | undefined;
export function readDateParam(
  rq: RequestInfo,
  name: string,
  required: boolean,
): { value: string; at: DateTime } | undefined {
  const raw = rq.query.get(name);
  if (raw === null || raw === '') {
    if (required) throw badRequest(`Required query parameter missing: ${name}`);
    return undefined;
  }
  const at = parseQueryDateTime(raw);
  if (!at) throw badRequest(`Unparsable date in ${name}: ${raw}`);
  // A raw space where the offset sign belongs was a `+` (docs/bank-api.md §1.2); keep the repaired form.
  return { value: raw.replace(/ (\d{2}:\d{2})$/, '+$1'), at };
}

/** Step 4: BDT237 alone (statements), or BDT237, BDT239, BDT238 in that order (transactions). */
export function checkDateRules(ctx: EmulatorContext, from: DateTime, to: DateTime, todayRules: boolean): void {
  if (to < from) throw bdt237(ctx);
  if (!todayRules) return;
  const failure = checkQueryRange(from, to, ctx.clock.now());
  if (failure) throw new ApiError(400, failure.message, failure.code);
}

function bdt237(ctx: EmulatorContext): ApiError {
  // docs/bank-api.md §7.2: the legacy no-code form, when the setting asks for it.
  return ctx.settings.legacyBdt237
    ? badRequest('To date time must not be before from date time')
    : new ApiError(400, 'To date must not be before from date', 'BDT237');
}

const STATE_ERRORS: Partial<Record<ConsentStatus, [string, string]>> = {
  GatewayAwaitingSubmission: ['BDT413', 'Consent is not yet authorised'],
  AwaitingAuthorisation: ['BDT413', 'Consent is not yet authorised'],
  GatewayTimeout: ['BDT013', 'Consent timed out at the gateway'],
  Rejected: ['BDT409', 'Consent was rejected'],
  Revoked: ['BDT410', 'Consent has been revoked'],
  Consumed: ['BDT412', 'Consent has expired'],
};

export interface Guarded {
  consent: ConsentRecord;
  meta: BankMeta;
  account?: WorldAccount;
  statement?: Statement;
}

/** Steps 5 to 9. */
export function guardResource(
  ctx: EmulatorContext,
  rq: RequestInfo,
  endpoint: Endpoint,
  consentId: string,
  target: { accountId: string; statementId: string },
): Guarded & { account: WorldAccount; statement: Statement };
export function guardResource(
  ctx: EmulatorContext,
  rq: RequestInfo,
  endpoint: Endpoint,
  consentId: string,
  target: { accountId: string },
): Guarded & { account: WorldAccount };
export function guardResource(ctx: EmulatorContext, rq: RequestInfo, endpoint: Endpoint, consentId: string): Guarded;
export function guardResource(
  ctx: EmulatorContext,
  rq: RequestInfo,
  endpoint: Endpoint,
  consentId: string,
  target: { accountId?: string; statementId?: string } = {},
): Guarded {
  const consent = findConsent(ctx, rq, consentId);
  const stateError = STATE_ERRORS[consent.status];
  if (stateError) throw new ApiError(422, `${stateError[1]}: ${consent.consent_id}`, stateError[0]);
  if (!hasPermissionFor(endpoint, consent.permissions)) {
    throw new ApiError(403, `Consent lacks the permission for ${rq.path}`, 'BDT411');
  }
  const meta = bankMeta(consent.bank, ctx.settings.gatewayFlowEnabled);
  const guarded: Guarded = { consent, meta };
  if (target.accountId !== undefined) {
    const key = accountKey(consent.bank, target.accountId);
    const account = consent.accountKeys.includes(key) ? ctx.world.accounts.get(key) : undefined;
    if (!account) throw new ApiError(404, `Account not found: ${target.accountId}`);
    guarded.account = account;
    if (target.statementId !== undefined) {
      const statement = visibleStatements(ctx, consent.bank, target.accountId, ctx.clock.now(), meta).find(
        (s) => s.StatementId === target.statementId,
      );
      if (!statement) throw new ApiError(404, `Statement not found: ${target.statementId}`);
      guarded.statement = statement;
    }
  }
  const resource = ENDPOINT_RESOURCE[endpoint];
  if (resource && !meta.features.resources[resource]) {
    throw new ApiError(501, `${consent.bank} does not support this resource`);
  }
  return guarded;
}

/** Step 11: BDT415 (the consent becomes Revoked), then the endpoint's own check, then faults. */
export function checkUpstream(ctx: EmulatorContext, consent: ConsentRecord, bankCheck?: () => void): void {
  if (consent.bankUnusable) {
    consent.bankUnusable = false;
    ctx.consents.revoke(consent);
    throw new ApiError(422, `Bank says consent ${consent.consent_id} is no longer usable`, 'BDT415');
  }
  bankCheck?.();
  injectFault(ctx);
}

/** Meta max_history_days: nothing older than `at` minus that many NZ calendar days is served. */
export function historyFloorMs(meta: BankMeta, at: DateTime): number | null {
  const days = meta.features.max_history_days;
  return days === null ? null : at.setZone(NZ).minus({ days }).toMillis();
}

/** Statements the bank shows at `at` within its history (EndDateTime not before the floor). */
export function visibleStatements(
  ctx: EmulatorContext,
  bank: BankName,
  accountId: string,
  at: DateTime,
  meta: BankMeta,
): Statement[] {
  const floor = historyFloorMs(meta, at);
  const all = ctx.world.statementsAt(bank, accountId, at);
  return floor === null ? all : all.filter((s) => Date.parse(s.EndDateTime) >= floor);
}
