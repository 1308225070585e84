/**
 * A prune that commits while a consumer's page is read (src/store/changes.ts `readChanges`): the
 * page's read sees the log after the prune, so a cursor that was checked against the horizon
 * before it could be served entries past the deleted ones, and its next cursor pass the horizon:
 * the deleted changes were lost to that consumer for good. The page is refused instead. Run by
 * change-prune-race.test.ts (SQLite) and change-prune-race.pg.test.ts (PostgreSQL).
 */
import { expect, it } from 'vitest';
import type { SqliteStore, Store } from '../../src/store';
import { pruneChanges, readChanges } from '../../src/store/changes';
import { postgresRunner } from '../../src/store/pg/pg-runner';
import type { PgStore } from '../../src/store/pg/pg-store';
import { sqliteRunner, type SqlRunner } from '../../src/store/sql-runner';
import { feedSettled } from '../sync/change-feed.cases';
import { storeSuite } from '../support/dialects';
import { ACCOUNT, BANK, CONSENT, freshStoreOn, txRow } from './helpers';

const runnerOf = (store: Store): SqlRunner =>
  store.dialect === 'sqlite' ? sqliteRunner((store as SqliteStore).sqlite) : postgresRunner((store as PgStore).pool);

async function commit(store: Store, ids: string[]): Promise<void> {
  await store.commitTransactionWindow({
    bank: BANK,
    accountId: ACCOUNT,
    consentId: CONSENT,
    range: { from: '2025-03-01T00:00:00+13:00', to: '2025-03-10T00:00:00+13:00' },
    creditDebitFilter: null,
    rows: ids.map((id) => txRow({ TransactionId: id, Status: 'Booked' })),
    checkpoint: null,
    runId: null,
    now: '2025-03-05T01:00:00Z',
  });
}

export const changePruneRaceSuite = storeSuite('the change feed and a prune at once', (d) => {
  it('refuses a page whose entries after the cursor a prune took while it was read', async () => {
    const store = await freshStoreOn(d);
    await commit(store, ['t-1']);
    let cursor: string | undefined;
    for (;;) {
      const page = await store.changes.read({ ...(cursor ? { since: cursor } : {}), limit: 100 });
      cursor = page.cursor;
      if (!page.hasMore) break;
    }
    await commit(store, ['t-2']);
    await commit(store, ['t-3']);
    await feedSettled(store);
    const base = runnerOf(store);
    let pruned = -1;
    // The first read after the cursor's check is the horizon's: then cron's prune commits, and a sync.
    const racing: SqlRunner = {
      ...base,
      get: async (query) => {
        const row = await base.get(query);
        if (pruned < 0) {
          pruned = (await pruneChanges(base, { keepDays: 0, now: new Date(Date.now() + 60_000) })).pruned;
          await commit(store, ['t-4']);
          await feedSettled(store);
        }
        return row;
      },
    };
    await expect(readChanges(racing, { since: cursor, limit: 100 })).rejects.toThrow(
      'the --since cursor is older than the change log keeps',
    );
    expect(pruned).toBeGreaterThan(0);
  });
});
