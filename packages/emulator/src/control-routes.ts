/**
 * Control routes under /__emulator (no auth; no real API uses the prefix): what a test or a
 * child process needs to act as the customer or the bank, move the clock, read the request log
 * and turn the knobs. Documented in docs/emulator.md.
 */
import { z } from 'zod';
import { parseWireDateTime, formatNz } from '@bankdata/core/nz-time';
import { type Environment } from '@bankdata/core/consent-rules';
import { SCOPES } from '@bankdata/core/schemas';
import { otherEnvironment, type RegisteredClient } from './auth';
import type { EmulatorContext, RequestInfo } from './emulator-context';
import { ControlError, toConsentView, type ConsentRecord } from './consent-store';
import { ApiError, badRequest, jsonReply, type Reply } from './http-reply';
import { applySettingsPatch, SettingsPatch, type EmulatorSettingsPatch } from './settings';
import { randomUuid, type Random } from './server-random';

const ClockBody = z.union([
  z.object({ advance_seconds: z.number().min(0) }).strict(),
  z.object({ to: z.string() }).strict(),
]);
const AuthoriseBody = z
  .object({ customer_id: z.string().optional(), account_ids: z.array(z.string()).optional() })
  .strict();
const ClientBody = z.object({ scopes: z.array(z.enum(SCOPES)), organisation_of: z.string().optional() }).strict();
const MintBody = z
  .object({ environment: z.enum(['sandbox', 'production']), client_id: z.string().optional() })
  .strict();

export const CONSENT_ACTIONS = ['submit', 'authorise', 'reject', 'cancel', 'bank-unusable'] as const;
export type ConsentAction = (typeof CONSENT_ACTIONS)[number];

export function handleControl(ctx: EmulatorContext, rq: RequestInfo): Reply {
  const [, area, id, action] = rq.segments;
  const route = `${rq.method} ${area ?? ''}${id === undefined ? '' : '/' + (area === 'consents' ? '{id}' : id)}${action === undefined ? '' : '/' + action}`;
  try {
    switch (route) {
      case 'GET state':
        return jsonReply(200, state(ctx));
      case 'POST clock':
        return jsonReply(200, moveClock(ctx, parseControlBody(ClockBody, rq.body)));
      case 'GET requests': {
        const after = Number(rq.query.get('after') ?? '0');
        if (!Number.isInteger(after) || after < 0) throw badRequest('after must be a non-negative integer');
        return jsonReply(200, ctx.log.list(after));
      }
      case 'DELETE requests':
        ctx.log.clear();
        return { status: 204 };
      case 'GET settings':
        return jsonReply(200, ctx.settings);
      case 'PUT settings':
        updateSettings(ctx, parseControlBody(SettingsPatch, rq.body));
        return jsonReply(200, ctx.settings);
      case 'POST tokens/revoke':
        return jsonReply(200, { revoked: ctx.auth.revokeAll() });
      case 'POST clients': {
        const body = parseControlBody(ClientBody, rq.body);
        // `organisation_of`: the new client joins that client's organisation (sees its consents).
        const joined = body.organisation_of === undefined ? undefined : ctx.auth.client(body.organisation_of);
        if (body.organisation_of !== undefined && !joined)
          throw new ApiError(404, `Unknown client: ${body.organisation_of}`);
        return jsonReply(201, addControlClient(ctx.auth, ctx.idRandom, body.scopes, joined?.organisation));
      }
      case 'POST tokens/mint':
        return jsonReply(201, mintToken(ctx, parseControlBody(MintBody, rq.body)));
      case 'GET authorise':
        if (fromBrowser(rq)) return htmlReply(consentPageHtml(ctx, rq.query.get('cid') ?? ''));
        return jsonReply(200, consentPage(ctx, rq.query.get('cid') ?? ''));
    }
    if (area === 'clients' && id !== undefined && action === 'rotate' && rq.segments.length === 4) {
      if (rq.method !== 'POST')
        throw new ApiError(405, `Method ${rq.method} not allowed`, undefined, { allow: 'POST' });
      return jsonReply(200, rotateClientSecret(ctx, id));
    }
    if (area === 'consents' && id !== undefined && action !== undefined && rq.segments.length === 4) {
      if (rq.method !== 'POST')
        throw new ApiError(405, `Method ${rq.method} not allowed`, undefined, { allow: 'POST' });
      const record = actOnConsent(ctx, id, action, isFormPost(rq) ? formAsJson(rq.body) : rq.body);
      // The customer is done: the browser goes back to the request's redirect_uri (docs/bank-api.md §4.1).
      const returnTo = returnUrl(record, action);
      if (returnTo !== undefined && fromBrowser(rq)) return { status: 303, headers: { location: returnTo }, body: '' };
      return jsonReply(200, { ...toControlView(record), ...(returnTo === undefined ? {} : { return_to: returnTo }) });
    }
    throw new ApiError(404, `No control route ${rq.method} ${rq.path}`);
  } catch (error) {
    if (error instanceof ControlError) throw new ApiError(409, error.message);
    if (error instanceof RangeError) throw badRequest(error.message);
    throw error;
  }
}

/** A control route's JSON body (empty means `{}`), checked by `schema`; 400 without code otherwise. */
export function parseControlBody<T extends z.ZodType>(schema: T, raw: string): z.infer<T> {
  let value: unknown = {};
  if (raw.trim() !== '') {
    try {
      value = JSON.parse(raw);
    } catch {
      throw badRequest('Body is not JSON');
    }
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw badRequest(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
  return parsed.data;
}

function state(ctx: EmulatorContext) {
  return {
    now: formatNz(ctx.clock.now()),
    environment: ctx.environment,
    client_id: ctx.defaultClientId,
    consents: ctx.consents.all().map((c) => ({ consent_id: c.consent_id, bank: c.bank, status: c.status })),
  };
}

function moveClock(ctx: EmulatorContext, body: z.infer<typeof ClockBody>) {
  if ('advance_seconds' in body) {
    ctx.clock.advance(body.advance_seconds * 1000);
  } else {
    const to = parseWireDateTime(body.to);
    if (!to) throw badRequest(`to is not a date-time with offset: ${body.to}`);
    ctx.clock.advanceTo(to);
  }
  return { now: formatNz(ctx.clock.now()) };
}

/** Settings change at run time; a new rate limit starts with full buckets. */
export function updateSettings(ctx: EmulatorContext, patch: EmulatorSettingsPatch | SettingsPatch): void {
  ctx.settings = applySettingsPatch(ctx.settings, patch);
  if (patch.rateLimit !== undefined) ctx.rateLimiter.reset();
}

/** A new client with only these scopes (403 tests), on either API's registry. */
export function addControlClient<S extends string>(
  registry: {
    addClient(clientId: string, clientSecret: string, scopes: readonly S[], organisation?: string): RegisteredClient<S>;
    newSecret(): string;
  },
  idRandom: Random,
  scopes: readonly S[],
  organisation?: string,
) {
  const client = registry.addClient(randomUuid(idRandom), registry.newSecret(), scopes, organisation);
  return { client_id: client.clientId, client_secret: client.clientSecret, scope: client.scopes.join(' ') };
}

/** POST /__emulator/clients/{client_id}/rotate: a new secret, the old one refused at once. */
export function rotateClientSecret(ctx: EmulatorContext, clientId: string) {
  const client = ctx.auth.rotateSecret(clientId);
  if (!client) throw new ApiError(404, `Unknown client: ${clientId}`);
  return { client_id: client.clientId, client_secret: client.clientSecret };
}

/** A token of the given environment (the other one is refused by the API with 401). */
function mintToken(ctx: EmulatorContext, body: z.infer<typeof MintBody>) {
  const client = ctx.auth.client(body.client_id ?? ctx.defaultClientId);
  if (!client) throw new ApiError(404, `Unknown client: ${body.client_id}`);
  const environment: Environment = body.environment;
  const lifetime = ctx.settings.tokenLifetimeSeconds;
  const token = ctx.auth.issue(client, ctx.clock.nowMs(), lifetime, environment);
  return {
    access_token: token,
    token_type: 'Bearer',
    expires_in: lifetime,
    scope: client.scopes.join(' '),
    environment,
    other_environment: environment === otherEnvironment(ctx.environment),
  };
}

/** Act as the customer (submit, authorise, reject, cancel) or the bank (bank-unusable). */
export function actOnConsent(ctx: EmulatorContext, id: string, action: string, rawBody = ''): ConsentRecord {
  const record = ctx.consents.get(id);
  if (!record) throw new ApiError(404, `Unknown consent: ${id}`);
  switch (action) {
    case 'submit':
      return ctx.consents.submit(id);
    case 'authorise': {
      const body = parseControlBody(AuthoriseBody, rawBody);
      const { customerId, accountKeys } = chooseAccounts(ctx, record, body.customer_id, body.account_ids);
      return ctx.consents.authorise(id, customerId, accountKeys);
    }
    case 'reject':
      return ctx.consents.reject(id);
    case 'cancel':
      return ctx.consents.cancel(id);
    case 'bank-unusable':
      return ctx.consents.markBankUnusable(id);
    default:
      throw new ApiError(404, `Unknown consent action: ${action}`);
  }
}

/** An authorised new consent gets the accounts of a customer of its bank (default: the first). */
function chooseAccounts(ctx: EmulatorContext, record: ConsentRecord, customerId?: string, accountIds?: string[]) {
  const customers = ctx.world.customers.filter((c) => c.bank === record.bank);
  const customer = customerId === undefined ? customers[0] : customers.find((c) => c.customerId === customerId);
  if (!customer) throw new ControlError(`no customer ${customerId ?? ''} of ${record.bank} in the world`);
  const accountKeys =
    accountIds === undefined
      ? [...customer.accountKeys]
      : customer.accountKeys.filter((key) => accountIds.includes(ctx.world.accounts.get(key)?.account.AccountId ?? ''));
  if (accountIds !== undefined && accountKeys.length !== new Set(accountIds).size) {
    throw new ControlError(`account_ids must be accounts of customer ${customer.customerId}`);
  }
  return { customerId: customer.customerId, accountKeys };
}

function toControlView(record: ConsentRecord) {
  return {
    ...toConsentView(record),
    bank: record.bank,
    ...(record.customerId ? { customer_id: record.customerId } : {}),
    account_ids: record.accountKeys.map((key) => key.slice(key.indexOf(':') + 1)),
  };
}

/** The page a consent's redirect_uri opens: the consent and the actions that settle it. */
function consentPage(ctx: EmulatorContext, id: string) {
  const record = ctx.consents.get(id);
  if (!record) throw new ApiError(404, `Unknown consent: ${id}`);
  return {
    ...toControlView(record),
    actions: CONSENT_ACTIONS.map((a) => `POST /__emulator/consents/${id}/${a}`),
  };
}

/** A browser's request: it accepts HTML, or it posts a form (the consent page's buttons). */
function fromBrowser(rq: RequestInfo): boolean {
  return isFormPost(rq) || /\btext\/html\b/i.test(headerText(rq.req.headers.accept));
}

function isFormPost(rq: RequestInfo): boolean {
  return /^\s*application\/x-www-form-urlencoded\b/i.test(headerText(rq.req.headers['content-type']));
}

function headerText(value: string | string[] | undefined): string {
  return Array.isArray(value) ? value.join(',') : (value ?? '');
}

/** A posted form as the JSON body the action reads: `customer_id`, and `account_ids` repeated. */
function formAsJson(raw: string): string {
  const form = new URLSearchParams(raw);
  const body: Record<string, unknown> = {};
  for (const name of new Set(form.keys())) body[name] = name === 'account_ids' ? form.getAll(name) : form.get(name);
  return JSON.stringify(body);
}

/**
 * Where the customer's browser returns once done (docs/bank-api.md §4.1, ours): the request's
 * redirect_uri with `cid=<consent_id>`, plus `error=access_denied` when the customer declined.
 * Only the customer's approving or declining ends the journey at the bank; a decoupled consent has
 * no redirect_uri.
 */
function returnUrl(record: ConsentRecord, action: string): string | undefined {
  const redirectUri = record.flow.detail.redirect_uri;
  if (redirectUri === undefined || (action !== 'authorise' && action !== 'reject')) return undefined;
  // Whitelisted, so an absolute https URL; one no URL parser reads has no way back.
  if (!URL.canParse(redirectUri)) return undefined;
  const url = new URL(redirectUri);
  url.searchParams.set('cid', record.consent_id);
  if (action === 'reject') url.searchParams.set('error', 'access_denied');
  return url.toString();
}

function htmlReply(html: string): Reply {
  return { status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: html };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The consent page for a browser: the consent, and a form per action (posted forms answer 303). */
function consentPageHtml(ctx: EmulatorContext, id: string): string {
  const page = consentPage(ctx, id);
  const forms = CONSENT_ACTIONS.map(
    (a) =>
      `<form method="post" action="/__emulator/consents/${encodeURIComponent(page.consent_id)}/${a}"><button>${a}</button></form>`,
  ).join('\n');
  return [
    '<!doctype html>',
    `<title>Consent ${escapeHtml(page.consent_id)}</title>`,
    `<h1>Consent ${escapeHtml(page.consent_id)} at ${escapeHtml(page.bank)}</h1>`,
    `<p>Status: ${escapeHtml(page.status)}</p>`,
    forms,
    '',
  ].join('\n');
}
