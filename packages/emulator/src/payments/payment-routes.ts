/**
 * POST /payments/v1/payments and GET /payments/v1/payments/{payment_id}, with every rule the
 * bank ties to them, in the processing order of docs/payments-contract.md §3.1: headers
 * (BP299) → body (BP299, BP276) → idempotency (BP702, BP708, BP703, BP710) → duplicate without a
 * key (BP713) → consent (BP101, BP018, BP235, BP216, limits BP229/230/262/263) → concurrency
 * (BP712) → consent state (BP021/004/017/015/002/003, BP035) → the bank (BP036, BP044) → faults
 * (BP601–603, BP709) → the payment.
 */
import {
  PaymentAmount,
  Pcr,
  BP703_MESSAGE,
  BP710_MESSAGE,
  isTerminalPaymentStatus,
} from '@bankdata/core/payment-schemas';
import { UUID_PATTERN } from '@bankdata/core/schemas';
import { canonicalJson } from '../consent-validate';
import type { RequestInfo } from '../emulator-context';
import { ApiError, jsonReply, type Reply } from '../http-reply';
import { holdFor } from '../hold';
import { randomUuid } from '../server-random';
import { drawPaymentFault, isBeforeEffect, paymentFaultError } from './faults';
import { formatCents, toCents } from './cents';
import { authorizePayments, checkUuidHeaders, readJsonObject, requireUuid, type PaymentsRuntime } from './request';
import type { PaymentConsentRecord, PaymentKeyBinding, PaymentRecord } from './types';

const DUPLICATE_WINDOW_MS = 60_000;

interface ValidBody {
  consentId: string;
  amount?: PaymentAmount;
  pcr?: Pcr;
}

function parseCreateBody(raw: string): { body: Record<string, unknown>; valid: ValidBody } {
  const body = readJsonObject(raw);
  const given = body.consent_id;
  // Case-insensitive, as every UUID the API reads (requireUuid); kept in lower case.
  const consentId = typeof given === 'string' ? given.toLowerCase() : given;
  if (typeof consentId !== 'string' || !UUID_PATTERN.test(consentId)) {
    throw new ApiError(400, `consent_id must be a UUID: ${JSON.stringify(given ?? null)}`, 'BP299');
  }
  const valid: ValidBody = { consentId };
  if (body.amount !== undefined) {
    const amount = PaymentAmount.safeParse(body.amount);
    if (!amount.success) throw new ApiError(400, 'amount must be {total: decimal string, currency: "NZD"}', 'BP299');
    valid.amount = amount.data;
  }
  if (body.pcr !== undefined) {
    const pcr = Pcr.safeParse(body.pcr);
    if (!pcr.success)
      throw new ApiError(400, 'pcr must be {particulars, code?, reference?}, each at most 12 characters', 'BP299');
    valid.pcr = pcr.data;
  }
  // BP276 after every BP299 of the body (§3.1 step 2): the service calculates these; a client
  // must never send them.
  if ('surcharge' in body || 'total_charge' in body) {
    throw new ApiError(400, 'surcharge and total_charge must not be sent', 'BP276');
  }
  return { body, valid };
}

export async function handleCreatePayment(rt: PaymentsRuntime, rq: RequestInfo): Promise<Reply> {
  const { state } = rt;
  const token = authorizePayments(rt, rq, ['create:payment']);
  const { idempotencyKey } = checkUuidHeaders(rq);
  const { body, valid } = parseCreateBody(rq.body);
  rq.consentId = valid.consentId;
  const canonicalBody = canonicalJson(body);
  const now = state.nowMs();

  // An idempotency key is bound permanently to what it made (seed).
  const slot = idempotencyKey === undefined ? undefined : `${token.clientId} ${idempotencyKey}`;
  const bound = slot === undefined ? undefined : state.keys.get(slot);
  if (bound) return answerBoundKey(rt, bound, canonicalBody);
  if (idempotencyKey === undefined) checkDuplicateWithoutKey(rt, token.clientId, valid.consentId, canonicalBody, now);

  const consent = state.consent(valid.consentId);
  if (!consent || !state.auth.sameOrganisation(consent.clientId, token.clientId))
    throw new ApiError(404, `Consent ${valid.consentId} does not exist`, 'BP101');
  const { amount, pcr } = checkConsentRules(rt, consent, valid);

  // Another request on this consent is submitting a payment right now. Before the consent's state:
  // that request's payment already exists, so a single consent it pays is Consumed while it is
  // held, and BP002 would hide what the bank says to do ("GET the consent's payments first").
  if (consent.submitting !== null) {
    throw new ApiError(409, `Another request on consent ${consent.consent_id} is submitting a payment`, 'BP712');
  }
  checkConsentState(consent);
  // The bank refuses for this consent period: nothing made, the consent stays Authorised (BP036).
  if (consent.bankRefusals > 0) {
    consent.bankRefusals -= 1;
    const refusal = {
      status: 422,
      code: 'BP036',
      message: `The bank refused the payment for consent ${consent.consent_id} for this period`,
    };
    if (slot !== undefined) state.keys.set(slot, { canonicalBody, inProgress: false, refusal });
    throw new ApiError(refusal.status, refusal.message, refusal.code);
  }
  if (consent.type === 'enduring' && consent.maximum_amount_period) {
    const used = state.periodUsage(consent);
    if (used + toCents(amount.total) > toCents(consent.maximum_amount_period.total)) {
      throw new ApiError(
        422,
        `Payment of ${amount.total} would exceed maximum_amount_period ${consent.maximum_amount_period.total} (${formatCents(used)} used this ${consent.period})`,
        'BP044',
      );
    }
  }

  const fault = drawPaymentFault(state.faultRandom, state.settings);
  if (fault && isBeforeEffect(fault)) return faultReply(rt, fault);

  const payment = createPayment(rt, consent, {
    amount,
    pcr,
    canonicalBody,
    clientId: token.clientId,
    idempotencyKey,
    now,
  });
  const binding: PaymentKeyBinding = { canonicalBody, inProgress: true, paymentId: payment.payment_id };
  if (slot !== undefined) state.keys.set(slot, binding);
  consent.submitting = idempotencyKey ?? payment.payment_id;
  try {
    await holdFor(() => state.settings.createDelayMs, rt.ctx.closed);
  } finally {
    binding.inProgress = false;
    consent.submitting = null;
  }
  if (fault) return faultReply(rt, fault);
  return jsonReply(201, state.paymentView(payment));
}

function answerBoundKey(rt: PaymentsRuntime, bound: PaymentKeyBinding, canonicalBody: string): never {
  if (bound.canonicalBody !== canonicalBody) {
    throw new ApiError(409, 'Idempotency key was already used with a different payload', 'BP702');
  }
  if (bound.inProgress) throw new ApiError(409, 'A request with this idempotency key is still in progress', 'BP708');
  if (bound.refusal) throw new ApiError(bound.refusal.status, bound.refusal.message, bound.refusal.code);
  const payment = bound.paymentId === undefined ? undefined : rt.state.payments.get(bound.paymentId);
  // A binding neither in progress nor refused holds the payment it made.
  if (payment === undefined) throw new Error(`idempotency key bound to no payment: ${bound.paymentId ?? '(none)'}`);
  const { status } = rt.state.paymentStatus(payment);
  if (!isTerminalPaymentStatus(status)) throw new ApiError(409, BP703_MESSAGE(payment.payment_id, status), 'BP703');
  throw new ApiError(409, BP710_MESSAGE(payment.payment_id, status), 'BP710');
}

/** BP713: the same payment again within a minute, without an idempotency-key. */
function checkDuplicateWithoutKey(
  rt: PaymentsRuntime,
  clientId: string,
  consentId: string,
  canonicalBody: string,
  now: number,
): void {
  const consent = rt.state.consents.get(consentId);
  for (const id of consent?.payments ?? []) {
    const p = rt.state.payments.get(id);
    if (p && p.clientId === clientId && p.canonicalBody === canonicalBody && now - p.createdMs < DUPLICATE_WINDOW_MS) {
      throw new ApiError(409, 'Duplicate of a payment made in the last minute; send an idempotency-key', 'BP713');
    }
  }
}

/** The request against the consent (BP018, BP235, BP299, BP216), then the limits (400s). */
function checkConsentRules(
  rt: PaymentsRuntime,
  consent: PaymentConsentRecord,
  valid: ValidBody,
): { amount: PaymentAmount; pcr: Pcr } {
  const { settings } = rt.state;
  if (consent.type === 'quick_payment') {
    throw new ApiError(422, `Consent ${consent.consent_id} is a quick payment: it cannot be processed here`, 'BP018');
  }
  let amount: PaymentAmount;
  let pcr: Pcr;
  if (consent.type === 'single') {
    if (valid.amount !== undefined || valid.pcr !== undefined) {
      throw new ApiError(
        400,
        'amount and pcr must not be sent for a single consent: they come from the consent',
        'BP235',
      );
    }
    // A single consent is created with its amount and pcr (consent-routes.ts).
    if (consent.amount === undefined || consent.pcr === undefined)
      throw new Error(`single consent ${consent.consent_id} without amount or pcr`);
    amount = consent.amount;
    pcr = consent.pcr;
  } else {
    if (valid.amount === undefined || valid.pcr === undefined) {
      throw new ApiError(400, 'amount and pcr are required for an enduring consent', 'BP299');
    }
    amount = valid.amount;
    pcr = valid.pcr;
  }
  if (!settings.merchantBanks.includes(consent.bank)) {
    throw new ApiError(400, `Bank ${consent.bank} is not configured for the merchant`, 'BP216');
  }
  checkLimits(rt, consent, amount);
  return { amount, pcr };
}

/** The consent's state (422s), then the payer's bank (BP035). */
function checkConsentState(consent: PaymentConsentRecord): void {
  switch (consent.status) {
    case 'GatewayTimeout':
      throw new ApiError(422, `Consent ${consent.consent_id} timed out at the gateway`, 'BP021');
    case 'GatewayAwaitingSubmission':
    case 'AwaitingAuthorisation':
      throw new ApiError(422, `Consent ${consent.consent_id} is not yet authorised`, 'BP017');
    case 'Revoked':
      throw new ApiError(422, `Consent ${consent.consent_id} has been revoked`, 'BP015');
    case 'Rejected':
    case 'Consumed':
      if (consent.endReason === 'request_timeout') {
        throw new ApiError(422, `Consent ${consent.consent_id} exceeded its request timeout`, 'BP004');
      }
      if (consent.endReason === 'expired')
        throw new ApiError(422, `Consent ${consent.consent_id} is past its expiry_timestamp`, 'BP003');
      throw new ApiError(422, `Consent ${consent.consent_id} is already ${consent.status.toLowerCase()}`, 'BP002');
    case 'Authorised':
      break;
  }
  if (consent.payerBank !== consent.bank) {
    throw new ApiError(
      422,
      `Consent ${consent.consent_id} is for ${consent.bank}, but was authorised at ${consent.payerBank}`,
      'BP035',
    );
  }
}

/** BP229 (bank's payment_limit), BP230 (merchant limit), then enduring caps BP262, BP263. */
export function checkLimits(
  rt: PaymentsRuntime,
  consent: Pick<PaymentConsentRecord, 'bank' | 'type' | 'maximum_amount_period' | 'maximum_amount_payment'>,
  amount: PaymentAmount,
): void {
  const { settings } = rt.state;
  const cents = toCents(amount.total);
  const bankLimit = settings.bankLimits[consent.bank];
  if (bankLimit !== undefined && cents > toCents(bankLimit)) {
    throw new ApiError(400, `Amount ${amount.total} is over ${consent.bank}'s payment limit ${bankLimit}`, 'BP229');
  }
  if (cents > toCents(settings.merchantLimit)) {
    throw new ApiError(
      400,
      `Amount ${amount.total} is over the merchant's payment limit ${settings.merchantLimit}`,
      'BP230',
    );
  }
  if (consent.type !== 'enduring') return;
  if (consent.maximum_amount_period && cents > toCents(consent.maximum_amount_period.total)) {
    throw new ApiError(
      400,
      `Amount ${amount.total} is larger than maximum_amount_period ${consent.maximum_amount_period.total}`,
      'BP262',
    );
  }
  if (consent.maximum_amount_payment && cents > toCents(consent.maximum_amount_payment.total)) {
    throw new ApiError(
      400,
      `Amount ${amount.total} is larger than maximum_amount_payment ${consent.maximum_amount_payment.total}`,
      'BP263',
    );
  }
}

function createPayment(
  rt: PaymentsRuntime,
  consent: PaymentConsentRecord,
  input: {
    amount: PaymentAmount;
    pcr: Pcr;
    canonicalBody: string;
    clientId: string;
    idempotencyKey: string | undefined;
    now: number;
  },
): PaymentRecord {
  const { state } = rt;
  const { settings } = state;
  const payment: PaymentRecord = {
    payment_id: randomUuid(state.idRandom),
    consent_id: consent.consent_id,
    amount: input.amount,
    pcr: input.pcr,
    ...(input.idempotencyKey !== undefined ? { idempotency_key: input.idempotencyKey } : {}),
    clientId: input.clientId,
    canonicalBody: input.canonicalBody,
    createdMs: input.now,
    acceptMs: input.now + settings.acceptAfterSeconds * 1000,
    settleMs: input.now + Math.max(settings.acceptAfterSeconds, settings.settleAfterSeconds) * 1000,
    fate: settings.rejectRate > 0 && state.faultRandom() < settings.rejectRate ? 'reject' : 'settle',
  };
  state.payments.set(payment.payment_id, payment);
  consent.payments.push(payment.payment_id);
  consent.version += 1;
  // Authorised (single) → Consumed once a payment is accepted (seed).
  if (consent.type === 'single') state.markConsumedBy(consent, payment.payment_id);
  return payment;
}

function faultReply(rt: PaymentsRuntime, fault: ReturnType<typeof drawPaymentFault> & string): never {
  throw paymentFaultError(fault, rt.state.settings, rt.ctx.settings, rt.ctx.clock.now());
}

export function handleGetPayment(rt: PaymentsRuntime, rq: RequestInfo, paymentId: string): Reply {
  // BP299 names the request-id and x-correlation-id headers for every call, not only a POST.
  authorizePayments(rt, rq, null);
  checkUuidHeaders(rq);
  const token = authorizePayments(rt, rq, ['view:payment']);
  const payment = rt.state.payments.get(requireUuid(paymentId, 'payment_id'));
  if (!payment || !rt.state.auth.sameOrganisation(payment.clientId, token.clientId))
    throw new ApiError(404, `Payment ${paymentId} does not exist`, 'BP102');
  rq.consentId = payment.consent_id;
  return jsonReply(200, rt.state.paymentView(payment));
}
