/**
 * The node:http server: parses the request, routes it, runs docs/bank-api.md §6.0's first steps
 * (401, rate limit, 403 scope), writes the reply with `request-id` and a `Date` header from the
 * DATA clock, and logs it.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { formatNz } from '@bankdata/core/nz-time';
import { ENDPOINT_ACCESS, type Endpoint } from '@bankdata/core/endpoint-access';
import { authenticateBearer, requireScope } from './auth';
import type { EmulatorContext, RequestInfo } from './emulator-context';
import { handleCreateConsent, handleGetConsent, handleRevokeConsent, injectFault } from './consent-routes';
import { handleControl } from './control-routes';
import { DropConnection, FaultError } from './faults';
import { holdFor } from './hold';
import { ApiError, Unauthorized, errorReply, jsonReply, unauthorizedReply, type Reply } from './http-reply';
import { metaFor } from './bank-meta';
import {
  handleAccount,
  handleAccountParty,
  handleAccounts,
  handleBalances,
  handleParty,
  handleStatement,
  handleStatementFile,
  handleStatements,
  handleTransactions,
} from './resource-routes';
import { handleToken } from './token-route';

const MAX_BODY_BYTES = 1024 * 1024;

interface Route {
  /** Method → handler. */
  methods: Record<string, () => Reply | Promise<Reply>>;
  /** The endpoint for scope checks; undefined for the token endpoint. */
  endpoint?: Endpoint;
}

/** Matches a /v1 or token path to its route; null for unknown paths (404 without code). */
function matchRoute(ctx: EmulatorContext, rq: RequestInfo): Route | null {
  const s = rq.segments;
  const n = s.length;
  // The path's ids by position: /v1/consents/{id}, /v1/accounts/{id}/statements/{id}.
  const [, , id = '', , subId = ''] = s;
  if (n === 2 && s[0] === 'oauth2' && s[1] === 'token')
    return { methods: { POST: () => handleToken(ctx.auth, ctx, rq) } };
  if (s[0] !== 'v1') return null;
  const api = (endpoint: Endpoint, method: string, handler: () => Reply | Promise<Reply>): Route => ({
    endpoint,
    methods: { [method]: handler },
  });
  if (n === 2 && s[1] === 'meta') {
    return api('meta', 'GET', () => {
      injectFault(ctx);
      return jsonReply(200, metaFor(ctx.environment, ctx.settings.gatewayFlowEnabled));
    });
  }
  if (n === 2 && s[1] === 'consents') {
    return {
      endpoint: 'consents',
      methods: { POST: () => handleCreateConsent(ctx, rq), DELETE: () => handleRevokeConsent(ctx, rq) },
    };
  }
  if (n === 3 && s[1] === 'consents') return api('consents', 'GET', () => handleGetConsent(ctx, rq, id));
  if (n === 2 && s[1] === 'party') return api('party', 'GET', () => handleParty(ctx, rq));
  if (s[1] !== 'accounts') return null;
  if (n === 2) return api('accounts', 'GET', () => handleAccounts(ctx, rq));
  const accountId = id;
  rq.accountId = accountId;
  if (n === 3) return api('account', 'GET', () => handleAccount(ctx, rq, accountId));
  if (n === 4 && s[3] === 'balances') return api('balances', 'GET', () => handleBalances(ctx, rq, accountId));
  if (n === 4 && s[3] === 'transactions')
    return api('transactions', 'GET', () => handleTransactions(ctx, rq, accountId));
  if (n === 4 && s[3] === 'party') return api('account_party', 'GET', () => handleAccountParty(ctx, rq, accountId));
  if (n === 4 && s[3] === 'statements') return api('statements', 'GET', () => handleStatements(ctx, rq, accountId));
  if (n === 5 && s[3] === 'statements')
    return api('statement', 'GET', () => handleStatement(ctx, rq, accountId, subId));
  if (n === 6 && s[3] === 'statements' && s[5] === 'file') {
    return api('statement_file', 'GET', () => handleStatementFile(ctx, rq, accountId, subId));
  }
  return null;
}

/** Step 1 (401) and step 2 (403 scope), with the rate limit (429) in between. */
function authorize(ctx: EmulatorContext, rq: RequestInfo, endpoint: Endpoint): void {
  const token = authenticateBearer(ctx, rq, ctx.auth);
  rq.token = token;
  requireScope(token.scopes, [ENDPOINT_ACCESS[endpoint].scope]);
}

async function route(ctx: EmulatorContext, rq: RequestInfo): Promise<Reply> {
  const found = matchRoute(ctx, rq);
  if (!found) throw new ApiError(404, `No such endpoint: ${rq.path}`);
  const handler = found.methods[rq.method];
  if (!handler) {
    throw new ApiError(405, `Method ${rq.method} not allowed on ${rq.path}`, undefined, {
      allow: Object.keys(found.methods).join(', '),
    });
  }
  if (found.endpoint) authorize(ctx, rq, found.endpoint);
  return handler();
}

function parseRequest(req: IncomingMessage, body: string, fallbackHost: string): RequestInfo | null {
  const raw = req.url ?? '/';
  const q = raw.indexOf('?');
  const path = q < 0 ? raw : raw.slice(0, q);
  let segments: string[];
  try {
    segments = path.split('/').slice(1).map(decodeURIComponent);
  } catch {
    return null;
  }
  return {
    req,
    method: (req.method ?? 'GET').toUpperCase(),
    path,
    segments,
    query: new URLSearchParams(q < 0 ? '' : raw.slice(q + 1)),
    origin: `http://${req.headers.host ?? fallbackHost}`,
    body,
  };
}

function readBody(req: IncomingMessage): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > MAX_BODY_BYTES ? null : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** What answers a parsed request: the Data API's routes by default; the payments listener passes its own. */
export type Router = (ctx: EmulatorContext, rq: RequestInfo) => Reply | Promise<Reply>;

const dataApiRouter: Router = async (ctx, rq) => {
  if (rq.segments[0] === '__emulator') return handleControl(ctx, rq);
  await holdFor(() => ctx.settings.dataRequestDelayMs, ctx.closed);
  return route(ctx, rq);
};

export async function handleRequest(
  ctx: EmulatorContext,
  req: IncomingMessage,
  res: ServerResponse,
  fallbackHost: string,
  router: Router = dataApiRouter,
) {
  const requestId = randomUUID();
  const arrived = ctx.clock.now();
  const body = await readBody(req);
  if (ctx.settings.latencyMs > 0) await new Promise((r) => setTimeout(r, ctx.settings.latencyMs));
  const rq = parseRequest(req, body ?? '', fallbackHost);
  const path = rq?.path ?? (req.url ?? '/').split('?', 1).join('');
  let reply: Reply;
  try {
    if (!rq) throw new ApiError(404, `No such endpoint: ${path}`);
    if (body === null) throw new ApiError(413, 'Request body too large');
    reply = await router(ctx, rq);
  } catch (error) {
    reply = toReply(error, path, ctx);
  }
  const isControl = rq?.segments[0] === '__emulator';
  if (!isControl) {
    ctx.log.add({
      time: formatNz(arrived),
      method: rq?.method ?? req.method ?? 'GET',
      path,
      query: Object.fromEntries(rq?.query ?? []),
      status: reply.drop ? 0 : reply.status,
      ...(reply.code ? { code: reply.code } : {}),
      ...(rq?.clientId ? { client_id: rq.clientId } : {}),
      ...(rq?.consentId ? { consent_id: rq.consentId } : {}),
      ...(rq?.accountId ? { account_id: rq.accountId } : {}),
      request_id: requestId,
      ...(reply.fault ? { fault: reply.fault } : {}),
    });
  }
  if (reply.drop) {
    req.socket.destroy();
    return;
  }
  res.statusCode = reply.status;
  res.setHeader('request-id', requestId);
  // RFC 9110 §6.6.1: a server without a usable clock sends no Date (the data clock always is one).
  const date = ctx.clock.now().toHTTP();
  if (date !== null) res.setHeader('date', date);
  for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
  res.end(reply.body);
}

function toReply(error: unknown, path: string, ctx: EmulatorContext): Reply {
  if (error instanceof DropConnection) return { status: 0, drop: true, fault: 'drop' };
  if (error instanceof Unauthorized) return unauthorizedReply(error);
  if (error instanceof ApiError) {
    const reply = errorReply(error, path, ctx.clock.now());
    return error instanceof FaultError ? { ...reply, fault: error.fault } : reply;
  }
  const message = error instanceof Error ? error.message : String(error);
  return errorReply(new ApiError(500, `Emulator error: ${message}`), path, ctx.clock.now());
}

export function createEmulatorServer(ctx: EmulatorContext, fallbackHost: () => string, router?: Router): Server {
  return createServer((req, res) => {
    // Handlers answer their own errors; this only catches a broken request stream.
    handleRequest(ctx, req, res, fallbackHost(), router).catch(() => {
      if (!res.headersSent) res.statusCode = 500;
      res.end();
    });
  });
}
