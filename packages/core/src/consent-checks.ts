/**
 * The local check of a consent request before anything is sent (`bankdata consents create`):
 * the bank's rules in docs/bank-api.md §4.1's order (first failure wins), so the code the check names is
 * the code the server would answer. Pure: the bank features come from GET /v1/meta, the
 * whitelist and environment from config, `now` from the caller. The URL and date rules are the
 * shared ones of url-rules.ts and consent-rules.ts that the emulator's validator also uses.
 */
import { checkCallbackUrl, checkRedirectUri } from './url-rules';
import { checkConsentDates, type Environment, type RuleFailure } from './consent-rules';
import { parseWireDateTime, type Instant } from './nz-time';
import { BANKS, FLOW_HINT_TYPES, FLOW_TYPES, type BankMeta, type BankName } from './schemas';

/** A consent request as it will go on the wire, before its values are known to be valid. */
export interface ConsentRequestDraft {
  flow: {
    detail: { type: string; redirect_uri?: string; callback_url?: string };
    flow_hint: { type: string; bank: string; identifier_type?: string; identifier_value?: string };
  };
  permissions: string[];
  start_date_time: string;
  end_date_time?: string;
  expiration_date_time?: string;
}

export interface ConsentCheckContext {
  /** GET /v1/meta: the banks set up for the organisation here, with their features. */
  meta: readonly BankMeta[];
  environment: Environment;
  /** The environment's redirect whitelist, as registered in the client portal (config). */
  redirectWhitelist: readonly string[];
  /** The creation instant the date rules judge by. */
  now: Instant;
}

/** The rule each code belongs to, as the CLI names it. */
export const CONSENT_RULES = {
  BDT245: 'flow type',
  BDT212: 'redirect URI form',
  BDT211: 'redirect URI whitelist',
  BDT264: 'callback URL form',
  BDT265: 'callback URL scheme',
  BDT266: 'callback URL https in production',
  BDT267: 'callback URL public host',
  BDT246: 'flow hint type',
  BDT243: 'bank list (case-sensitive)',
  BDT213: 'bank set up for the organisation (sandbox: PNZ only)',
  BDT403: 'gateway flow enabled',
  BDT401: 'redirect flow enabled for the bank',
  BDT402: 'decoupled flow enabled for the bank',
  BDT228: 'identifier type offered by the bank',
  BDT230: 'mobile number form',
  BDT242: 'permissions not empty',
  BDT241: 'permissions offered by the bank',
  BDT252: 'start now or earlier',
  BDT257: 'start and end on different NZ dates',
  BDT251: 'end after today (NZ date)',
  BDT240: 'expiration not before start',
  BDT244: 'expiration not before end',
  BDT258: 'expiration not on the creation date (NZ date)',
  BDT014: 'BNZ start within the last 2 years',
} as const;

export type ConsentCheckCode = keyof typeof CONSENT_RULES;

export interface ConsentCheckFailure {
  /** The code the server answers; null for a 400 without code (a required field missing). */
  code: ConsentCheckCode | null;
  rule: string;
  message: string;
}

const fail = (code: ConsentCheckCode, message: string): ConsentCheckFailure => ({
  code,
  rule: CONSENT_RULES[code],
  message,
});
const fromRule = (failure: ConsentRuleFailure): ConsentCheckFailure => fail(failure.code, failure.message);
const missing = (field: string): ConsentCheckFailure => ({
  code: null,
  rule: 'required field',
  message: `required field missing: ${field}`,
});

/** A rule of docs/bank-api.md §4.1 broken, as the client's check and the emulator both report it. */
export type ConsentRuleFailure = RuleFailure<ConsentCheckCode>;
type BankFeatures = BankMeta['features'];

// The checks below are the ones the emulator's POST /v1/consents validation calls too
// (packages/emulator/src/consent-validate.ts), so both sides judge a request the same way. Each takes
// values already known to be present; missing fields are each side's own (400 without code).

/** BDT246: a known hint type; redirect needs hint redirect, decoupled needs hint decoupled, gateway takes either. */
export function checkFlowHint(detailType: string, hintType: string): ConsentRuleFailure | null {
  if (!(FLOW_HINT_TYPES as readonly string[]).includes(hintType))
    return { code: 'BDT246', message: `unknown flow hint type: ${hintType}` };
  if (detailType !== 'gateway' && hintType !== detailType) {
    return { code: 'BDT246', message: `flow hint ${hintType} does not fit flow ${detailType}` };
  }
  return null;
}

/** The flow enabled per meta: gateway for the organisation (BDT403), redirect (BDT401) and decoupled (BDT402) per bank. */
export function checkFlowEnabled(
  features: BankFeatures,
  bank: string,
  detailType: string,
  hintType: string,
): ConsentRuleFailure | null {
  if (detailType === 'gateway' && !features.gateway_flow.enabled) {
    return { code: 'BDT403', message: 'the gateway flow is not enabled for the organisation' };
  }
  if (hintType === 'redirect' && !features.redirect_flow.enabled) {
    return { code: 'BDT401', message: `the redirect flow is not enabled for ${bank}` };
  }
  if (hintType === 'decoupled' && !features.decoupled_flow.enabled) {
    return { code: 'BDT402', message: `the decoupled flow is not enabled for ${bank}` };
  }
  return null;
}

/** BDT228: the decoupled identifier type is one the bank offers (meta `available_identifiers`). */
export function checkIdentifierType(
  features: BankFeatures,
  bank: string,
  identifierType: string,
): ConsentRuleFailure | null {
  const identifiers = features.decoupled_flow.available_identifiers;
  if (identifiers.some((i) => i.type === identifierType)) return null;
  const offered = identifiers.map((i) => i.type).join(', ') || 'none';
  return {
    code: 'BDT228',
    message: `identifier type ${identifierType} is not offered by ${bank} (offered: ${offered})`,
  };
}

/** BDT230: a mobile number matches the pattern meta gives for it; other identifier types have no form rule. */
export function checkMobileNumber(
  features: BankFeatures,
  identifierType: string,
  identifierValue: string,
): ConsentRuleFailure | null {
  const identifier = features.decoupled_flow.available_identifiers.find((i) => i.type === identifierType);
  if (identifier?.type !== 'mobile_number' || !identifier.regex || new RegExp(identifier.regex).test(identifierValue))
    return null;
  return { code: 'BDT230', message: `mobile number ${identifierValue} does not match ${identifier.regex}` };
}

/** BDT242: at least one permission; BDT241: each one offered by the bank (meta `permissions`). */
export function checkPermissionsOffered(
  features: BankFeatures,
  bank: string,
  requested: readonly string[],
): ConsentRuleFailure | null {
  if (requested.length === 0) return { code: 'BDT242', message: 'permissions must not be empty' };
  const unknown = requested.find((p) => !features.permissions.includes(p));
  if (unknown === undefined) return null;
  return {
    code: 'BDT241',
    message: `permission ${unknown} is not offered by ${bank} (GET /v1/meta lists what it offers)`,
  };
}

/**
 * The rules judged before the bank's meta is needed, in the order of checkConsentRequest, whose
 * first part they are: flow type, redirect URI or callback URL, flow hint, the bank's name and
 * the sandbox's bank. A request failing here fails the whole check with this same failure, so
 * `bankdata consents create` judges them before it opens the database or sends anything.
 */
export function checkConsentRequestBeforeMeta(
  draft: ConsentRequestDraft,
  ctx: Pick<ConsentCheckContext, 'environment' | 'redirectWhitelist'>,
): ConsentCheckFailure | null {
  const { detail, flow_hint: hint } = draft.flow;
  if (!(FLOW_TYPES as readonly string[]).includes(detail.type))
    return fail('BDT245', `unknown flow type: ${detail.type}`);

  // redirect_uri for gateway and redirect flows; callback_url (optional) for decoupled only.
  const urlFailure =
    detail.type === 'decoupled' ? checkCallback(detail.callback_url, ctx) : checkRedirect(detail.redirect_uri, ctx);
  if (urlFailure) return urlFailure;

  const hintFailure = checkFlowHint(detail.type, hint.type);
  if (hintFailure) return fromRule(hintFailure);

  return checkBankName(hint.bank, ctx);
}

/** The first rule the request breaks, or null when the server should accept it. */
export function checkConsentRequest(draft: ConsentRequestDraft, ctx: ConsentCheckContext): ConsentCheckFailure | null {
  const early = checkConsentRequestBeforeMeta(draft, ctx);
  if (early) return early;
  const { detail, flow_hint: hint } = draft.flow;

  const bank = bankMeta(hint.bank, ctx);
  if ('code' in bank) return bank;
  const features = bank.features;

  const flowFailure = checkFlowEnabled(features, hint.bank, detail.type, hint.type);
  if (flowFailure) return fromRule(flowFailure);

  if (hint.type === 'decoupled') {
    if (hint.identifier_type === undefined) return missing('flow.flow_hint.identifier_type');
    const identifierFailure = checkIdentifierType(features, hint.bank, hint.identifier_type);
    if (identifierFailure) return fromRule(identifierFailure);
    if (!hint.identifier_value) return missing('flow.flow_hint.identifier_value');
    const mobileFailure = checkMobileNumber(features, hint.identifier_type, hint.identifier_value);
    if (mobileFailure) return fromRule(mobileFailure);
  }

  const permissionFailure = checkPermissionsOffered(features, hint.bank, draft.permissions);
  if (permissionFailure) return fromRule(permissionFailure);

  return checkDates(draft, hint.bank as BankName, ctx.now);
}

function checkRedirect(
  uri: string | undefined,
  ctx: Pick<ConsentCheckContext, 'environment' | 'redirectWhitelist'>,
): ConsentCheckFailure | null {
  if (uri === undefined) return missing('flow.detail.redirect_uri');
  const failure = checkRedirectUri(uri, ctx.redirectWhitelist, ctx.environment);
  if (!failure) return null;
  const hint =
    failure.code === 'BDT211'
      ? ctx.redirectWhitelist.length === 0
        ? ' (the configured redirectWhitelist is empty)'
        : ` (whitelist: ${ctx.redirectWhitelist.join(', ')})`
      : '';
  return fail(failure.code, `${failure.message}${hint}`);
}

function checkCallback(
  url: string | undefined,
  ctx: Pick<ConsentCheckContext, 'environment'>,
): ConsentCheckFailure | null {
  if (url === undefined) return null;
  // BDT268 (unresolvable) is the server's to judge: no resolver here.
  const failure = checkCallbackUrl(url, ctx.environment);
  return failure && failure.code !== 'BDT268' ? fail(failure.code, failure.message) : null;
}

/** BDT243 and the sandbox's BDT213: the bank's name, judged without meta. */
function checkBankName(bank: string, ctx: Pick<ConsentCheckContext, 'environment'>): ConsentCheckFailure | null {
  // docs/bank-api.md §4.1: the bank names are case-sensitive; `pnz` is not a bank.
  if (!(BANKS as readonly string[]).includes(bank)) {
    return fail('BDT243', `bank not recognised: ${bank} (one of ${BANKS.join(', ')}, case-sensitive)`);
  }
  if (ctx.environment === 'sandbox' && bank !== 'PNZ') {
    return fail('BDT213', `the sandbox accepts only PNZ, not ${bank}`);
  }
  return null;
}

/** The bank's meta, or BDT213 when it is not set up for the organisation (its name already judged). */
function bankMeta(bank: string, ctx: ConsentCheckContext): ConsentCheckFailure | BankMeta {
  const meta = ctx.meta.find((m) => m.name === bank);
  return (
    meta ?? fail('BDT213', `${bank} is not set up for the organisation in ${ctx.environment} (not in GET /v1/meta)`)
  );
}

function checkDates(draft: ConsentRequestDraft, bank: BankName, now: Instant): ConsentCheckFailure | null {
  const start = parseWireDateTime(draft.start_date_time);
  if (!start)
    return { code: null, rule: 'date form', message: `start_date_time is not a date-time: ${draft.start_date_time}` };
  const end = draft.end_date_time === undefined ? undefined : parseWireDateTime(draft.end_date_time);
  if (end === null)
    return { code: null, rule: 'date form', message: `end_date_time is not a date-time: ${draft.end_date_time}` };
  const expiration =
    draft.expiration_date_time === undefined ? undefined : parseWireDateTime(draft.expiration_date_time);
  if (expiration === null) {
    return {
      code: null,
      rule: 'date form',
      message: `expiration_date_time is not a date-time: ${draft.expiration_date_time}`,
    };
  }
  const failure = checkConsentDates({ start, end, expiration }, now, bank);
  return failure ? fail(failure.code, failure.message) : null;
}
