/**
 * The emulator's bank fixtures for GET /v1/meta (docs/bank-api.md §5). These are ours, not claims about
 * real banks; each bank differs in one way so that the client's gating can be tested:
 * BNZ holds 730 days (matches BDT014), ANZ 365, ASB has no statements (nor their permissions),
 * NZHL has statements but no statement files (501 on the file), Westpac no redirect flow,
 * Kiwibank no decoupled flow and prefers CSV files; PNZ supports everything.
 */
import { BANKS, type BankMeta, type BankName, type Permission } from '@bankdata/core/schemas';
import type { Environment } from '@bankdata/core/consent-rules';

const BASE_PERMISSIONS: Permission[] = [
  'ReadAccountsBasic',
  'ReadAccountsDetail',
  'ReadBalances',
  'ReadTransactionsBasic',
  'ReadTransactionsDetail',
  'ReadTransactionsCredits',
  'ReadTransactionsDebits',
];
const STATEMENT_PERMISSIONS: Permission[] = ['ReadStatements', 'ReadStatementsBasic', 'ReadStatementsDetail'];
const PARTY_PERMISSIONS: Permission[] = ['ReadParty', 'ReadPartyAuthUser'];

const MOBILE_IDENTIFIER = {
  type: 'mobile_number' as const,
  name: 'Mobile number',
  regex: '^\\+64-?2[0-9]{7,9}$',
  description: 'NZ mobile, +64 form',
};

interface Fixture {
  statements: boolean;
  redirect: boolean;
  decoupled: boolean;
  maxHistoryDays: number | null;
  fileTypes: string[];
}

const FIXTURES: Record<BankName, Fixture> = {
  PNZ: {
    statements: true,
    redirect: true,
    decoupled: true,
    maxHistoryDays: null,
    fileTypes: ['application/pdf', 'text/csv'],
  },
  ANZ: {
    statements: true,
    redirect: true,
    decoupled: true,
    maxHistoryDays: 365,
    fileTypes: ['application/pdf', 'text/csv'],
  },
  ASB: { statements: false, redirect: true, decoupled: true, maxHistoryDays: 540, fileTypes: [] },
  BNZ: { statements: true, redirect: true, decoupled: true, maxHistoryDays: 730, fileTypes: ['application/pdf'] },
  Westpac: {
    statements: true,
    redirect: false,
    decoupled: true,
    maxHistoryDays: null,
    fileTypes: ['application/pdf', 'text/csv'],
  },
  Kiwibank: {
    statements: true,
    redirect: true,
    decoupled: false,
    maxHistoryDays: null,
    fileTypes: ['text/csv', 'application/pdf'],
  },
  NZHL: { statements: true, redirect: true, decoupled: true, maxHistoryDays: null, fileTypes: [] },
};

export function bankMeta(bank: BankName, gatewayFlowEnabled: boolean): BankMeta {
  const f = FIXTURES[bank];
  return {
    name: bank,
    features: {
      permissions: [...BASE_PERMISSIONS, ...(f.statements ? STATEMENT_PERMISSIONS : []), ...PARTY_PERMISSIONS],
      redirect_flow: { enabled: f.redirect, request_timeout: 'PT10M' },
      decoupled_flow: {
        enabled: f.decoupled,
        request_timeout: 'PT5M',
        available_identifiers: f.decoupled ? [MOBILE_IDENTIFIER] : [],
      },
      gateway_flow: { enabled: gatewayFlowEnabled, request_timeout: 'PT15M' },
      resources: {
        accounts: true,
        balances: true,
        transactions: true,
        statements: f.statements,
        statement_file: f.statements && f.fileTypes.length > 0,
        party: true,
        account_party: true,
      },
      statement_file_content_types: f.statements ? [...f.fileTypes] : [],
      max_history_days: f.maxHistoryDays,
    },
  };
}

/** The banks set up for the organisation in an environment (seed: the sandbox accepts only PNZ). */
export function banksFor(environment: Environment): BankName[] {
  return environment === 'sandbox' ? ['PNZ'] : [...BANKS];
}

export function metaFor(environment: Environment, gatewayFlowEnabled: boolean): BankMeta[] {
  return banksFor(environment).map((bank) => bankMeta(bank, gatewayFlowEnabled));
}
