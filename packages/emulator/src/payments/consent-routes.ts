/**
 * Payment consents (paths ours, docs/payments-contract.md): POST /payments/v1/consents with the
 * bank's request-validation codes (BP299, BP214, BP216, BP240, BP265, BP289–293, BP283, limits, BP287/BP288),
 * GET /payments/v1/consents/{id} with its `payments`, DELETE with BP701, BP707, BP011.
 */
import {
  PaymentAmount,
  PaymentPeriod,
  Pcr,
  PaymentsConsentFlow,
  type PaymentsScope,
} from '@bankdata/core/payment-schemas';
import { checkCallbackUrl, checkRedirectUri, resolvesInEmulator } from '@bankdata/core/url-rules';
import { formatNz, parseWireDateTime, nzDateOf } from '@bankdata/core/nz-time';
import { BANKS, UUID_PATTERN, type BankName } from '@bankdata/core/schemas';
import { canonicalJson } from '../consent-validate';
import type { RequestInfo } from '../emulator-context';
import { ApiError, jsonReply, type Reply } from '../http-reply';
import { randomUuid } from '../server-random';
import { toCents } from './cents';
import { checkLimits } from './payment-routes';
import { authorizePayments, checkUuidHeaders, readJsonObject, requireUuid, type PaymentsRuntime } from './request';
import { DECOUPLED_IDENTIFIERS, type PaymentConsentRecord } from './types';

/** Callback codes in the bank's range, in the order of the shared rule (malformed, scheme, http in production, not public, unresolvable). */
const CALLBACK_CODES: Record<string, string> = {
  BDT264: 'BP289',
  BDT265: 'BP290',
  BDT266: 'BP291',
  BDT267: 'BP292',
  BDT268: 'BP293',
};

const bad = (message: string, code = 'BP299') => new ApiError(400, message, code);

export function handleCreatePaymentConsent(rt: PaymentsRuntime, rq: RequestInfo): Reply {
  const { state, ctx } = rt;
  authorizePayments(rt, rq, null);
  const { idempotencyKey } = checkUuidHeaders(rq);
  const body = readJsonObject(rq.body);
  const type = body.type;
  if (type !== 'single' && type !== 'enduring') throw bad('type must be "single" or "enduring"');
  const token = authorizePayments(rt, rq, [type === 'single' ? 'create:single_consent' : 'create:enduring_consent']);

  const slot = idempotencyKey === undefined ? undefined : `${token.clientId} ${idempotencyKey}`;
  const canonicalBody = canonicalJson(body);
  const previous = slot === undefined ? undefined : state.consentKeys.get(slot);
  if (previous) {
    if (previous.canonicalBody !== canonicalBody)
      throw new ApiError(409, 'Idempotency key was already used with a different payload', 'BP702');
    return jsonReply(201, {
      consent_id: previous.consentId,
      ...(previous.redirectUri ? { redirect_uri: previous.redirectUri } : {}),
    });
  }

  const flowParsed = PaymentsConsentFlow.safeParse(body.flow);
  if (!flowParsed.success) throw bad('flow must have detail.type and flow_hint.type and flow_hint.bank');
  const flow = flowParsed.data;
  const bank = flow.flow_hint.bank;
  if (flow.detail.type !== 'decoupled') {
    const uri = flow.detail.redirect_uri;
    if (uri === undefined) throw bad('flow.detail.redirect_uri is required for gateway and redirect flows');
    const failure = checkRedirectUri(uri, ctx.settings.redirectWhitelist, ctx.environment);
    if (failure) throw bad(failure.message, failure.code === 'BDT211' ? 'BP214' : 'BP299');
  }
  if (!(BANKS as readonly string[]).includes(bank)) throw bad(`Unknown bank ${bank}`);
  if (!state.settings.merchantBanks.includes(bank))
    throw bad(`Bank ${bank} is not configured for the merchant`, 'BP216');
  if (flow.detail.type === 'decoupled') checkDecoupled(rt, flow, bank, token.clientId);

  const record = baseRecord(rt, flow, token.clientId);
  if (type === 'single') {
    const amount = PaymentAmount.safeParse(body.amount);
    const pcr = Pcr.safeParse(body.pcr);
    if (!amount.success || !pcr.success) throw bad('amount and pcr are required for a single consent');
    checkLimits(rt, { bank, type: 'single' }, amount.data);
    Object.assign(record, { type: 'single', amount: amount.data, pcr: pcr.data });
  } else {
    const from = typeof body.from_timestamp === 'string' ? parseWireDateTime(body.from_timestamp) : null;
    const expiry =
      body.expiry_timestamp === undefined
        ? undefined
        : typeof body.expiry_timestamp === 'string'
          ? parseWireDateTime(body.expiry_timestamp)
          : null;
    if (!from || expiry === null)
      throw bad('from_timestamp (required) and expiry_timestamp must be date-times with an offset');
    if (expiry && nzDateOf(from) === nzDateOf(expiry)) {
      throw bad('from_timestamp and expiry_timestamp must not fall on the same NZ date', 'BP283');
    }
    const period = PaymentPeriod.safeParse(body.period);
    const perPeriod = PaymentAmount.safeParse(body.maximum_amount_period);
    const perPayment =
      body.maximum_amount_payment === undefined ? undefined : PaymentAmount.safeParse(body.maximum_amount_payment);
    if (!period.success || !perPeriod.success || (perPayment && !perPayment.success)) {
      throw bad('period and maximum_amount_period are required; maximum_amount_payment is optional');
    }
    if (!perPayment) checkPeriodCapAgainstLimits(rt, bank, perPeriod.data);
    Object.assign(record, {
      type: 'enduring',
      from_timestamp: body.from_timestamp,
      ...(expiry ? { expiry_timestamp: body.expiry_timestamp } : {}),
      period: period.data,
      maximum_amount_period: perPeriod.data,
      ...(perPayment?.success ? { maximum_amount_payment: perPayment.data } : {}),
    });
  }
  state.addConsent(record);
  rq.consentId = record.consent_id;
  const redirectUri =
    flow.detail.type === 'decoupled'
      ? undefined
      : `${rq.origin}/__emulator/payments/authorise?cid=${record.consent_id}`;
  if (slot !== undefined)
    state.consentKeys.set(slot, {
      canonicalBody,
      consentId: record.consent_id,
      ...(redirectUri ? { redirectUri } : {}),
    });
  return jsonReply(201, { consent_id: record.consent_id, ...(redirectUri ? { redirect_uri: redirectUri } : {}) });
}

/**
 * BP287 / BP288 (seed): without maximum_amount_payment one payment may take the whole
 * maximum_amount_period, so that cap must fit the bank's payment_limit, then the merchant's.
 */
function checkPeriodCapAgainstLimits(rt: PaymentsRuntime, bank: BankName, perPeriod: PaymentAmount): void {
  const { settings } = rt.state;
  const cap = toCents(perPeriod.total);
  const bankLimit = settings.bankLimits[bank];
  if (bankLimit !== undefined && cap > toCents(bankLimit)) {
    throw bad(
      `maximum_amount_period ${perPeriod.total} without maximum_amount_payment is over ${bank}'s payment limit ${bankLimit}`,
      'BP287',
    );
  }
  if (cap > toCents(settings.merchantLimit)) {
    throw bad(
      `maximum_amount_period ${perPeriod.total} without maximum_amount_payment is over the merchant's payment limit ${settings.merchantLimit}`,
      'BP288',
    );
  }
}

/** BP240 (identifier type the bank lacks), BP265 (value not a consent ID), BP289–293 (callback_url). */
function checkDecoupled(rt: PaymentsRuntime, flow: PaymentsConsentFlow, bank: BankName, clientId: string): void {
  const { identifier_type: type, identifier_value: value } = flow.flow_hint;
  const supported = DECOUPLED_IDENTIFIERS[bank] ?? [];
  if (type === undefined || !supported.includes(type)) {
    throw bad(`identifier_type ${type ?? '(missing)'} is not supported by ${bank}`, 'BP240');
  }
  // A consent id in upper case is the same UUID (requireUuid); ids are kept in lower case.
  const id = value?.toLowerCase();
  const referenced = id !== undefined && UUID_PATTERN.test(id) ? rt.state.consents.get(id) : undefined;
  if (!referenced || !rt.state.auth.sameOrganisation(referenced.clientId, clientId))
    throw bad(`identifier_value is not a valid consent ID: ${value ?? '(missing)'}`, 'BP265');
  const callback = flow.detail.callback_url;
  if (callback !== undefined) {
    const failure = checkCallbackUrl(callback, rt.ctx.environment, resolvesInEmulator);
    if (failure) throw bad(failure.message, CALLBACK_CODES[failure.code]);
  }
}

function baseRecord(rt: PaymentsRuntime, flow: PaymentsConsentFlow, clientId: string): PaymentConsentRecord {
  const now = rt.state.nowMs();
  const created = formatNz(now);
  const gateway = flow.detail.type === 'gateway';
  return {
    consent_id: randomUuid(rt.state.idRandom),
    type: 'single',
    bank: flow.flow_hint.bank,
    status: gateway ? 'GatewayAwaitingSubmission' : 'AwaitingAuthorisation',
    creation_timestamp: created,
    status_updated_timestamp: created,
    flow,
    clientId,
    createdMs: now,
    ...(gateway ? {} : { awaitingSinceMs: now }),
    payerBank: flow.flow_hint.bank,
    bankRefusals: 0,
    payments: [],
    submitting: null,
    version: 0,
  };
}

export function viewScopes(record: Pick<PaymentConsentRecord, 'type'>, verb: 'view' | 'revoke'): PaymentsScope[] {
  if (record.type === 'enduring') return [verb === 'view' ? 'view:enduring_consent' : 'revoke:enduring_consent'];
  // The bank's API documentation: revoking a quick payment uses revoke:single_consent.
  if (record.type === 'quick_payment') return [verb === 'view' ? 'view:quick_payment' : 'revoke:single_consent'];
  return [verb === 'view' ? 'view:single_consent' : 'revoke:single_consent'];
}

function findConsent(rt: PaymentsRuntime, rq: RequestInfo, id: string): PaymentConsentRecord {
  const token = authorizePayments(rt, rq, null);
  // BP299 names the request-id and x-correlation-id headers for every call (GET and DELETE too).
  checkUuidHeaders(rq);
  const consentId = requireUuid(id, 'consent_id');
  rq.consentId = consentId;
  const record = rt.state.consent(consentId);
  if (!record || !rt.state.auth.sameOrganisation(record.clientId, token.clientId))
    throw new ApiError(404, `Consent ${id} does not exist`, 'BP101');
  return record;
}

export function handleGetPaymentConsent(rt: PaymentsRuntime, rq: RequestInfo, id: string): Reply {
  const record = findConsent(rt, rq, id);
  authorizePayments(rt, rq, viewScopes(record, 'view'));
  return jsonReply(200, rt.state.consentView(record));
}

export function handleRevokePaymentConsent(rt: PaymentsRuntime, rq: RequestInfo, id: string): Reply {
  const record = findConsent(rt, rq, id);
  authorizePayments(rt, rq, viewScopes(record, 'revoke'));
  if (record.status === 'Revoked') throw new ApiError(409, `Consent ${id} is already revoked`, 'BP701');
  // The bank's transitions table: a Rejected, GatewayTimeout or Consumed consent is BP011 whatever
  // its payments do; BP707 (a payment still settling) is a row of Authorised consents only.
  if (record.status !== 'Authorised')
    throw new ApiError(422, `Consent ${id} was never authorised or has ended (${record.status})`, 'BP011');
  const settling = record.payments.some((pid) => {
    const p = rt.state.payments.get(pid);
    return (
      p !== undefined &&
      rt.state.paymentStatus(p).status !== 'AcceptedSettlementCompleted' &&
      rt.state.paymentStatus(p).status !== 'Rejected'
    );
  });
  if (settling)
    throw new ApiError(409, `A payment on consent ${id} is still settling; it cannot be revoked now`, 'BP707');
  rt.state.revoke(record);
  return { status: 204 };
}
