/**
 * POST /oauth2/token (docs/bank-api.md §2), served by both listeners: the Data
 * API's with its registry, the Payments API's with its own (a token of one API is not valid on
 * the other). Form fields or HTTP Basic; bad or missing credentials 401 (checked first), any
 * grant other than client_credentials 403; failure bodies are the 7.1 error body without code.
 */
import type { EmulatorContext, RequestInfo } from './emulator-context';
import { ApiError, jsonReply, type Reply } from './http-reply';

/** The registry a token endpoint authenticates against and issues from. */
export interface TokenIssuer<C extends { readonly scopes: readonly string[] }> {
  /** The client when the credentials match, else null (401). */
  authenticate(clientId: string | undefined, clientSecret: string | undefined): C | null;
  issue(client: C, nowMs: number, lifetimeSeconds: number): string;
}

export function handleToken<C extends { readonly scopes: readonly string[] }>(
  auth: TokenIssuer<C>,
  ctx: EmulatorContext,
  rq: RequestInfo,
): Reply {
  const form = new URLSearchParams(rq.body);
  const basic = readBasic(rq.req.headers.authorization);
  const clientId = basic?.id ?? form.get('client_id') ?? undefined;
  const secret = basic?.secret ?? form.get('client_secret') ?? undefined;
  if (clientId) rq.clientId = clientId;
  const client = auth.authenticate(clientId, secret);
  if (!client) throw new ApiError(401, 'Bad or missing client credentials');
  if (form.get('grant_type') !== 'client_credentials') {
    throw new ApiError(403, 'Unsupported grant_type: only client_credentials is allowed');
  }
  const lifetime = ctx.settings.tokenLifetimeSeconds;
  const token = auth.issue(client, ctx.clock.nowMs(), lifetime);
  return jsonReply(
    200,
    { access_token: token, token_type: 'Bearer', expires_in: lifetime, scope: client.scopes.join(' ') },
    { 'cache-control': 'no-store' },
  );
}

function readBasic(header: string | undefined): { id: string; secret: string } | null {
  const [, encoded] = (header ? /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header) : null) ?? [];
  if (encoded === undefined) return null;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  // RFC 6749 2.3.1: id and secret are form-encoded before Basic encoding.
  const unescape = (s: string) => {
    try {
      return decodeURIComponent(s.replace(/\+/g, ' '));
    } catch {
      return s;
    }
  };
  return { id: unescape(decoded.slice(0, colon)), secret: unescape(decoded.slice(colon + 1)) };
}
