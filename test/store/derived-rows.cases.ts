/**
 * Rows about transactions, written from what an earlier read judged (a category decision, a
 * duplicate suspicion, a continuity finding), on both dialects from this one case list: a
 * transaction or an account deleted in between (a `consents forget` that committed after the read,
 * as it deletes its consent's rows) gets no such row, so the category, the payee, the suspicion or
 * the finding of a forgotten transaction never outlives the forget (src/store/dialect-sql.ts
 * `storedTransactionKeys`). The others are written.
 */
import { describe, expect, it } from 'vitest';
import type { TransactionId } from '@bankdata/core/schemas';
import type { Store } from '../../src/store';
import type { DecisionWrite } from '../../src/store/categories';
import type { AccountKey, ContinuityFinding } from '../../src/store/continuity';
import type { DuplicateSuspicion } from '../../src/store/duplicates';
import { execute, queryRows, storeSuite } from '../support/dialects';
import { ACCOUNT, BANK, commitWindow, freshStoreOn, txRow } from './helpers';

const storeWithRows = (store: Store, ids: string[]) =>
  commitWindow(
    store,
    ids.map((id) => txRow({ TransactionId: id })),
  );

/** What a `consents forget` does to a transaction of its consent: the row deleted. */
const deleteTransaction = (store: Store, id: string) =>
  execute(
    store,
    'DELETE FROM transactions WHERE bank = ? AND account_id = ? AND transaction_id = ?',
    BANK,
    ACCOUNT,
    id,
  );

export const derivedRowsSuite = storeSuite('rows about transactions, written after a read', (d) => {
  describe('only for transactions still stored', () => {
    it('a category decision of a transaction deleted since it was decided is not written; the others are', async () => {
      const store = await freshStoreOn(d);
      await storeWithRows(store, ['kept', 'gone']);
      const decisions: DecisionWrite[] = ['kept', 'gone', 'never-stored'].map((id) => ({
        bank: BANK,
        accountId: ACCOUNT,
        transactionId: id,
        category: 'groceries',
        payee: `Payee of ${id}`,
        source: 'rule',
        rule: 'r1',
        rowUpdatedAt: '2025-03-04T01:00:00.000Z',
      }));
      await deleteTransaction(store, 'gone');
      expect(await store.categories.save(decisions)).toBe(1);
      expect(
        await queryRows(store, 'SELECT transaction_id, payee FROM transaction_categories ORDER BY transaction_id'),
      ).toEqual([{ transaction_id: 'kept', payee: 'Payee of kept' }]);
    });

    it('a duplicate suspicion of a transaction, or of its twin, deleted since the check read them is not written', async () => {
      const store = await freshStoreOn(d);
      await storeWithRows(store, ['a', 'a-twin', 'b', 'b-twin', 'c', 'c-twin']);
      const suspicion = (id: string): DuplicateSuspicion => ({
        bank: BANK,
        accountId: ACCOUNT,
        transactionId: id as TransactionId,
        twinTransactionId: `${id}-twin` as TransactionId,
        evidence: 'balances',
        balance: '100.00',
        balanceDateTime: '2025-03-04T00:00:00.000Z',
        balanceDate: '2025-03-04',
        countedBalance: '110.00',
        amountOff: '10.00',
        amountOffMinor: 1000,
        currency: 'NZD',
        detail: 'a row counted twice',
      });
      await deleteTransaction(store, 'b');
      await deleteTransaction(store, 'c-twin');
      const counts = await store.duplicates.replaceSuspicions({
        accounts: [{ bank: BANK, accountId: ACCOUNT }],
        suspicions: ['a', 'b', 'c'].map(suspicion),
        runId: null,
        checkedAt: '2025-03-05T00:00:00.000Z',
      });
      expect(counts.marked).toBe(1);
      expect(await queryRows(store, 'SELECT transaction_id FROM duplicate_suspicions')).toEqual([
        { transaction_id: 'a' },
      ]);
      // Open, then its twin deleted before the next check writes: proved by that check's read, it
      // is cleared instead of kept.
      await deleteTransaction(store, 'a-twin');
      const again = await store.duplicates.replaceSuspicions({
        accounts: [{ bank: BANK, accountId: ACCOUNT }],
        suspicions: [suspicion('a')],
        runId: null,
        checkedAt: '2025-03-06T00:00:00.000Z',
      });
      expect(again).toMatchObject({ marked: 0, kept: 0, cleared: 1 });
      expect(await store.duplicates.list()).toEqual([]);
    });
    it('continuity findings of an account, or naming a transaction, deleted since the check read them are not written', async () => {
      const store = await freshStoreOn(d);
      await storeWithRows(store, ['kept', 'gone']);
      const finding = (accountId: string, transactionId: string | null): ContinuityFinding => ({
        bank: BANK,
        accountId: accountId as AccountKey['accountId'],
        kind: 'running_balance',
        fromDateTime: '2025-03-01T00:00:00.000Z',
        toDateTime: '2025-03-02T00:00:00.000Z',
        fromDate: '2025-03-01',
        toDate: '2025-03-02',
        amount: '-10.00',
        amountMinor: -1000,
        currency: 'NZD',
        cause: 'missing_transaction',
        transactionId: transactionId as TransactionId | null,
        detail: 'planted',
      });
      await deleteTransaction(store, 'gone');
      await store.continuity.replaceFindings({
        accounts: [
          { bank: BANK, accountId: ACCOUNT },
          { bank: BANK, accountId: 'acc-forgotten' as AccountKey['accountId'] },
        ],
        findings: [
          finding(ACCOUNT, 'kept'),
          finding(ACCOUNT, 'gone'),
          finding(ACCOUNT, null),
          finding('acc-forgotten', null),
        ],
        runId: null,
        checkedAt: '2025-03-05T00:00:00.000Z',
      });
      expect(
        await queryRows(store, 'SELECT account_id, transaction_id FROM continuity_findings ORDER BY transaction_id'),
      ).toEqual(
        expect.arrayContaining([
          { account_id: ACCOUNT, transaction_id: 'kept' },
          { account_id: ACCOUNT, transaction_id: null },
        ]),
      );
      expect(await queryRows(store, 'SELECT 1 FROM continuity_findings')).toHaveLength(2);
    });
  });
});
