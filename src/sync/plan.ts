/**
 * What a sync may ask of one consent: the consent's permissions ∩ the token's scopes ∩ the
 * bank's meta features. Nothing the bank lacks is ever requested (docs/configuration.md "Sync rules").
 * Pure: the sync records each skip's reason.
 */
import {
  ENDPOINT_ACCESS,
  ENDPOINT_RESOURCE,
  creditDebitFilter,
  hasPermissionFor,
  type Endpoint,
} from '@bankdata/core/endpoint-access';
import type { BankMeta } from '@bankdata/core/schemas';

export const PLANNED_RESOURCES = [
  'accounts',
  'balances',
  'transactions',
  'statements',
  'statement_file',
  'account_party',
  'party',
] as const;
export type PlannedResource = (typeof PLANNED_RESOURCES)[number];

export type ResourceDecision = { fetch: true } | { fetch: false; reason: string };

export interface ConsentPlan {
  resources: Record<PlannedResource, ResourceDecision>;
  /** The consent's Credits/Debits filter: which pending rows a fetch could have returned. */
  creditDebitFilter: 'Credit' | 'Debit' | null;
  /** Statement file types to accept, in the bank's order. */
  statementFileTypes: string[];
}

/** Resources that hang off an account: without the account list they cannot be reached. */
const PER_ACCOUNT: readonly PlannedResource[] = [
  'balances',
  'transactions',
  'statements',
  'statement_file',
  'account_party',
];

export function planConsent(input: {
  permissions: readonly string[];
  scopes: readonly string[];
  bank: BankMeta | undefined;
}): ConsentPlan {
  const { permissions, scopes, bank } = input;
  const decide = (resource: PlannedResource): ResourceDecision => {
    const endpoint: Endpoint = resource;
    if (!bank) return { fetch: false, reason: 'bank not listed in /v1/meta for this organisation' };
    const feature = ENDPOINT_RESOURCE[endpoint];
    if (feature && !bank.features.resources[feature]) {
      return { fetch: false, reason: `bank ${bank.name} does not offer ${feature} (meta)` };
    }
    const { scope } = ENDPOINT_ACCESS[endpoint];
    if (!scopes.includes(scope)) return { fetch: false, reason: `token lacks scope ${scope}` };
    if (!hasPermissionFor(endpoint, permissions)) {
      return {
        fetch: false,
        reason: `consent lacks permission ${ENDPOINT_ACCESS[endpoint].permissions.join(' or ')}`,
      };
    }
    return { fetch: true };
  };

  const resources = Object.fromEntries(PLANNED_RESOURCES.map((r) => [r, decide(r)])) as Record<
    PlannedResource,
    ResourceDecision
  >;
  if (!resources.accounts.fetch) {
    for (const r of PER_ACCOUNT) {
      if (resources[r].fetch)
        resources[r] = { fetch: false, reason: `needs the account list: ${resources.accounts.reason}` };
    }
  }
  if (resources.statement_file.fetch && !resources.statements.fetch) {
    resources.statement_file = { fetch: false, reason: `needs the statement list: ${resources.statements.reason}` };
  }
  const fileTypes = bank?.features.statement_file_content_types ?? [];
  if (resources.statement_file.fetch && fileTypes.length === 0) {
    resources.statement_file = { fetch: false, reason: 'bank lists no statement file content types' };
  }
  return {
    resources,
    creditDebitFilter: creditDebitFilter(permissions),
    statementFileTypes: fileTypes,
  };
}

/**
 * Why a token with these scopes lets a sync ask nothing at all, or null when it can ask
 * something. Exit 3, "a scope missing for everything asked" (README.md exit codes;
 * docs/client.md): without `manage:consents` no consent status can be read (the sync reads it
 * first), and without the scope of any reachable resource nothing could be fetched.
 */
export function scopeGapForSync(scopes: readonly string[]): string | null {
  const consents = ENDPOINT_ACCESS.consents.scope;
  if (!scopes.includes(consents)) return `the token lacks scope ${consents}: no consent status can be read`;
  const allowed = (r: PlannedResource) => scopes.includes(ENDPOINT_ACCESS[r].scope);
  const reachable = PLANNED_RESOURCES.filter((r) => allowed(r) && (!PER_ACCOUNT.includes(r) || allowed('accounts')));
  if (reachable.length > 0) return null;
  const needed = [...new Set(PLANNED_RESOURCES.map((r) => ENDPOINT_ACCESS[r].scope))].join(', ');
  return `the token lacks every scope a sync reads (${needed}): nothing can be fetched`;
}

/** The units of one account, in the order a run takes them (statement files follow statements). */
export const ACCOUNT_UNITS = ['balances', 'transactions', 'statements', 'account_party'] as const;
export type AccountUnit = (typeof ACCOUNT_UNITS)[number];

/**
 * The units a run takes for a consent, from its plan: the account list, then for each account
 * its units in order, then the customer's party. The sync runs them and the dry run lists their
 * requests, from this one walk.
 */
export interface ConsentUnits {
  accounts: boolean;
  perAccount: AccountUnit[];
  /** After an account's statement list: the file of each statement still without one. */
  statementFiles: boolean;
  party: boolean;
}

export function unitsOf(plan: ConsentPlan): ConsentUnits {
  const { resources } = plan;
  const accounts = resources.accounts.fetch;
  return {
    accounts,
    perAccount: accounts ? ACCOUNT_UNITS.filter((unit) => resources[unit].fetch) : [],
    statementFiles: resources.statements.fetch && resources.statement_file.fetch,
    party: resources.party.fetch,
  };
}
