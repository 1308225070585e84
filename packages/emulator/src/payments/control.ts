/**
 * Control routes of the payments listener (under /__emulator, no auth, not in the request log):
 * act as the customer or the bank on payment consents and payments, read every payment, turn the
 * payments knobs. Anything else under /__emulator (clock, request log, Data API knobs) is the
 * Data API emulator's own control route, served here too.
 */
import { z } from 'zod';
import type { RequestInfo } from '../emulator-context';
import { addControlClient, handleControl, parseControlBody } from '../control-routes';
import { ApiError, jsonReply, type Reply } from '../http-reply';
import { PAYMENTS_SCOPES, isTerminalPaymentStatus } from '@bankdata/core/payment-schemas';
import type { PaymentsRuntime } from './request';
import { PaymentsSettingsPatch, type PaymentsSettings } from './types';

const RefuseBody = z.strictObject({ times: z.number().int().min(1).max(1000).optional() });
const ClientBody = z.strictObject({ scopes: z.array(z.enum(PAYMENTS_SCOPES)), organisation_of: z.string().optional() });

export function applyPaymentsSettings(
  settings: PaymentsSettings,
  patch: z.infer<typeof PaymentsSettingsPatch>,
): PaymentsSettings {
  const { faults, bankLimits, ...rest } = patch;
  const next: PaymentsSettings = {
    ...settings,
    ...Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)),
  };
  if (faults) next.faults = { ...settings.faults, ...faults };
  if (bankLimits) next.bankLimits = { ...settings.bankLimits, ...bankLimits };
  return next;
}

export function handlePaymentsControl(rt: PaymentsRuntime, rq: RequestInfo): Reply {
  const { state } = rt;
  const [, area, id = '', action] = rq.segments;
  const n = rq.segments.length;
  const conflict = (fn: () => void) => {
    try {
      fn();
    } catch (error) {
      if (error instanceof RangeError) throw new ApiError(409, error.message);
      throw error;
    }
  };
  if (area === 'payments' && n === 2 && rq.method === 'GET') {
    return jsonReply(
      200,
      [...state.payments.values()].map((p) => state.paymentView(p)),
    );
  }
  if (area === 'payments' && id === 'authorise' && n === 3 && rq.method === 'GET') {
    const consent = state.consent(rq.query.get('cid') ?? '');
    if (!consent) throw new ApiError(404, 'Unknown payment consent');
    return jsonReply(200, {
      ...state.consentView(consent),
      actions: ['authorise', 'reject', 'cancel', 'bank-refuse'].map(
        (a) => `POST /__emulator/payment-consents/${consent.consent_id}/${a}`,
      ),
    });
  }
  if (area === 'payments' && n === 4 && rq.method === 'POST' && (action === 'settle' || action === 'reject')) {
    const payment = state.payments.get(id);
    if (!payment) throw new ApiError(404, `Unknown payment: ${id}`);
    if (isTerminalPaymentStatus(state.paymentStatus(payment).status))
      throw new ApiError(409, `Payment ${id} is already terminal`);
    // The bank decides now: the payment becomes terminal at this data-clock instant.
    const now = state.nowMs();
    payment.fate = action === 'settle' ? 'settle' : 'reject';
    payment.acceptMs = Math.min(payment.acceptMs, now);
    payment.settleMs = now;
    return jsonReply(200, state.paymentView(payment));
  }
  if (area === 'payment-consents' && n === 2 && rq.method === 'GET') {
    return jsonReply(
      200,
      [...state.consents.values()].map((record) => {
        const c = state.refreshed(record);
        return { consent_id: c.consent_id, type: c.type, bank: c.bank, status: c.status };
      }),
    );
  }
  if (area === 'payment-consents' && n === 4 && rq.method === 'POST') {
    const consent = state.consent(id);
    if (!consent) throw new ApiError(404, `Unknown payment consent: ${id}`);
    switch (action) {
      case 'authorise':
        conflict(() => state.authorise(consent));
        break;
      case 'reject':
        conflict(() => state.reject(consent));
        break;
      case 'cancel':
        conflict(() => state.revoke(consent));
        break;
      case 'bank-refuse':
        consent.bankRefusals += parseControlBody(RefuseBody, rq.body).times ?? 1;
        break;
      default:
        throw new ApiError(404, `Unknown payment consent action: ${action}`);
    }
    return jsonReply(200, state.consentView(consent));
  }
  if (area === 'payments-settings' && n === 2) {
    if (rq.method === 'PUT')
      state.settings = applyPaymentsSettings(state.settings, parseControlBody(PaymentsSettingsPatch, rq.body));
    else if (rq.method !== 'GET')
      throw new ApiError(405, `Method ${rq.method} not allowed`, undefined, { allow: 'GET, PUT' });
    return jsonReply(200, state.settings);
  }
  if (area === 'payments-clients' && n === 2 && rq.method === 'POST') {
    const body = parseControlBody(ClientBody, rq.body);
    // `organisation_of`: the new client joins that client's organisation (its consents and payments).
    const joined = body.organisation_of === undefined ? undefined : state.auth.client(body.organisation_of);
    if (body.organisation_of !== undefined && !joined)
      throw new ApiError(404, `Unknown client: ${body.organisation_of}`);
    return jsonReply(201, addControlClient(state.auth, state.idRandom, body.scopes, joined?.organisation));
  }
  if (area === 'payments-tokens' && id === 'revoke' && n === 3 && rq.method === 'POST') {
    return jsonReply(200, { revoked: state.auth.revokeAll() });
  }
  return handleControl(rt.ctx, rq);
}
