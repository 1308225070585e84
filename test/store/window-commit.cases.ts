import { describe, expect, it } from 'vitest';
import { queryRow, queryRows, storeSuite } from '../support/dialects';
import type { ConsentId } from '@bankdata/core/schemas';
import type { Store, TransactionRow, TransactionWindowInput } from '../../src/store';
import { ACCOUNT, BANK, CONSENT, OTHER_CONSENT, authorise, freshStoreOn, storedTx, txRow } from './helpers';

const RANGE = { from: '2025-03-01T00:00:00+13:00', to: '2025-03-05T00:00:00+13:00' };

async function commit(store: Store, rows: TransactionRow[], extra: Partial<TransactionWindowInput> = {}) {
  return await store.commitTransactionWindow({
    bank: BANK,
    accountId: ACCOUNT,
    consentId: CONSENT,
    range: RANGE,
    creditDebitFilter: null,
    rows,
    checkpoint: { watermark: RANGE.to },
    runId: null,
    now: '2025-03-05T01:00:00Z',
    ...extra,
  });
}

async function visibleIds(store: Store): Promise<string[]> {
  return (
    await queryRows<{ transaction_id: string }>(
      store,
      'SELECT transaction_id FROM v_transactions ORDER BY transaction_id',
    )
  ).map((r) => r.transaction_id);
}

export const windowCommitSuite = storeSuite('commitTransactionWindow', (d) => {
  describe('commitTransactionWindow', () => {
    it('adds new rows and counts a re-commit of the same rows as unchanged without rewriting them', async () => {
      const store = await freshStoreOn(d);
      const rows = [txRow(), txRow({ TransactionId: 'txn-2', Status: 'Booked' })];
      expect(await commit(store, rows)).toEqual({ added: 2, updated: 0, removed: 0, unchanged: 0 });
      const before = (await storedTx(store, 'txn-1'))!;

      const again = await commit(
        store,
        rows.map((r) => ({ ...r, consentId: OTHER_CONSENT })),
        {
          consentId: OTHER_CONSENT,
          now: '2025-03-06T01:00:00Z',
        },
      );
      expect(again).toEqual({ added: 0, updated: 0, removed: 0, unchanged: 2 });
      const after = (await storedTx(store, 'txn-1'))!;
      // Content and updated_at untouched; only the fetch bookkeeping moved.
      expect({ ...after, last_seen_at: null, consent_id: null }).toEqual({
        ...before,
        last_seen_at: null,
        consent_id: null,
      });
      expect(after.updated_at).toBe('2025-03-05T01:00:00.000Z');
      expect(after.last_seen_at).toBe('2025-03-06T01:00:00.000Z');
      expect(after.consent_id).toBe(OTHER_CONSENT);
    });

    it('two databases open side by side: each window lands in its own (statements are prepared once per database)', async () => {
      const [a, b] = [await freshStoreOn(d), await freshStoreOn(d)];
      expect(await commit(a, [txRow({ Status: 'Booked' })])).toMatchObject({ added: 1 });
      expect(await commit(b, [txRow({ TransactionId: 'txn-2', Status: 'Booked' })])).toMatchObject({ added: 1 });
      expect(await commit(a, [txRow({ TransactionId: 'txn-3', Status: 'Booked' })])).toMatchObject({ added: 1 });
      expect(
        await commit(b, [
          txRow({ TransactionId: 'txn-2', Status: 'Booked', Amount: { Amount: '9.99', Currency: 'NZD' } }),
        ]),
      ).toMatchObject({ updated: 1 });
      expect(await visibleIds(a)).toEqual(['txn-1', 'txn-3']);
      expect(await visibleIds(b)).toEqual(['txn-2']);
      expect(await queryRow(b, "SELECT amount FROM transactions WHERE transaction_id = 'txn-2'")).toEqual({
        amount: '-9.99',
      });
    });

    it('keeps a row with the consent that first returned it while that consent is live, then hands it over (docs/data-model.md)', async () => {
      const store = await freshStoreOn(d);
      await authorise(store, CONSENT);
      await authorise(store, OTHER_CONSENT);
      const owners = async () =>
        await queryRows<{ transaction_id: string; consent_id: string }>(
          store,
          'SELECT transaction_id, consent_id FROM transactions ORDER BY 1',
        );
      await commit(store, [txRow(), txRow({ TransactionId: 'txn-2', Status: 'Booked' })]);
      const other = { consentId: OTHER_CONSENT, now: '2025-03-06T01:00:00Z' };
      // Seen again through the other consent, unchanged and changed: the first consent keeps both.
      expect(
        await commit(
          store,
          [
            txRow({}, OTHER_CONSENT),
            txRow(
              { TransactionId: 'txn-2', Status: 'Booked', Amount: { Amount: '9.99', Currency: 'NZD' } },
              OTHER_CONSENT,
            ),
          ],
          other,
        ),
      ).toMatchObject({ unchanged: 1, updated: 1 });
      expect(await owners()).toEqual([
        { transaction_id: 'txn-1', consent_id: CONSENT },
        { transaction_id: 'txn-2', consent_id: CONSENT },
      ]);
      // Once it has ended, the next consent that returns a row takes it over.
      await store.consents.markEnded(CONSENT, 'BDT410', '2025-03-06T02:00:00Z');
      expect(await commit(store, [txRow({}, OTHER_CONSENT)], { ...other, now: '2025-03-06T03:00:00Z' })).toMatchObject({
        unchanged: 1,
      });
      expect(await owners()).toEqual([
        { transaction_id: 'txn-1', consent_id: OTHER_CONSENT },
        { transaction_id: 'txn-2', consent_id: CONSENT },
      ]);
    });

    it('replaces the stored pending row with the booked row of the same id', async () => {
      const store = await freshStoreOn(d);
      await commit(store, [txRow()]);
      const counts = await commit(store, [txRow({ Status: 'Booked', Amount: { Amount: '19.40', Currency: 'NZD' } })]);
      expect(counts).toEqual({ added: 0, updated: 1, removed: 0, unchanged: 0 });
      const row = (await storedTx(store, 'txn-1'))!;
      expect(row).toMatchObject({ status: 'Booked', amount: '-19.40', amount_minor: -1940, removed_at: null });
      expect(await queryRow(store, 'SELECT count(*) AS n FROM transactions')).toEqual({ n: 1 });
    });

    it('removes a pending row that vanished when its successor books under a new id (docs/bank-api.md §6.4)', async () => {
      const store = await freshStoreOn(d);
      await commit(store, [txRow({ TransactionId: 'txn-pend-7731' })]);
      const counts = await commit(store, [txRow({ TransactionId: 'txn-20250304-0009', Status: 'Booked' })]);
      expect(counts).toEqual({ added: 1, updated: 0, removed: 1, unchanged: 0 });
      expect((await storedTx(store, 'txn-pend-7731'))!.removed_at).toBe('2025-03-05T01:00:00.000Z');
      expect(await visibleIds(store)).toEqual(['txn-20250304-0009']);
    });

    it('removes vanished pending rows only inside the fetched range, both ends inclusive', async () => {
      const store = await freshStoreOn(d);
      const wide = { from: '2025-02-01T00:00:00+13:00', to: '2025-03-05T00:00:00+13:00' };
      await commit(
        store,
        [
          txRow({ TransactionId: 'before', BookingDateTime: '2025-02-28T23:59:59+13:00' }),
          txRow({ TransactionId: 'at-from', BookingDateTime: RANGE.from }),
          txRow({ TransactionId: 'at-to', BookingDateTime: RANGE.to }),
          txRow({ TransactionId: 'after', BookingDateTime: '2025-03-05T00:00:01+13:00' }),
        ],
        { range: { ...wide, to: '2025-03-06T00:00:00+13:00' } },
      );
      const counts = await commit(store, []);
      expect(counts.removed).toBe(2);
      expect(await visibleIds(store)).toEqual(['after', 'before']);
    });

    it('removes only pending rows the fetch could return under its Credits/Debits filter', async () => {
      const store = await freshStoreOn(d);
      await commit(store, [
        txRow({ TransactionId: 'debit', CreditDebitIndicator: 'Debit' }),
        txRow({ TransactionId: 'credit', CreditDebitIndicator: 'Credit' }),
      ]);
      // A consent holding ReadTransactionsCredits alone sees only credits: the debit is not its to judge.
      const counts = await commit(store, [], { creditDebitFilter: 'Credit' });
      expect(counts.removed).toBe(1);
      expect(await visibleIds(store)).toEqual(['debit']);
    });

    it('never removes booked rows that a later fetch does not return', async () => {
      const store = await freshStoreOn(d);
      await commit(store, [txRow({ Status: 'Booked' })]);
      expect((await commit(store, [])).removed).toBe(0);
      expect(await visibleIds(store)).toEqual(['txn-1']);
    });

    it('keeps a stored pending row that the fetch returned but kept aside as a reject: the bank still holds it (docs/bank-api.md §6.4)', async () => {
      const store = await freshStoreOn(d);
      await commit(store, [txRow()]);
      const reject = (rawPayload: unknown) => ({
        resource: 'transaction',
        bank: BANK,
        consentId: CONSENT,
        accountId: ACCOUNT,
        reason: 'Amount: bad',
        rawPayload,
      });
      // Returned again, but with a field the schema refuses: still returned, not vanished.
      const kept = await commit(store, [], {
        rejects: [reject({ TransactionId: 'txn-1', AccountId: ACCOUNT, Amount: 'x' })],
      });
      expect(kept.removed).toBe(0);
      expect(await visibleIds(store)).toEqual(['txn-1']);
      // A reject without an id, or one of another account, says nothing of this account's row.
      const gone = await commit(store, [], {
        rejects: [reject({ Amount: 'x' }), reject({ TransactionId: 'txn-1', AccountId: 'acc-other' })],
      });
      expect(gone.removed).toBe(1);
      expect(await visibleIds(store)).toEqual([]);
    });

    it('restores a removed row whose id comes back', async () => {
      const store = await freshStoreOn(d);
      await commit(store, [txRow()]);
      await commit(store, []);
      expect(await visibleIds(store)).toEqual([]);
      const counts = await commit(store, [txRow()], { now: '2025-03-07T00:00:00Z' });
      expect(counts).toEqual({ added: 0, updated: 1, removed: 0, unchanged: 0 });
      expect((await storedTx(store, 'txn-1'))!.removed_at).toBeNull();
      expect(await visibleIds(store)).toEqual(['txn-1']);
    });

    it('never blanks detail fields when a consent with Basic permissions fetches the same row', async () => {
      const store = await freshStoreOn(d);
      const detail = txRow({
        Status: 'Booked',
        Balance: {
          Amount: { Amount: '2315.07', Currency: 'NZD' },
          CreditDebitIndicator: 'Credit',
          Type: 'InterimBooked',
        },
        CreditorAccount: { SchemeName: 'BECSElectronicCredit', Identification: '12-3456-0765432-00' },
      });
      await commit(store, [detail]);
      const detailRaw = (await storedTx(store, 'txn-1'))!.raw_json;
      // ReadTransactionsBasic omits TransactionInformation, Balance, MerchantDetails, CreditorAccount (docs/bank-api.md §3).
      const basic = txRow(
        { Status: 'Booked', TransactionInformation: undefined, MerchantDetails: undefined },
        OTHER_CONSENT,
      );
      expect(basic.description).toBeNull();
      const counts = await commit(store, [basic], { consentId: OTHER_CONSENT });
      expect(counts).toEqual({ added: 0, updated: 0, removed: 0, unchanged: 1 });
      expect(await storedTx(store, 'txn-1')).toMatchObject({
        description: 'CORNER CAFE',
        merchant_name: 'CORNER CAFE',
        merchant_category_code: '5814',
        balance_after: '2315.07',
        counterparty_account: '12-3456-0765432-00',
        raw_json: detailRaw,
      });
    });

    it('fills detail fields when a Detail fetch follows a Basic one', async () => {
      const store = await freshStoreOn(d);
      await commit(store, [txRow({ TransactionInformation: undefined, MerchantDetails: undefined })]);
      expect(await commit(store, [txRow()])).toMatchObject({ updated: 1 });
      expect(await storedTx(store, 'txn-1')).toMatchObject({
        description: 'CORNER CAFE',
        merchant_name: 'CORNER CAFE',
      });
    });

    it('counts a key returned twice in one window (shared boundary instant) once', async () => {
      const store = await freshStoreOn(d);
      expect(await commit(store, [txRow(), txRow()])).toEqual({ added: 1, updated: 0, removed: 0, unchanged: 0 });
    });

    it('saves the watermark in the same transaction and never moves it back', async () => {
      const store = await freshStoreOn(d);
      await commit(store, [], { checkpoint: { watermark: '2025-03-05T00:00:00+13:00' } });
      expect(await store.syncState.getWatermark({ bank: BANK, accountId: ACCOUNT, consentId: CONSENT })).toBe(
        '2025-03-04T11:00:00.000Z',
      );
      await commit(store, [], { checkpoint: { watermark: '2025-03-01T00:00:00+13:00' } });
      await commit(store, [], { checkpoint: null });
      expect(await store.syncState.getWatermark({ bank: BANK, accountId: ACCOUNT, consentId: CONSENT })).toBe(
        '2025-03-04T11:00:00.000Z',
      );
    });

    it('loses the whole window and keeps the watermark when the commit fails part-way', async () => {
      const store = await freshStoreOn(d);
      const unregistered = 'e2c0234a-9f5d-4b7a-9c83-4d1b6e3f0a92' as ConsentId;
      const rows = [txRow({ TransactionId: 'ok' }), txRow({ TransactionId: 'bad' }, unregistered)];
      // SQLite says FOREIGN KEY in the message; PostgreSQL's driver error (the cause) says foreign key.
      const error = await commit(store, rows).then(
        () => null,
        (e: unknown) => e as Error & { cause?: unknown },
      );
      expect(`${String(error)} ${String(error?.cause)}`).toMatch(/foreign key/i);
      expect(await queryRow(store, 'SELECT count(*) AS n FROM transactions')).toEqual({ n: 0 });
      expect(await store.syncState.getWatermark({ bank: BANK, accountId: ACCOUNT, consentId: CONSENT })).toBeNull();
    });

    it('stores the window rejects with the run id', async () => {
      const store = await freshStoreOn(d);
      const runId = await store.runs.start();
      await commit(store, [], {
        runId,
        rejects: [
          {
            resource: 'transactions',
            bank: BANK,
            consentId: CONSENT,
            accountId: ACCOUNT,
            reason: 'Amount: bad',
            rawPayload: { Amount: 'x' },
          },
        ],
      });
      expect(await store.rejects.list({ runId })).toMatchObject([
        { reason: 'Amount: bad', rawPayload: '{"Amount":"x"}' },
      ]);
    });

    it('tracks the oldest open pending booking instant of the account', async () => {
      const store = await freshStoreOn(d);
      await commit(store, [
        txRow({ TransactionId: 'p1', BookingDateTime: '2025-03-02T10:00:00+13:00' }),
        txRow({ TransactionId: 'p2', BookingDateTime: '2025-03-03T10:00:00+13:00' }),
        txRow({ TransactionId: 'b0', BookingDateTime: '2025-03-01T10:00:00+13:00', Status: 'Booked' }),
      ]);
      expect(await store.syncState.oldestOpenPending({ bank: BANK, accountId: ACCOUNT })).toBe(
        '2025-03-01T21:00:00.000Z',
      );
      await commit(store, [txRow({ TransactionId: 'p2', BookingDateTime: '2025-03-03T10:00:00+13:00' })]);
      expect(await store.syncState.oldestOpenPending({ bank: BANK, accountId: ACCOUNT })).toBe(
        '2025-03-02T21:00:00.000Z',
      );
    });

    it('gives the oldest open pending a consent can read again: within its bounds, of its indicator', async () => {
      const store = await freshStoreOn(d);
      await commit(store, [
        txRow({ TransactionId: 'd1', BookingDateTime: '2025-03-01T10:00:00+13:00', CreditDebitIndicator: 'Debit' }),
        txRow({ TransactionId: 'c2', BookingDateTime: '2025-03-02T10:00:00+13:00', CreditDebitIndicator: 'Credit' }),
        txRow({ TransactionId: 'd3', BookingDateTime: '2025-03-03T10:00:00+13:00', CreditDebitIndicator: 'Debit' }),
      ]);
      const key = { bank: BANK, accountId: ACCOUNT };
      const at = (iso: string) => new Date(iso);
      expect(await store.syncState.oldestOpenPending(key, {})).toBe('2025-02-28T21:00:00.000Z');
      // From a floor after d1: c2; of Debits only: d3; up to a ceiling before c2: d1 only.
      expect(await store.syncState.oldestOpenPending(key, { from: at('2025-03-01T00:00:00Z') })).toBe(
        '2025-03-01T21:00:00.000Z',
      );
      expect(
        await store.syncState.oldestOpenPending(key, { from: at('2025-03-01T00:00:00Z'), indicator: 'Debit' }),
      ).toBe('2025-03-02T21:00:00.000Z');
      expect(
        await store.syncState.oldestOpenPending(key, { to: at('2025-03-01T12:00:00Z'), indicator: 'Credit' }),
      ).toBe(null);
      expect(await store.syncState.oldestOpenPending(key, { to: at('2025-03-01T21:00:00Z') })).toBe(
        '2025-02-28T21:00:00.000Z',
      );
    });
  });
});
