/**
 * What `bankdata consents create` asks for, turned into the wire body of POST /v1/consents
 * (docs/bank-api.md §4.1) with its defaults filled from GET /v1/meta, and the "intent" that identifies a
 * retry of the same command (its hash finds the stored idempotency key after a crash).
 */
import { DateTime } from 'luxon';
import type { ConsentRequestDraft } from '@bankdata/core/consent-checks';
import {
  NZ,
  addNzDays,
  formatNz,
  nzDateOf,
  nzMidnight,
  nzMidnightAfter,
  parseWireDateTime,
  toInstant,
  type Instant,
} from '@bankdata/core/nz-time';
import { durationMs } from '@bankdata/core/token-timing';
import type { BankMeta, FlowType } from '@bankdata/core/schemas';
import { nzDateFlag } from '../export/filters';
import { sha256 } from '../store';

export interface ConsentRequestInput {
  /** As typed: checked case-sensitively (BDT243). */
  bank: string;
  flow: FlowType;
  redirectUri?: string;
  callbackUrl?: string;
  identifierType?: string;
  identifierValue?: string;
  /** Default: every permission the bank offers in meta. */
  permissions?: string[];
  /** NZ date (YYYY-MM-DD, 00:00 NZ) or date-time with offset. Default: see defaultStart. */
  start?: string;
  /** NZ date (00:00 NZ) or date-time. Default: none (open-ended). */
  end?: string;
  /** NZ date (23:59:59 NZ of that date) or date-time. Default: none (no expiry). */
  expires?: string;
}

/** A value the user gave that cannot be read (a usage error, before any rule is judged). */
export class ConsentInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConsentInputError';
  }
}

/**
 * Default start: 00:00 NZ of the day after (today − 2 calendar years): two years of history,
 * and inside BNZ's BDT014 limit (start within the last 2 years) whatever the time of day.
 */
export function defaultStart(now: Instant): DateTime {
  const twoYearsAgo = nzDateOf(toInstant(now).setZone(NZ).minus({ years: 2 }));
  return nzMidnight(addNzDays(twoYearsAgo, 1));
}

/** What a date of `consents create` may be, said when one is neither. */
const CONSENT_DATE_HINT =
  'use an NZ date, YYYY-MM-DD, or a date-time with seconds and offset, e.g. 2026-03-01T09:30:00+13:00';

/**
 * A date of `consents create`: a date-time with seconds and offset as the bank's consent dates
 * are (docs/bank-api.md §1.2, §4.1), taken as that instant; else an NZ date, read as every
 * command reads one (src/export/filters.ts `nzDateFlag`: the same forms, 0000-01-01 to
 * 9999-12-31, the same one-line usage error): 00:00 NZ of that date, or its last second for an
 * expiration.
 */
function readDate(value: string, flag: string, endOfDay: boolean): DateTime {
  const dateTime = parseWireDateTime(value);
  if (dateTime) return dateTime;
  const date = nzDateFlag(flag, value, CONSENT_DATE_HINT);
  return endOfDay ? nzMidnightAfter(date).minus({ seconds: 1 }) : nzMidnight(date);
}

/** The body to send. The redirect URI defaults to the first whitelist entry without a wildcard. */
export function buildConsentRequest(
  input: ConsentRequestInput,
  ctx: { meta: readonly BankMeta[]; redirectWhitelist: readonly string[]; now: Instant },
): ConsentRequestDraft {
  const features = ctx.meta.find((m) => m.name === input.bank)?.features;
  const decoupledHint = input.flow === 'decoupled' || (input.flow === 'gateway' && input.identifierType !== undefined);
  const detail: ConsentRequestDraft['flow']['detail'] = { type: input.flow };
  if (input.flow === 'decoupled') {
    if (input.redirectUri !== undefined)
      throw new ConsentInputError('--redirect-uri is for the gateway and redirect flows');
    if (input.callbackUrl !== undefined) detail.callback_url = input.callbackUrl;
  } else {
    if (input.callbackUrl !== undefined) throw new ConsentInputError('--callback-url is for the decoupled flow');
    const redirectUri = input.redirectUri ?? ctx.redirectWhitelist.find((e) => !e.includes('*'));
    if (redirectUri === undefined) {
      throw new ConsentInputError('--redirect-uri is required (no whitelist entry without a wildcard to default to)');
    }
    detail.redirect_uri = redirectUri;
  }
  const hint: ConsentRequestDraft['flow']['flow_hint'] = {
    type: decoupledHint ? 'decoupled' : 'redirect',
    bank: input.bank,
  };
  if (decoupledHint) {
    if (input.identifierType === undefined || input.identifierValue === undefined) {
      throw new ConsentInputError('the decoupled flow needs --identifier-type and --identifier-value');
    }
    hint.identifier_type = input.identifierType;
    hint.identifier_value = input.identifierValue;
  } else if (input.identifierType !== undefined || input.identifierValue !== undefined) {
    throw new ConsentInputError('--identifier-type and --identifier-value are for the decoupled flow');
  }
  const start = input.start === undefined ? defaultStart(ctx.now) : readDate(input.start, '--start', false);
  const end = input.end === undefined ? undefined : readDate(input.end, '--end', false);
  const expiration = input.expires === undefined ? undefined : readDate(input.expires, '--expires', true);
  return {
    flow: { detail, flow_hint: hint },
    permissions: input.permissions ?? [...(features?.permissions ?? [])],
    start_date_time: formatNz(start),
    ...(end ? { end_date_time: formatNz(end) } : {}),
    ...(expiration ? { expiration_date_time: formatNz(expiration) } : {}),
  };
}

/**
 * The intent of a command: what the user typed plus where it goes. A rerun of the same command
 * has the same intent even though its defaults (start = "two years ago") moved on.
 */
export function intentHashOf(input: ConsentRequestInput, target: { baseUrl: string; environment: string }): string {
  const entries = Object.entries({ ...input, ...target })
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => a.localeCompare(b));
  return sha256(JSON.stringify(entries));
}

/** How long polling may wait (docs/bank-api.md §4.4): the flow's request_timeout from meta. */
export function pollTimeoutMs(draft: ConsentRequestDraft, features: BankMeta['features'] | undefined): number {
  const hintTimeout = durationOr(
    draft.flow.flow_hint.type === 'decoupled'
      ? features?.decoupled_flow.request_timeout
      : features?.redirect_flow.request_timeout,
    10 * 60_000,
  );
  if (draft.flow.detail.type !== 'gateway') return hintTimeout;
  // A gateway consent waits for the hosted page (seed: 15 minutes), then for the bank's own flow.
  return durationOr(features?.gateway_flow.request_timeout, 15 * 60_000) + hintTimeout;
}

function durationOr(iso: string | undefined, fallbackMs: number): number {
  return durationMs(iso) ?? fallbackMs;
}
