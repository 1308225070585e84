/**
 * `consents forget` on PostgreSQL beside the writers of the same account (test/store/pg/
 * account-locks.pg.test.ts enumerates those): a worker of the ended consent's successor, which
 * reads the account for the first time, and `categorise`. Forget takes the accounts' write locks
 * before its first write, so the worker's read-then-write lands before or after it, never across
 * it (a row read before forget committed and "updated" after it matched nothing: the row gone and
 * the watermark past it, or the account gone and the next window refused), and the decisions of
 * `categorise` wait instead of deadlocking with forget's deletion of orphaned categories.
 *
 * Lock-step: a third connection holds forget's last write (the consent's registry row) or one
 * category row, and the test waits until the server shows each transaction waiting.
 */
import type pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPool } from '../../../src/store/pg/open';
import { openPgStore, type PgStore } from '../../../src/store/pg/pg-store';
import { toAccountRow } from '../../../src/sync/transform';
import { waitFor } from '../../cli/cli-process';
import { createTestDatabase, describePostgres, lockWaiters } from '../../support/postgres';
import { ACCOUNT, BANK, CONSENT, NOW, OTHER_CONSENT, authorise, txRow } from '../helpers';

const RANGE = { from: '2025-03-01T00:00:00.000Z', to: '2025-03-05T00:00:00.000Z' };
const accountOf = (consentId: typeof CONSENT) =>
  toAccountRow({ AccountId: ACCOUNT, Currency: 'NZD', Nickname: 'Bills' }, { bank: BANK, consentId, fetchedAt: NOW });

const untilWaiting = (observer: pg.PoolClient, n: number) =>
  waitFor(async () => ((await lockWaiters(observer)) >= n ? true : undefined));

describePostgres('consents forget beside the writers of its accounts', () => {
  let store: PgStore;
  let holder: pg.PoolClient;
  let observer: pg.PoolClient;
  // The test's own connections, beside the store's pool (which the operations under test use).
  let side: pg.Pool;
  beforeEach(async () => {
    const url = await createTestDatabase();
    store = await openPgStore(url, { now: () => NOW });
    side = createPool(url);
    for (const id of [CONSENT, OTHER_CONSENT]) {
      await store.consents.add(id);
      await authorise(store, id);
    }
    await store.commitAccounts({ bank: BANK, consentId: CONSENT, rows: [accountOf(CONSENT)], runId: null });
    await store.commitTransactionWindow({
      bank: BANK,
      accountId: ACCOUNT,
      consentId: CONSENT,
      range: RANGE,
      creditDebitFilter: null,
      rows: [txRow({ TransactionId: 't1', Status: 'Booked' }), txRow({ TransactionId: 't2', Status: 'Booked' })],
      checkpoint: null,
      runId: null,
    });
    // CONSENT expired; OTHER_CONSENT, its successor, reads the account for the first time.
    await store.consents.markEnded(CONSENT, 'Expired');
    holder = await side.connect();
    observer = await side.connect();
  });
  afterEach(async () => {
    await holder.query('ROLLBACK').catch(() => undefined);
    holder.release();
    observer.release();
    await side.end();
    await store.close();
  });

  /** Forget, held at its last write until `release`. */
  async function forgetHeld() {
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM consents WHERE consent_id = $1 FOR UPDATE', [CONSENT]);
    const forgetting = store.consents.forget(CONSENT, { dryRun: false });
    expect(await untilWaiting(observer, 1)).toBe(true);
    // In an object: returned bare, the async function would resolve only when forget does.
    return { forgetting };
  }

  it("keeps the row the successor's window fetched while forget ran", async () => {
    await store.commitAccounts({ bank: BANK, consentId: OTHER_CONSENT, rows: [accountOf(OTHER_CONSENT)], runId: null });
    const { forgetting } = await forgetHeld();
    let settled = false;
    const windowing = store
      .commitTransactionWindow({
        bank: BANK,
        accountId: ACCOUNT,
        consentId: OTHER_CONSENT,
        range: RANGE,
        creditDebitFilter: null,
        rows: [txRow({ TransactionId: 't1', Status: 'Booked' }, OTHER_CONSENT)],
        checkpoint: { watermark: RANGE.to },
        runId: null,
      })
      .finally(() => {
        settled = true;
      });
    expect(await waitFor(async () => ((await lockWaiters(observer)) >= 2 || settled ? true : undefined))).toBe(true);
    await holder.query('COMMIT');
    await forgetting;
    await windowing;
    const { rows } = await store.pool.query(
      `SELECT transaction_id, consent_id FROM transactions WHERE bank = $1 AND account_id = $2`,
      [BANK, ACCOUNT],
    );
    expect(rows).toEqual([{ transaction_id: 't1', consent_id: OTHER_CONSENT }]);
  });

  it('keeps the account the successor listed while forget ran: its next window is stored', async () => {
    const { forgetting } = await forgetHeld();
    const listing = store.commitAccounts({
      bank: BANK,
      consentId: OTHER_CONSENT,
      rows: [accountOf(OTHER_CONSENT)],
      runId: null,
    });
    expect(await untilWaiting(observer, 2)).toBe(true);
    await holder.query('COMMIT');
    await forgetting;
    await listing;
    const accounts = await store.pool.query(`SELECT account_id, consent_id FROM accounts`);
    expect(accounts.rows).toEqual([{ account_id: ACCOUNT, consent_id: OTHER_CONSENT }]);
    await expect(
      store.commitTransactionWindow({
        bank: BANK,
        accountId: ACCOUNT,
        consentId: OTHER_CONSENT,
        range: RANGE,
        creditDebitFilter: null,
        rows: [txRow({ TransactionId: 't3', Status: 'Booked' }, OTHER_CONSENT)],
        checkpoint: { watermark: RANGE.to },
        runId: null,
      }),
    ).resolves.toMatchObject({ added: 1 });
  });

  describe('categorise', () => {
    const decision = (transactionId: string, category: string) => ({
      bank: BANK,
      accountId: ACCOUNT,
      transactionId,
      category,
      payee: null,
      source: 'rule' as const,
      rule: 'r1',
      rowUpdatedAt: NOW.toISOString(),
    });

    it("and forget's deletion of the orphaned categories both finish (no deadlock)", async () => {
      // Stored t2 first: the table's order differs from the decisions' key order.
      await store.categories.save([decision('t2', 'food')]);
      await store.categories.save([decision('t1', 'food')]);
      await holder.query('BEGIN');
      await holder.query(`SELECT 1 FROM transaction_categories WHERE transaction_id = 't1' FOR UPDATE`);
      const categorising = store.categories.save([decision('t1', 'cafe'), decision('t2', 'cafe')]);
      expect(await untilWaiting(observer, 1)).toBe(true);
      const forgetting = store.consents.forget(CONSENT, { dryRun: false });
      expect(await untilWaiting(observer, 2)).toBe(true);
      await holder.query('COMMIT');
      const settled = await Promise.allSettled([categorising, forgetting]);
      expect(settled.map((s) => (s.status === 'rejected' ? String(s.reason) : 'ok'))).toEqual(['ok', 'ok']);
      const { rows } = await store.pool.query(`SELECT count(*)::int AS n FROM transaction_categories`);
      expect(rows[0].n).toBe(0);
    });
  });
});
