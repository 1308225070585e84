/**
 * POST {payments_base_url}/oauth2/token (seed "Token endpoint"): form fields or HTTP Basic;
 * bad or missing credentials 401 (checked first), another grant type 403, both with the
 * standard error body (seed Authentication 5). The token is for Payments API calls only.
 */
import type { RequestInfo } from '../context';
import { ApiError, jsonReply, type Reply } from '../http-reply';
import type { PaymentsRuntime } from './request';

export function handlePaymentsToken(rt: PaymentsRuntime, rq: RequestInfo): Reply {
  const form = new URLSearchParams(rq.body);
  const basic = readBasic(rq.req.headers.authorization);
  const clientId = basic?.id ?? form.get('client_id') ?? undefined;
  const secret = basic?.secret ?? form.get('client_secret') ?? undefined;
  if (clientId) rq.clientId = clientId;
  const client = rt.state.auth.authenticate(clientId, secret);
  if (!client) throw new ApiError(401, 'Bad or missing client credentials');
  if (form.get('grant_type') !== 'client_credentials') {
    throw new ApiError(403, 'Unsupported grant_type: only client_credentials is allowed');
  }
  const lifetime = rt.ctx.settings.tokenLifetimeSeconds;
  const token = rt.state.auth.issue(client, rt.ctx.clock.nowMs(), lifetime);
  return jsonReply(
    200,
    { access_token: token, token_type: 'Bearer', expires_in: lifetime, scope: client.scopes.join(' ') },
    { 'cache-control': 'no-store' },
  );
}

function readBasic(header: string | undefined): { id: string; secret: string } | null {
  const match = header ? /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header) : null;
  if (!match) return null;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  const unescape = (s: string) => {
    try {
      return decodeURIComponent(s.replace(/\+/g, ' '));
    } catch {
      return s;
    }
  };
  return { id: unescape(decoded.slice(0, colon)), secret: unescape(decoded.slice(colon + 1)) };
}
