import { describe, expect, it } from 'vitest';
import { PLANNED_RESOURCES, planConsent, scopeGapForSync, unitsOf } from '../../src/sync/plan';
import type { BankMeta, Permission } from '@bankdata/core/schemas';
import { FULL_PERMISSIONS } from '@bankdata/emulator';

const ALL_SCOPES = [
  'manage:consents',
  'read:meta',
  'read:accounts',
  'read:balances',
  'read:transactions',
  'read:party',
];
const FULL = [...FULL_PERMISSIONS];

function bank(
  overrides: Partial<BankMeta['features']['resources']> = {},
  fileTypes = ['application/pdf', 'text/csv'],
): BankMeta {
  return {
    name: 'PNZ',
    features: {
      permissions: FULL,
      redirect_flow: { enabled: true },
      decoupled_flow: { enabled: false, available_identifiers: [] },
      gateway_flow: { enabled: true, request_timeout: 'PT15M' },
      resources: {
        accounts: true,
        balances: true,
        transactions: true,
        statements: true,
        statement_file: true,
        party: true,
        account_party: true,
        ...overrides,
      },
      statement_file_content_types: fileTypes,
      max_history_days: null,
    },
  };
}

describe('consent plan: permissions ∩ scopes ∩ bank features', () => {
  it('fetches everything when the consent, token and bank allow it', () => {
    const plan = planConsent({ permissions: FULL, scopes: ALL_SCOPES, bank: bank() });
    expect(Object.values(plan.resources).every((d) => d.fetch)).toBe(true);
    expect(plan.creditDebitFilter).toBeNull();
  });

  it('never requests a resource the bank meta marks false', () => {
    const plan = planConsent({
      permissions: FULL,
      scopes: ALL_SCOPES,
      bank: bank({ statements: false, statement_file: false }),
    });
    expect(plan.resources.statements).toEqual({ fetch: false, reason: 'bank PNZ does not offer statements (meta)' });
    expect(plan.resources.statement_file.fetch).toBe(false);
    expect(plan.resources.transactions.fetch).toBe(true);
  });

  it('skips a resource whose permission the consent lacks (BDT411 is never provoked)', () => {
    const plan = planConsent({
      permissions: ['ReadAccountsBasic', 'ReadTransactionsBasic', 'ReadBalances'],
      scopes: ALL_SCOPES,
      bank: bank(),
    });
    expect(plan.resources.transactions.fetch).toBe(true);
    expect(plan.resources.statements.fetch).toBe(false);
    expect(plan.resources.party.fetch).toBe(false);
    expect(plan.resources.account_party.fetch).toBe(false);
  });

  it('statements and their files need ReadStatements, whatever Basic or Detail is held (docs/bank-api.md §3)', () => {
    for (const statementPermissions of [['ReadStatementsBasic'], ['ReadStatementsDetail']]) {
      const plan = planConsent({
        permissions: ['ReadAccountsDetail', ...statementPermissions] as Permission[],
        scopes: ALL_SCOPES,
        bank: bank(),
      });
      expect(plan.resources.statements.fetch).toBe(false);
      expect(plan.resources.statement_file.fetch).toBe(false);
    }
    const plan = planConsent({
      permissions: ['ReadAccountsDetail', 'ReadStatements', 'ReadStatementsBasic'],
      scopes: ALL_SCOPES,
      bank: bank(),
    });
    expect(plan.resources.statements.fetch).toBe(true);
    expect(plan.resources.statement_file.fetch).toBe(true);
  });

  it('skips a resource whose scope the token lacks', () => {
    const plan = planConsent({ permissions: FULL, scopes: ['read:accounts', 'read:transactions'], bank: bank() });
    expect(plan.resources.balances).toEqual({ fetch: false, reason: 'token lacks scope read:balances' });
    expect(plan.resources.party.fetch).toBe(false);
    expect(plan.resources.transactions.fetch).toBe(true);
  });

  it('per-account resources are skipped when the account list cannot be read', () => {
    const plan = planConsent({
      permissions: ['ReadTransactionsDetail', 'ReadPartyAuthUser'],
      scopes: ALL_SCOPES,
      bank: bank(),
    });
    expect(plan.resources.transactions.fetch).toBe(false);
    expect(plan.resources.party.fetch).toBe(true);
  });

  it('a bank missing from meta plans nothing', () => {
    const plan = planConsent({ permissions: FULL, scopes: ALL_SCOPES, bank: undefined });
    expect(PLANNED_RESOURCES.filter((r) => plan.resources[r].fetch)).toEqual([]);
  });

  it('records the Credits/Debits filter of the consent', () => {
    const plan = planConsent({
      permissions: ['ReadAccountsDetail', 'ReadTransactionsDetail', 'ReadTransactionsCredits'],
      scopes: ALL_SCOPES,
      bank: bank(),
    });
    expect(plan.creditDebitFilter).toBe('Credit');
  });

  it('no statement file when the bank lists no content types', () => {
    const plan = planConsent({ permissions: FULL, scopes: ALL_SCOPES, bank: bank({}, []) });
    expect(plan.resources.statement_file.fetch).toBe(false);
  });
});

describe('scopeGapForSync (exit 3: a scope missing for everything asked)', () => {
  it('a token with every scope, or with only the party scope, can ask something', () => {
    expect(scopeGapForSync(ALL_SCOPES)).toBeNull();
    expect(scopeGapForSync(['manage:consents', 'read:party'])).toBeNull();
  });

  it('without manage:consents no consent status can be read', () => {
    expect(scopeGapForSync(ALL_SCOPES.filter((s) => s !== 'manage:consents'))).toMatch(/manage:consents/);
  });

  it('without read:accounts and read:party nothing is reachable, whatever else the token holds', () => {
    expect(scopeGapForSync(['manage:consents', 'read:meta', 'read:balances', 'read:transactions'])).toMatch(
      /lacks every scope/,
    );
  });
});

describe('unitsOf: the walk the sync and the dry run share', () => {
  it('every unit in order when everything is planned', () => {
    expect(unitsOf(planConsent({ permissions: FULL, scopes: ALL_SCOPES, bank: bank() }))).toEqual({
      accounts: true,
      perAccount: ['balances', 'transactions', 'statements', 'account_party'],
      statementFiles: true,
      party: true,
    });
  });

  it('without the account list no per-account unit, without statements no files; the party still', () => {
    const noAccounts = planConsent({
      permissions: FULL,
      scopes: ALL_SCOPES.filter((s) => s !== 'read:accounts'),
      bank: bank(),
    });
    expect(unitsOf(noAccounts)).toMatchObject({ accounts: false, perAccount: [], statementFiles: false, party: true });
    const noStatements = planConsent({
      permissions: FULL.filter((p) => p !== 'ReadStatements'),
      scopes: ALL_SCOPES,
      bank: bank(),
    });
    expect(unitsOf(noStatements)).toMatchObject({
      perAccount: ['balances', 'transactions', 'account_party'],
      statementFiles: false,
    });
  });
});
