/**
 * Which scope and consent permission each Data API endpoint needs (docs/bank-api.md §3), which meta
 * feature gates it, and the payload level a consent's permissions give.
 */
import type { Permission, ResourceFeature, Scope } from './schemas';

// ---------------------------------------------------------------------------
// Endpoints: scope and consent permission (docs/bank-api.md §3)

export type Endpoint =
  | 'accounts'
  | 'account'
  | 'balances'
  | 'transactions'
  | 'statements'
  | 'statement'
  | 'statement_file'
  | 'party'
  | 'account_party'
  | 'consents'
  | 'meta';

export const ENDPOINT_ACCESS: Record<Endpoint, { scope: Scope; permissions: readonly Permission[] }> = {
  accounts: { scope: 'read:accounts', permissions: ['ReadAccountsBasic', 'ReadAccountsDetail'] },
  account: { scope: 'read:accounts', permissions: ['ReadAccountsBasic', 'ReadAccountsDetail'] },
  balances: { scope: 'read:balances', permissions: ['ReadBalances'] },
  transactions: { scope: 'read:transactions', permissions: ['ReadTransactionsBasic', 'ReadTransactionsDetail'] },
  statements: { scope: 'read:transactions', permissions: ['ReadStatements'] },
  statement: { scope: 'read:transactions', permissions: ['ReadStatements'] },
  statement_file: { scope: 'read:transactions', permissions: ['ReadStatements'] },
  party: { scope: 'read:party', permissions: ['ReadPartyAuthUser'] },
  account_party: { scope: 'read:party', permissions: ['ReadParty'] },
  consents: { scope: 'manage:consents', permissions: [] },
  meta: { scope: 'read:meta', permissions: [] },
};

/** The meta `resources` flag that gates each resource endpoint. */
export const ENDPOINT_RESOURCE: Partial<Record<Endpoint, ResourceFeature>> = {
  accounts: 'accounts',
  account: 'accounts',
  balances: 'balances',
  transactions: 'transactions',
  statements: 'statements',
  statement: 'statements',
  statement_file: 'statement_file',
  party: 'party',
  account_party: 'account_party',
};

/** True when a consent holding `granted` may call `endpoint` (BDT411 otherwise). */
export function hasPermissionFor(endpoint: Endpoint, granted: readonly string[]): boolean {
  const needed = ENDPOINT_ACCESS[endpoint].permissions;
  return needed.length === 0 || needed.some((p) => granted.includes(p));
}

/**
 * ReadTransactionsCredits / ReadTransactionsDebits are filters (docs/bank-api.md §3): Credits alone
 * returns only Credit entries, Debits alone only Debit; both or neither, all.
 */
export function creditDebitFilter(granted: readonly string[]): 'Credit' | 'Debit' | null {
  const credits = granted.includes('ReadTransactionsCredits');
  const debits = granted.includes('ReadTransactionsDebits');
  if (credits && !debits) return 'Credit';
  if (debits && !credits) return 'Debit';
  return null;
}

/** Payload level (docs/bank-api.md §3): Detail wins when both are held. */
export function payloadLevel(granted: readonly string[], basic: Permission, detail: Permission): 'Basic' | 'Detail' {
  return granted.includes(detail) ? 'Detail' : granted.includes(basic) ? 'Basic' : 'Detail';
}
