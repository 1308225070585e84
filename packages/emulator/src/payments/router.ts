/**
 * The payments listener's routes. Unknown paths 404 and wrong methods 405 before the token is
 * checked (as the Data API listener); every answer gets `request-id` from the shared server.
 */
import type { EmulatorContext, RequestInfo } from '../emulator-context';
import { ApiError, errorReply, type Reply } from '../http-reply';
import { handleToken } from '../token-route';
import { handleCreatePaymentConsent, handleGetPaymentConsent, handleRevokePaymentConsent } from './consent-routes';
import { handlePaymentsControl } from './control';
import { PaymentFaultError } from './faults';
import { handleCreatePayment, handleGetPayment } from './payment-routes';
import type { PaymentsRuntime } from './request';
import type { PaymentsState } from './state';

type Handlers = Record<string, () => Reply | Promise<Reply>>;

function match(rt: PaymentsRuntime, rq: RequestInfo): Handlers | null {
  const s = rq.segments;
  const n = s.length;
  const [, , , id = ''] = s;
  if (n === 2 && s[0] === 'oauth2' && s[1] === 'token') return { POST: () => handleToken(rt.state.auth, rt.ctx, rq) };
  if (s[0] !== 'payments' || s[1] !== 'v1') return null;
  if (s[2] === 'payments' && n === 3) return { POST: () => handleCreatePayment(rt, rq) };
  if (s[2] === 'payments' && n === 4) return { GET: () => handleGetPayment(rt, rq, id) };
  if (s[2] === 'consents' && n === 3) return { POST: () => handleCreatePaymentConsent(rt, rq) };
  if (s[2] === 'consents' && n === 4) {
    return { GET: () => handleGetPaymentConsent(rt, rq, id), DELETE: () => handleRevokePaymentConsent(rt, rq, id) };
  }
  return null;
}

/** The router the shared request handler calls for the payments listener. */
export function createPaymentsRouter(state: PaymentsState) {
  return async (ctx: EmulatorContext, rq: RequestInfo): Promise<Reply> => {
    const rt: PaymentsRuntime = { ctx, state };
    if (rq.segments[0] === '__emulator') return handlePaymentsControl(rt, rq);
    const handlers = match(rt, rq);
    if (!handlers) throw new ApiError(404, `No such endpoint: ${rq.path}`);
    const handler = handlers[rq.method];
    if (!handler) {
      throw new ApiError(405, `Method ${rq.method} not allowed on ${rq.path}`, undefined, {
        allow: Object.keys(handlers).join(', '),
      });
    }
    try {
      return await handler();
    } catch (error) {
      // The fault's name travels to the request log, as the Data API's faults do.
      if (error instanceof PaymentFaultError)
        return { ...errorReply(error, rq.path, ctx.clock.now()), fault: error.fault };
      throw error;
    }
  };
}
