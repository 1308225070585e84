/**
 * change-prune-race.cases.ts on PostgreSQL, and two prunes at once (PostgreSQL only: SQLite's
 * write transactions run one at a time): the second must not move the horizon back over what the
 * first deleted, or a consumer's cursor before those entries would be served an empty page and
 * lose them for good.
 */
import { expect, it } from 'vitest';
import type { PgStore } from '../../src/store/pg/pg-store';
import { feedSettled } from '../sync/change-feed.cases';
import { waitFor } from '../cli/cli-process';
import { openDatabaseStore } from '../../src/store';
import { createTestDatabase, describePostgres, lockWaiters, postgresDialect } from '../support/postgres';
import { changePruneRaceSuite } from './change-prune-race.cases';
import { ACCOUNT, BANK, CONSENT, freshStoreOn, txRow } from './helpers';

changePruneRaceSuite(postgresDialect);

describePostgres('two prunes of the change log at once', () => {
  it('never move the horizon back: a cursor before the entries the first deleted is refused', async () => {
    const store = (await freshStoreOn({
      dialect: 'postgres',
      open: async (options) => openDatabaseStore(await createTestDatabase(), options),
    })) as PgStore;
    try {
      const commit = async (id: string, loggedAt: string) => {
        await store.commitTransactionWindow({
          bank: BANK,
          accountId: ACCOUNT,
          consentId: CONSENT,
          range: { from: '2025-03-01T00:00:00.000Z', to: '2025-03-05T00:00:00.000Z' },
          creditDebitFilter: null,
          rows: [txRow({ TransactionId: id, Status: 'Booked' })],
          checkpoint: null,
          runId: null,
        });
        await store.pool.query(`UPDATE change_log SET logged_at = $2 WHERE transaction_id = $1`, [id, loggedAt]);
      };
      await commit('t0', '2024-12-01T00:00:00.000Z');
      await commit('t1', '2025-01-01T00:00:00.000Z');
      await commit('t2', '2025-02-01T00:00:00.000Z');
      await feedSettled(store);
      expect((await store.changes.prune({ keepDays: 0, now: '2024-12-15T00:00:00.000Z' })).pruned).toBe(1);
      let cursor: string | undefined;
      for (;;) {
        const page = await store.changes.read({ ...(cursor ? { since: cursor } : {}), limit: 100 });
        cursor = page.cursor;
        if (!page.hasMore) break;
      }
      await commit('t3', '2025-03-01T00:00:00.000Z');
      await feedSettled(store);

      const holder = await store.pool.connect();
      const observer = await store.pool.connect();
      try {
        // Lock-step: the horizon's row held, so the first prune stops at its write, having deleted.
        await holder.query('BEGIN');
        await holder.query('SELECT 1 FROM change_log_horizon WHERE id = 1 FOR UPDATE');
        const first = store.changes.prune({ keepDays: 0, now: '2025-03-10T00:00:00.000Z' });
        expect(await waitFor(async () => ((await lockWaiters(observer)) >= 1 ? true : undefined))).toBe(true);
        // Keeping 20 days: by itself it would delete up to t2 and set the horizon there.
        const second = store.changes.prune({ keepDays: 20, now: '2025-03-10T00:00:00.000Z' });
        expect(await waitFor(async () => ((await lockWaiters(observer)) >= 2 ? true : undefined))).toBe(true);
        await holder.query('COMMIT');
        await Promise.all([first, second]);
      } finally {
        holder.release();
        observer.release();
      }
      // The first prune deleted t3's entry, which the cursor had not read: refused, never an empty page.
      await expect(store.changes.read({ since: cursor, limit: 100 })).rejects.toThrow(
        'the --since cursor is older than the change log keeps',
      );
    } finally {
      await store.close();
    }
  });
});
