/**
 * `db copy` from SQLite to PostgreSQL reads one snapshot of the source (src/store/pg/copy-tables.ts
 * `copySqliteToPostgres`): a sync window that commits while the copy runs (its rows and its
 * watermark, one transaction) is in the copy whole or not at all. Read table by table, the copy
 * took the watermark without the row, and the next sync started past a row it never fetched.
 */
import Database from 'better-sqlite3';
import type pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { copySqliteToPostgres } from '../../../src/store/pg/copy-tables';
import { createPool } from '../../../src/store/pg/open';
import { createFixtureStore, EVERYDAY, PNZ_CONSENT, txn, type FixtureStore } from '../../export/fixture-store';
import { createTestDatabase, describePostgres } from '../../support/postgres';

describePostgres('db copy from SQLite to PostgreSQL reads one snapshot of the source', () => {
  let fixture: FixtureStore;
  beforeAll(async () => {
    fixture = await createFixtureStore();
  });
  afterAll(async () => {
    await fixture?.cleanup();
  });

  it('a sync window committed while the copy runs: in the copy with its watermark, or neither', async () => {
    const source = new Database(fixture.path, { readonly: true });
    const pool = createPool(await createTestDatabase());
    const connect = pool.connect.bind(pool) as (...a: unknown[]) => Promise<pg.PoolClient>;
    let committed = false;
    // The copy's connection: when it starts writing statements (transactions are copied before,
    // sync_state after), a sync commits a new row and moves its watermark past it.
    (pool as { connect: unknown }).connect = async (...a: unknown[]) => {
      if (a.length > 0) return connect(...a);
      const client = await connect();
      const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
      (client as { query: unknown }).query = async (...args: unknown[]) => {
        if (!committed && typeof args[0] === 'string' && args[0].startsWith('INSERT INTO "statements"')) {
          committed = true;
          await fixture.store.commitTransactionWindow({
            bank: 'PNZ',
            accountId: EVERYDAY,
            consentId: PNZ_CONSENT,
            range: { from: '2025-03-05T00:00:00+13:00', to: '2025-03-05T13:00:00+13:00' },
            creditDebitFilter: null,
            rows: [
              txn('PNZ', EVERYDAY, PNZ_CONSENT, { id: 'txn-new-1', at: '2025-03-05T10:00:00+13:00', amount: '-7.00' }),
            ],
            checkpoint: { watermark: '2025-03-05T13:00:00+13:00' },
            runId: null,
          });
        }
        return query(...args);
      };
      return client;
    };
    try {
      await copySqliteToPostgres(source, pool, { dataDir: fixture.dir, onRefused: () => undefined });
      expect(committed).toBe(true);
      const watermark = (
        await pool.query<{ watermark: string }>(
          `SELECT watermark FROM sync_state WHERE bank = 'PNZ' AND account_id = $1 AND consent_id = $2 AND resource = 'transactions'`,
          [EVERYDAY, PNZ_CONSENT],
        )
      ).rows[0]?.watermark;
      const copied = (await pool.query(`SELECT 1 FROM transactions WHERE transaction_id = 'txn-new-1'`)).rowCount;
      // The snapshot was taken before the sync committed: neither the row nor its watermark.
      expect({ watermarkMoved: watermark === '2025-03-05T00:00:00.000Z', rowCopied: copied === 1 }).toEqual({
        watermarkMoved: false,
        rowCopied: false,
      });
    } finally {
      source.close();
      await pool.end();
    }
  });
});
