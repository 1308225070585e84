/**
 * Categories and payees on both dialects from this one case list (src/categories,
 * src/store/categories.ts; docs/categories.md): each rule kind (description, merchant,
 * counterparty by name and by account, amount range, account, direction), first match wins,
 * then each fallback (MCC, bank transaction code, none), as v_transactions shows them; the
 * decisions after a sync only for rows without one; a re-apply that says what moved, and a dry
 * run that writes nothing.
 */
import { describe, expect, it } from 'vitest';
import { applyCategories } from '../../src/categories/apply';
import { parseRules, type Rule } from '../../src/categories/rules';
import type { Store } from '../../src/store';
import { execute, queryRows, storeSuite } from '../support/dialects';
import { ACCOUNT, BANK, commitWindow, freshStoreOn, txRow } from './helpers';

/** One window of the account committed as a sync would (helpers.ts `commitWindow`). */
const commit = commitWindow;

function rules(yaml: string): Rule[] {
  const parsed = parseRules(yaml);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.rules;
}

/** One row per rule kind and fallback; each rule below matches exactly one of them. */
const ROWS = () => [
  // description
  txRow({ TransactionId: 'rent', TransactionInformation: 'AP RENT 12 HILL ST', MerchantDetails: undefined }),
  // merchant (MCC 5814 would say dining)
  txRow({ TransactionId: 'coffee', MerchantDetails: { MerchantName: 'MOJO COFFEE', MerchantCategoryCode: '5814' } }),
  // counterparty name (debit: the creditor)
  txRow({
    TransactionId: 'power',
    TransactionInformation: 'DD 1234',
    MerchantDetails: undefined,
    TransactionReference: { CreditorName: 'Mercury Energy' },
  }),
  // counterparty account, written with dashes in the rule
  txRow({
    TransactionId: 'savings',
    TransactionInformation: 'TFR',
    MerchantDetails: undefined,
    CreditorAccount: { SchemeName: 'BECSElectronicCredit', Identification: '12-3456-0123456-00' },
  }),
  // amount range, exact at the bound: 1234.56 (1234.55 is outside)
  txRow({
    TransactionId: 'big',
    TransactionInformation: 'X',
    MerchantDetails: undefined,
    Amount: { Amount: '1234.56', Currency: 'NZD' },
  }),
  txRow({
    TransactionId: 'big-less',
    TransactionInformation: 'X',
    MerchantDetails: undefined,
    Amount: { Amount: '1234.55', Currency: 'NZD' },
  }),
  // direction: a credit
  txRow({
    TransactionId: 'refund',
    TransactionInformation: 'REFUND',
    CreditDebitIndicator: 'Credit',
    MerchantDetails: undefined,
  }),
  // MCC fallback
  txRow({
    TransactionId: 'groceries',
    TransactionInformation: 'COUNTDOWN',
    MerchantDetails: { MerchantName: ' COUNTDOWN  PONSONBY ', MerchantCategoryCode: '5411' },
  }),
  // bank transaction code fallback
  txRow({
    TransactionId: 'atm',
    TransactionInformation: 'ATM',
    MerchantDetails: undefined,
    BankTransactionCode: { Code: 'CustomerCardTransactions', SubCode: 'CashWithdrawal' },
  }),
  txRow({
    TransactionId: 'fee',
    TransactionInformation: 'MONTHLY ACCOUNT FEE',
    MerchantDetails: undefined,
    ProprietaryBankTransactionCode: { Code: 'FEE', Issuer: 'PNZ' },
  }),
  // none
  txRow({ TransactionId: 'mystery', TransactionInformation: 'SOMETHING', MerchantDetails: undefined }),
];

const RULES = `rules:
  - id: rent
    description: rent
    category: housing
    payee: Landlord Ltd
  - merchant: { regex: "^mojo" }
    category: coffee
  - counterparty: mercury
    category: utilities
    payee: Mercury
  - id: savings
    counterparty: "12 3456 0123456 00"
    category: transfer
  - id: big
    amount: { min: "1234.56" }
    direction: debit
    category: large
  - id: refunds
    direction: credit
    account: [acc-0001]
    category: refunds
  - id: never
    account: acc-other
    category: never
`;

async function viewRows(store: Store) {
  return queryRows<{
    transaction_id: string;
    category: string;
    payee: string | null;
    category_source: string;
    category_rule: string | null;
  }>(
    store,
    'SELECT transaction_id, category, payee, category_source, category_rule FROM v_transactions ORDER BY transaction_id',
  );
}

export const categoriesSuite = storeSuite('categories and payees', (d) => {
  describe('categories', () => {
    it('reads uncategorised / none in v_transactions before any decision', async () => {
      const store = await freshStoreOn(d);
      await commit(store, ROWS().slice(0, 1));
      expect(await viewRows(store)).toEqual([
        {
          transaction_id: 'rent',
          category: 'uncategorised',
          payee: null,
          category_source: 'none',
          category_rule: null,
        },
      ]);
    });

    it('decides each row by the first matching rule, else the MCC, else the bank code, else none', async () => {
      const store = await freshStoreOn(d);
      await commit(store, ROWS());
      const result = await applyCategories(store, { rules: rules(RULES), all: false });
      expect(result.examined).toBe(11);
      expect(result.bySource).toEqual({ rule: 6, mcc: 1, code: 2, none: 2 });
      const byId = Object.fromEntries((await viewRows(store)).map((r) => [r.transaction_id, r]));
      expect(byId.rent).toMatchObject({
        category: 'housing',
        payee: 'Landlord Ltd',
        category_source: 'rule',
        category_rule: 'rent',
      });
      // The merchant rule (line 6, no id) wins over the MCC; its payee is the merchant's name.
      expect(byId.coffee).toMatchObject({
        category: 'coffee',
        payee: 'MOJO COFFEE',
        category_source: 'rule',
        category_rule: 'line 6',
      });
      expect(byId.power).toMatchObject({ category: 'utilities', payee: 'Mercury', category_rule: 'line 8' });
      expect(byId.savings).toMatchObject({ category: 'transfer', category_source: 'rule', category_rule: 'savings' });
      expect(byId.big).toMatchObject({ category: 'large', category_rule: 'big' });
      expect(byId['big-less']).toMatchObject({
        category: 'uncategorised',
        category_source: 'none',
        category_rule: null,
      });
      expect(byId.refund).toMatchObject({ category: 'refunds', category_rule: 'refunds' });
      expect(byId.groceries).toMatchObject({
        category: 'groceries',
        payee: 'COUNTDOWN PONSONBY',
        category_source: 'mcc',
        category_rule: '5411',
      });
      expect(byId.atm).toMatchObject({
        category: 'cash',
        category_source: 'code',
        category_rule: 'CustomerCardTransactions/CashWithdrawal',
      });
      expect(byId.fee).toMatchObject({ category: 'fees', category_source: 'code', category_rule: 'proprietary:FEE' });
      expect(byId.mystery).toMatchObject({ category: 'uncategorised', category_source: 'none', category_rule: null });
      expect(await store.categories.counts()).toMatchObject({
        total: 11,
        bySource: { rule: 6, mcc: 1, code: 2, none: 2 },
      });
    });

    it('after a sync decides only rows without a decision, or changed since theirs', async () => {
      const store = await freshStoreOn(d);
      await commit(store, ROWS().slice(0, 2));
      expect((await applyCategories(store, { rules: [], all: false })).examined).toBe(2);
      // Nothing new: nothing read.
      expect((await applyCategories(store, { rules: [], all: false })).examined).toBe(0);
      await commit(store, [...ROWS().slice(0, 2), ROWS()[7]!], '2025-03-06T01:00:00Z');
      const again = await applyCategories(store, { rules: [], all: false, batchSize: 1 });
      expect(again.examined).toBe(1);
      expect(again.bySource.mcc).toBe(1);
    });

    it('an amended row whose decision stays the same is read once, not at every sync (its version stored)', async () => {
      const store = await freshStoreOn(d);
      await commit(store, ROWS().slice(0, 2));
      expect((await applyCategories(store, { rules: rules(RULES), all: false })).examined).toBe(2);
      const logged = async () =>
        Number(
          (
            await queryRows<{ n: number | string }>(
              store,
              "SELECT count(*) AS n FROM change_log WHERE source = 'transaction_categories'",
            )
          )[0]!.n,
        );
      const entries = await logged();
      // The bank amends the rent's narrative; the rule still matches it: the same decision.
      const amended = txRow({
        TransactionId: 'rent',
        TransactionInformation: 'AP RENT 12 HILL ST FEB',
        MerchantDetails: undefined,
      });
      await commit(store, [amended, ROWS()[1]!], '2025-03-06T01:00:00Z');
      const first = await applyCategories(store, { rules: rules(RULES), all: false });
      expect([first.examined, first.changed, first.versioned]).toEqual([1, 0, 1]);
      // The next syncs' categorising reads nothing: the decision carries the row's version.
      for (let i = 0; i < 2; i++)
        expect((await applyCategories(store, { rules: rules(RULES), all: false })).examined).toBe(0);
      // Only the version moved: no change-feed entry, the view as it was.
      expect(await logged()).toBe(entries);
      expect((await viewRows(store)).find((r) => r.transaction_id === 'rent')).toMatchObject({
        category: 'housing',
        category_rule: 'rent',
      });
    });

    it('a row amended so that its category changes is decided again, whatever the clock that dated the decision', async () => {
      const store = await freshStoreOn(d);
      await commit(store, [ROWS()[7]!]);
      expect((await viewRows(store))[0]!.category).toBe('uncategorised');
      await applyCategories(store, { rules: [], all: false });
      expect((await viewRows(store))[0]).toMatchObject({ category: 'groceries', category_source: 'mcc' });
      // Amended by a sync whose clock is behind the store's (helpers.ts NOW dates the decision
      // 2025-03-05): the row's updated_at is before decided_at, and it changed all the same.
      await commit(
        store,
        [
          txRow({
            TransactionId: 'groceries',
            TransactionInformation: 'COUNTDOWN',
            MerchantDetails: { MerchantName: 'COUNTDOWN CAFE', MerchantCategoryCode: '5812' },
          }),
        ],
        '2025-03-04T02:00:00Z',
      );
      const again = await applyCategories(store, { rules: [], all: false });
      expect([again.examined, again.changed]).toEqual([1, 1]);
      expect(again.moves).toEqual([{ from: 'groceries', to: 'dining', count: 1 }]);
      expect((await viewRows(store))[0]).toMatchObject({
        category: 'dining',
        payee: 'COUNTDOWN CAFE',
        category_rule: '5812',
      });
      expect((await applyCategories(store, { rules: [], all: false })).examined).toBe(0);
    });

    it('a decision stored before its version column (migration 0017 / pg 0015: row_updated_at empty) is decided again once', async () => {
      const store = await freshStoreOn(d);
      await commit(store, [ROWS()[7]!]);
      // As the migration leaves an earlier decision: every column but the version, which defaults to ''.
      await execute(
        store,
        `INSERT INTO transaction_categories (bank, account_id, transaction_id, category, payee, category_source, category_rule, decided_at)
         VALUES (?, ?, 'groceries', 'groceries', 'COUNTDOWN PONSONBY', 'mcc', '5411', '2025-03-05T00:00:00.000Z')`,
        BANK,
        ACCOUNT,
      );
      const once = await applyCategories(store, { rules: [], all: false });
      expect([once.examined, once.changed, once.versioned]).toEqual([1, 0, 1]);
      expect((await applyCategories(store, { rules: [], all: false })).examined).toBe(0);
    });

    it('stops between batches when its signal is aborted; the batches done stay written', async () => {
      const store = await freshStoreOn(d);
      await commit(store, ROWS());
      const controller = new AbortController();
      let batches = 0;
      const counting: Store = {
        ...store,
        categories: {
          ...store.categories,
          save: async (decisions, now) => {
            batches++;
            if (batches === 2) controller.abort();
            return store.categories.save(decisions, now);
          },
        },
      };
      const stopped = await applyCategories(counting, {
        rules: [],
        all: false,
        batchSize: 3,
        signal: controller.signal,
      });
      expect([stopped.stopped, stopped.examined, batches]).toEqual([true, 6, 2]);
      // The rest is decided by the next run.
      const rest = await applyCategories(store, { rules: [], all: false });
      expect([rest.stopped, rest.examined]).toEqual([false, 5]);
    });

    it('re-applies every row after the rules change, saying what moved; a dry run writes nothing', async () => {
      const store = await freshStoreOn(d);
      await commit(store, ROWS());
      await applyCategories(store, { rules: [], all: false });
      const before = await viewRows(store);
      expect(before.find((r) => r.transaction_id === 'rent')?.category).toBe('uncategorised');

      const dry = await applyCategories(store, { rules: rules(RULES), all: true, dryRun: true, batchSize: 3 });
      expect(dry.dryRun).toBe(true);
      expect(dry.examined).toBe(11);
      expect(await viewRows(store)).toEqual(before);
      expect(dry.moves).toContainEqual({ from: 'dining', to: 'coffee', count: 1 });
      expect(dry.moves).toContainEqual({ from: 'uncategorised', to: 'housing', count: 1 });

      const real = await applyCategories(store, { rules: rules(RULES), all: true, batchSize: 3 });
      expect(real.moves).toEqual(dry.moves);
      expect(real.changed).toBe(dry.changed);
      const after = Object.fromEntries((await viewRows(store)).map((r) => [r.transaction_id, r.category]));
      expect(after.rent).toBe('housing');
      expect(after.coffee).toBe('coffee');
      // Applied again with the same rules: nothing moves, nothing is written.
      const still = await applyCategories(store, { rules: rules(RULES), all: true });
      expect([still.changed, still.moves]).toEqual([0, []]);
    });
  });
});
