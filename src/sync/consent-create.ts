/**
 * Creating a consent (`bankdata consents create`): local check by the bank's rules (docs/bank-api.md §4.1), the
 * idempotency key stored before the POST, the answer stored, then polling until the consent
 * settles. An authorised consent is registered for sync at once.
 *
 * Crash safety: the key and the exact body are committed before sending. A rerun of the same
 * command finds that `pending` row and sends the same body with the same key, so the server
 * replays the first 201 (docs/bank-api.md §4.1) and one consent exists, never two.
 */
import { randomUUID } from 'node:crypto';
import { ApiError, IdempotencyError, UnavailableError, type DataApiClient } from '../api';
import {
  checkConsentRequest,
  checkConsentRequestBeforeMeta,
  type ConsentCheckFailure,
  type ConsentRequestDraft,
} from '@bankdata/core/consent-checks';
import type { Environment } from '@bankdata/core/consent-rules';
import { CreateConsentRequest, CreateConsentResponse, type Consent, type ConsentId } from '@bankdata/core/schemas';
import { silentLogger, type Logger } from '../log';
import type { ConsentCreationRow, Store } from '../store';
import { pollConsent, type PollDeps } from './consent-poll';
import { buildConsentRequest, intentHashOf, pollTimeoutMs, type ConsentRequestInput } from './consent-request';
import { systemClock, type Clock } from '@bankdata/core/clock';

/** A local rule failed: nothing was sent (exit 2, naming the rule and its code). */
export class ConsentRuleError extends Error {
  constructor(readonly failure: ConsentCheckFailure) {
    super(`${failure.rule}${failure.code ? ` (${failure.code})` : ''}: ${failure.message}`);
    this.name = 'ConsentRuleError';
  }
}

export interface CreateConsentDeps extends PollDeps {
  store: Store;
  client: DataApiClient;
  environment: Environment;
  redirectWhitelist: readonly string[];
  /** Identifies the API the keys belong to (part of the intent). */
  baseUrl: string;
  logger?: Logger;
  /** The creation instant the date rules judge by (default: the server's Date, else now). */
  now?: Clock;
  onCreated?: (info: CreatedInfo) => void;
  onStatus?: (status: Consent['status']) => void;
}

export interface CreatedInfo {
  consentId: ConsentId;
  /** The URL the customer opens (gateway and redirect flows); absent for decoupled. */
  url: string | null;
  /** new: first send; replayed: a pending key sent again; resumed: an answered one polled again. */
  how: 'new' | 'replayed' | 'resumed';
  idempotencyKey: string;
}

export interface CreateConsentResult extends CreatedInfo {
  /** Where polling ended: a settled status, still awaiting at the timeout, or not polled. */
  status: Consent['status'] | null;
  timedOut: boolean;
  /** Registered for sync (authorised, or still awaiting when polling timed out). */
  registered: boolean;
}

export interface CreateConsentOptions {
  /** Stop after creation: print the URL, do not poll. */
  wait?: boolean;
}

/**
 * What `bankdata consents create` judges before it opens the database or sends anything: the
 * values as typed (the dates, and the flags each flow takes: a usage error or ConsentInputError)
 * and the bank's rules that need no meta (checkConsentRequestBeforeMeta: ConsentRuleError). Each
 * fails as createConsentFlow's own check would fail it later, so a command refused for its
 * arguments creates nothing (not even the database) and sends nothing.
 */
export function checkConsentInput(
  input: ConsentRequestInput,
  ctx: { environment: Environment; redirectWhitelist: readonly string[]; now?: Clock },
): void {
  const draft = buildConsentRequest(input, {
    meta: [],
    redirectWhitelist: ctx.redirectWhitelist,
    now: (ctx.now ?? systemClock)(),
  });
  const failure = checkConsentRequestBeforeMeta(draft, ctx);
  if (failure) throw new ConsentRuleError(failure);
}

export async function createConsentFlow(
  deps: CreateConsentDeps,
  input: ConsentRequestInput,
  options: CreateConsentOptions = {},
): Promise<CreateConsentResult> {
  const { store, client } = deps;
  const logger = deps.logger ?? silentLogger;
  const meta = await client.getMeta();
  for (const bank of meta) await store.meta.save(bank);
  const now = (deps.now ?? systemClock)();
  // The date rules judge by the server's clock when it told us (its Date header), else ours.
  const ruleNow = deps.now?.() ?? client.serverNow()?.toJSDate() ?? now;
  const intentHash = intentHashOf(input, { baseUrl: deps.baseUrl, environment: deps.environment });
  const open = await store.creations.findOpen(intentHash, now);

  let key: string;
  let draft: ConsentRequestDraft;
  let response: CreateConsentResponse;
  let how: CreatedInfo['how'];
  if (open?.state === 'created' && open.responseJson) {
    key = open.idempotencyKey;
    // The database is a boundary too: what was stored is parsed again, never cast.
    draft = CreateConsentRequest.parse(JSON.parse(open.bodyJson));
    response = CreateConsentResponse.parse(JSON.parse(open.responseJson));
    how = 'resumed';
  } else {
    // A pending row is the same command after a crash: its exact body, its key.
    draft = open
      ? CreateConsentRequest.parse(JSON.parse(open.bodyJson))
      : buildConsentRequest(input, { meta, redirectWhitelist: deps.redirectWhitelist, now: ruleNow });
    const failure = checkConsentRequest(draft, {
      meta,
      environment: deps.environment,
      redirectWhitelist: deps.redirectWhitelist,
      now: ruleNow,
    });
    if (failure) throw new ConsentRuleError(failure);
    const body = CreateConsentRequest.parse(draft);
    const freshKey = randomUUID();
    const row: ConsentCreationRow =
      open ??
      (await store.creations.begin({
        idempotencyKey: freshKey,
        intentHash,
        bodyJson: JSON.stringify(body),
        bank: body.flow.flow_hint.bank,
        flow: body.flow.detail.type,
        now,
      }));
    key = row.idempotencyKey;
    // Another run of the same intent may have stored its creation since the look-up above: the
    // claim then returned that one, and its key is sent again (the bank answers with its consent).
    how = row.idempotencyKey === freshKey ? 'new' : 'replayed';
    logger.info('consent create sending', { idempotency_key: key, how, bank: body.flow.flow_hint.bank });
    response = await send(deps, row, now);
  }

  const info: CreatedInfo = {
    consentId: response.consent_id,
    url: response.redirect_uri ?? null,
    how,
    idempotencyKey: key,
  };
  deps.onCreated?.(info);
  if (options.wait === false) return { ...info, status: null, timedOut: false, registered: false };

  const features = meta.find((m) => m.name === draft.flow.flow_hint.bank)?.features;
  const polled = await pollConsent(client, response.consent_id, pollTimeoutMs(draft, features), deps, deps.onStatus);
  const settledAt = (deps.now ?? systemClock)();
  let registered = false;
  if (polled.consent.status === 'Authorised' || polled.timedOut) {
    // Authorised: synced from now on. Still awaiting at the timeout: registered too, so a late
    // approval is picked up by the next sync (which skips it until then).
    await store.consents.add(response.consent_id, settledAt);
    await store.consents.recordStatus(polled.consent, { now: settledAt });
    registered = true;
  }
  await store.creations.recordSettled(key, polled.timedOut ? 'PollTimeout' : polled.consent.status, settledAt);
  logger.info('consent create settled', {
    consent_id: response.consent_id,
    status: polled.consent.status,
    timed_out: polled.timedOut,
  });
  return { ...info, status: polled.consent.status, timedOut: polled.timedOut, registered };
}

/**
 * POST with the stored key. The client retries 429/5xx and BDT704 with the same key. A refusal
 * (a 4xx with a code, BDT701 included) means nothing was bound to the key: the row is failed and
 * the next try takes a new key. No answer at all leaves it pending for the rerun.
 */
async function send(deps: CreateConsentDeps, row: ConsentCreationRow, now: Date): Promise<CreateConsentResponse> {
  const body = CreateConsentRequest.parse(JSON.parse(row.bodyJson));
  try {
    const response = await deps.client.createConsent(body, { idempotencyKey: row.idempotencyKey });
    await deps.store.creations.recordCreated(row.idempotencyKey, response, deps.now?.() ?? now);
    return response;
  } catch (error) {
    if (isRefusal(error)) await deps.store.creations.recordFailed(row.idempotencyKey, error.code, deps.now?.() ?? now);
    throw error;
  }
}

function isRefusal(error: unknown): error is ApiError & { code: string } {
  if (!(error instanceof ApiError) || error instanceof UnavailableError || error.code === null) return false;
  // BDT704: the first request with this key is still running; the same key must be used again.
  if (error instanceof IdempotencyError && error.code === 'BDT704') return false;
  return error.status !== null && error.status >= 400 && error.status < 500;
}
