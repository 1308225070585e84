/**
 * Consent endpoints (docs/bank-api.md §4.1–§4.3): create with every 4.1 rule in order and idempotency,
 * read, revoke.
 */
import { formatNz } from '@bankdata/core/nz-time';
import { UUID_PATTERN } from '@bankdata/core/schemas';
import type { EmulatorContext, IdempotencyEntry, RequestInfo } from './emulator-context';
import { toConsentView, type ConsentRecord } from './consent-store';
import { canonicalJson, parseConsentBody, readIdempotencyKey, validateConsentFields } from './consent-validate';
import { drawFault, faultError, isUpstreamFault } from './faults';
import { holdFor } from './hold';
import { ApiError, badRequest, jsonReply, type Reply } from './http-reply';
import { randomUuid } from './server-random';

export async function handleCreateConsent(ctx: EmulatorContext, rq: RequestInfo): Promise<Reply> {
  const now = ctx.clock.now();
  const idempotencyKey = readIdempotencyKey(rq.req.headers);
  const body = parseConsentBody(rq.body);
  const valid = validateConsentFields(body, {
    now,
    environment: ctx.environment,
    redirectWhitelist: ctx.settings.redirectWhitelist,
    gatewayFlowEnabled: ctx.settings.gatewayFlowEnabled,
  });

  // Idempotency, last of 4.1's order: replay, BDT701 (other body), BDT704 (still running).
  const canonicalBody = canonicalJson(body);
  const slot = idempotencyKey === undefined ? undefined : `${rq.clientId}\n${idempotencyKey}`;
  const previous = slot === undefined ? undefined : ctx.idempotency.get(slot);
  if (previous) {
    if (previous.canonicalBody !== canonicalBody) {
      throw new ApiError(409, 'Idempotency key was already used with a different body', 'BDT701');
    }
    if (previous.inProgress || !previous.response) {
      throw new ApiError(409, 'A consent request with this idempotency key is still in progress', 'BDT704');
    }
    rq.consentId = previous.response.consent_id;
    return jsonReply(201, previous.response);
  }

  // An upstream 503 means nothing was created; other faults strike after the consent exists.
  const fault = drawFault(ctx.faultRandom, ctx.settings);
  if (fault && isUpstreamFault(fault)) throw faultError(fault, ctx.settings, now);

  const entry: IdempotencyEntry = { canonicalBody, inProgress: true };
  if (slot !== undefined) ctx.idempotency.set(slot, entry);
  await holdFor(() => ctx.settings.consentCreateDelayMs, ctx.closed);

  const consentId = randomUuid(ctx.idRandom);
  const created = formatNz(now);
  const record: ConsentRecord = {
    consent_id: consentId,
    bank: valid.bank,
    organisation: organisationOf(ctx, rq) ?? ctx.defaultClientId,
    status: valid.flow.detail.type === 'gateway' ? 'GatewayAwaitingSubmission' : 'AwaitingAuthorisation',
    creation_date_time: created,
    status_update_date_time: created,
    flow: valid.flow,
    permissions: valid.permissions,
    start_date_time: body.start_date_time as string,
    ...(valid.end ? { end_date_time: body.end_date_time as string } : {}),
    ...(valid.expiration ? { expiration_date_time: body.expiration_date_time as string } : {}),
    accountKeys: [],
    bankUnusable: false,
  };
  ctx.consents.add(record);
  rq.consentId = consentId;
  // The URL the customer opens: the emulator's stand-in for the bank or gateway page.
  const response =
    valid.flow.detail.type === 'decoupled'
      ? { consent_id: consentId }
      : { consent_id: consentId, redirect_uri: `${rq.origin}/__emulator/authorise?cid=${consentId}` };
  entry.inProgress = false;
  entry.response = response;
  if (fault) throw faultError(fault, ctx.settings, now);
  return jsonReply(201, response);
}

export function handleGetConsent(ctx: EmulatorContext, rq: RequestInfo, id: string): Reply {
  const record = findConsent(ctx, rq, id);
  injectFault(ctx);
  return jsonReply(200, toConsentView(record));
}

/** DELETE /v1/consents?consent_id= (docs/bank-api.md §4.3). */
export function handleRevokeConsent(ctx: EmulatorContext, rq: RequestInfo): Reply {
  const id = rq.query.get('consent_id');
  if (id === null || id === '') throw badRequest('Required query parameter missing: consent_id');
  const record = findConsent(ctx, rq, id);
  if (record.status === 'Revoked') throw new ApiError(409, `Consent ${id} is already revoked`, 'BDT702');
  if (record.status === 'Rejected' || record.status === 'GatewayTimeout' || record.status === 'Consumed') {
    throw new ApiError(422, `Consent ${id} has already ended (${record.status})`, 'BDT009');
  }
  const fault = drawFault(ctx.faultRandom, ctx.settings);
  if (fault && isUpstreamFault(fault)) throw faultError(fault, ctx.settings, ctx.clock.now());
  ctx.consents.revoke(record);
  if (fault) throw faultError(fault, ctx.settings, ctx.clock.now());
  return { status: 204 };
}

/**
 * The caller's consent, or 404 BDT101 (docs/bank-api.md §1.5). The bank's API documentation: "a
 * consent_id that does not exist or belongs to another organisation gives 404 (BDT101)". An id that
 * is not a UUID cannot exist, so it is the same 404 (no 400: the Data API has no such rule), and
 * another client's consent is answered exactly as an unknown one, so its existence is not shown.
 */
export function findConsent(ctx: EmulatorContext, rq: RequestInfo, id: string): ConsentRecord {
  const isUuid = UUID_PATTERN.test(id);
  if (isUuid) rq.consentId = id;
  const record = isUuid ? ctx.consents.get(id) : undefined;
  if (!record || record.organisation !== organisationOf(ctx, rq)) {
    throw new ApiError(404, `Consent ${id} does not exist`, 'BDT101');
  }
  return record;
}

/** The organisation of the request's authenticated client. */
function organisationOf(ctx: EmulatorContext, rq: RequestInfo): string | undefined {
  return rq.clientId === undefined ? undefined : ctx.auth.client(rq.clientId)?.organisation;
}

/** A fault on a request that changes nothing. */
export function injectFault(ctx: EmulatorContext): void {
  const fault = drawFault(ctx.faultRandom, ctx.settings);
  if (fault) throw faultError(fault, ctx.settings, ctx.clock.now());
}
