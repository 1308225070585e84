/**
 * POST /v1/consents validation, every rule of docs/bank-api.md §4.1 in its stated order (first failure
 * wins): headers (BDT255, BDT254) → body readable (BDT299) → JSON types (BDT259) → fields in
 * table order, with BDT401–BDT403 right after the bank → date rules in table order. Idempotency
 * comes last and lives in the route. The rule checks are the client's own, shared through
 * @bankdata/core (consent-checks.ts, consent-rules.ts, url-rules.ts, all pure); what is the
 * emulator's is reading raw JSON and the missing fields.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { DateTime } from 'luxon';
import {
  checkFlowEnabled,
  checkFlowHint,
  checkIdentifierType,
  checkMobileNumber,
  checkPermissionsOffered,
} from '@bankdata/core/consent-checks';
import {
  MAX_IDEMPOTENCY_KEY_LENGTH,
  checkConsentDates,
  type Environment,
  type RuleFailure,
} from '@bankdata/core/consent-rules';
import { checkCallbackUrl, checkRedirectUri, resolvesInEmulator } from '@bankdata/core/url-rules';
import { parseWireDateTime } from '@bankdata/core/nz-time';
import {
  BANKS,
  FLOW_TYPES,
  type BankName,
  type ConsentFlow,
  type IdentifierType,
  type Permission,
} from '@bankdata/core/schemas';
import { bankMeta, banksFor } from './bank-meta';
import { ApiError, badRequest } from './http-reply';

export interface ValidConsentRequest {
  idempotencyKey?: string;
  /** The body in canonical form (sorted keys), to compare replays (BDT701). */
  canonicalBody: string;
  bank: BankName;
  flow: ConsentFlow;
  permissions: Permission[];
  start: DateTime;
  end?: DateTime;
  expiration?: DateTime;
}

export interface ConsentValidationContext {
  now: DateTime;
  environment: Environment;
  redirectWhitelist: readonly string[];
  gatewayFlowEnabled: boolean;
}

const bdt = (code: string, message: string) => new ApiError(400, message, code);
const throwIfBroken = (failure: RuleFailure | null) => {
  if (failure) throw bdt(failure.code, failure.message);
};

/** The idempotency key of the request (headers step); throws BDT255 / BDT254. */
export function readIdempotencyKey(headers: IncomingHttpHeaders): string | undefined {
  const current = headerValue(headers['idempotency-key']);
  const deprecated = headerValue(headers['x-idempotency-key']);
  if (current !== undefined && deprecated !== undefined) {
    throw bdt('BDT255', 'Send either idempotency-key or the deprecated x-idempotency-key, not both');
  }
  const key = current ?? deprecated;
  if (key !== undefined && key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw bdt('BDT254', `idempotency-key must be at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters, got ${key.length}`);
  }
  return key === '' ? undefined : key;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(',') : value;
}

type JsonKind = 'object' | 'string' | 'string-array';
/** Every known field with its JSON type, parents before children (BDT259). */
const FIELD_TYPES: ReadonlyArray<[string, JsonKind]> = [
  ['flow', 'object'],
  ['flow.detail', 'object'],
  ['flow.detail.type', 'string'],
  ['flow.detail.redirect_uri', 'string'],
  ['flow.detail.callback_url', 'string'],
  ['flow.flow_hint', 'object'],
  ['flow.flow_hint.type', 'string'],
  ['flow.flow_hint.bank', 'string'],
  ['flow.flow_hint.identifier_type', 'string'],
  ['flow.flow_hint.identifier_value', 'string'],
  ['permissions', 'string-array'],
  ['start_date_time', 'string'],
  ['end_date_time', 'string'],
  ['expiration_date_time', 'string'],
];

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function at(body: JsonObject, path: string): unknown {
  let value: unknown = body;
  for (const part of path.split('.')) {
    if (!isObject(value)) return undefined;
    value = value[part];
  }
  return value;
}

function hasKind(value: unknown, kind: JsonKind): boolean {
  if (kind === 'object') return isObject(value);
  if (kind === 'string') return typeof value === 'string';
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

/** Body readable (BDT299), then JSON types (BDT259). A JSON null counts as a wrong type. */
export function parseConsentBody(raw: string): JsonObject {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw bdt('BDT299', 'Request body could not be read as JSON');
  }
  if (!isObject(parsed)) throw bdt('BDT259', 'Request body must be a JSON object');
  for (const [path, kind] of FIELD_TYPES) {
    const value = at(parsed, path);
    if (value !== undefined && !hasKind(value, kind)) {
      throw bdt('BDT259', `Field ${path} has the wrong JSON type: expected ${kind.replace('-', ' of ')}`);
    }
  }
  return parsed;
}

/** Fields in table order, then the date rules (checkConsentDates). */
export function validateConsentFields(
  body: JsonObject,
  ctx: ConsentValidationContext,
): Omit<ValidConsentRequest, 'idempotencyKey' | 'canonicalBody'> {
  const str = (path: string) => at(body, path) as string | undefined;
  if (body.flow === undefined) throw badRequest('Required field missing: flow');

  const detailType = str('flow.detail.type');
  if (!detailType) throw bdt('BDT261', 'flow.detail.type is missing or empty');
  if (!(FLOW_TYPES as readonly string[]).includes(detailType)) {
    throw bdt('BDT245', `Unknown flow.detail.type: ${detailType}`);
  }
  const type = detailType as ConsentFlow['detail']['type'];
  const detail: ConsentFlow['detail'] = { type };
  if (type !== 'decoupled') {
    // redirect_uri is required for gateway and redirect flows; ignored for decoupled.
    const redirectUri = str('flow.detail.redirect_uri');
    if (redirectUri === undefined) throw badRequest('Required field missing: flow.detail.redirect_uri');
    throwIfBroken(checkRedirectUri(redirectUri, ctx.redirectWhitelist, ctx.environment));
    detail.redirect_uri = redirectUri;
  } else {
    const callbackUrl = str('flow.detail.callback_url');
    if (callbackUrl !== undefined) {
      throwIfBroken(checkCallbackUrl(callbackUrl, ctx.environment, resolvesInEmulator));
      detail.callback_url = callbackUrl;
    }
  }

  const hintType = str('flow.flow_hint.type');
  if (hintType === undefined) throw bdt('BDT262', 'flow.flow_hint.type is missing');
  throwIfBroken(checkFlowHint(type, hintType));
  const hint = hintType as ConsentFlow['flow_hint']['type'];

  const bankName = str('flow.flow_hint.bank');
  if (bankName === undefined) throw bdt('BDT260', 'flow.flow_hint.bank is missing');
  if (!(BANKS as readonly string[]).includes(bankName)) throw bdt('BDT243', `Bank not recognised: ${bankName}`);
  const bank = bankName as BankName;
  if (!banksFor(ctx.environment).includes(bank)) {
    throw bdt('BDT213', `Bank ${bank} is not set up for the organisation in ${ctx.environment}`);
  }
  const features = bankMeta(bank, ctx.gatewayFlowEnabled).features;
  throwIfBroken(checkFlowEnabled(features, bank, type, hint));
  const flowHint: ConsentFlow['flow_hint'] = { type: hint, bank };

  if (hint === 'decoupled') {
    const identifierType = str('flow.flow_hint.identifier_type');
    if (identifierType === undefined) throw badRequest('Required field missing: flow.flow_hint.identifier_type');
    throwIfBroken(checkIdentifierType(features, bank, identifierType));
    const identifierValue = str('flow.flow_hint.identifier_value');
    if (!identifierValue) throw badRequest('Required field missing: flow.flow_hint.identifier_value');
    throwIfBroken(checkMobileNumber(features, identifierType, identifierValue));
    flowHint.identifier_type = identifierType as IdentifierType;
    flowHint.identifier_value = identifierValue;
  }

  const requested = at(body, 'permissions') as string[] | undefined;
  if (requested === undefined) throw badRequest('Required field missing: permissions');
  throwIfBroken(checkPermissionsOffered(features, bank, requested));
  const permissions = [...new Set(requested)] as Permission[];

  const start = readDate(str('start_date_time'), 'start_date_time', true);
  const end = readDate(str('end_date_time'), 'end_date_time', false);
  const expiration = readDate(str('expiration_date_time'), 'expiration_date_time', false);

  throwIfBroken(checkConsentDates({ start, end, expiration }, ctx.now, bank));

  return {
    bank,
    flow: { detail, flow_hint: flowHint },
    permissions,
    start,
    ...(end ? { end } : {}),
    ...(expiration ? { expiration } : {}),
  };
}

function readDate(value: string | undefined, field: string, required: true): DateTime;
function readDate(value: string | undefined, field: string, required: false): DateTime | undefined;
function readDate(value: string | undefined, field: string, required: boolean): DateTime | undefined {
  if (value === undefined) {
    if (required) throw badRequest(`Required field missing: ${field}`);
    return undefined;
  }
  const parsed = parseWireDateTime(value);
  if (!parsed) throw badRequest(`Unparsable date-time in ${field}: ${value}`);
  return parsed;
}

/** JSON with sorted keys: two bodies that differ only in key order or spacing are the same. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
