/**
 * `db copy` from SQLite into PostgreSQL goes into an empty database only (docs/postgres.md): a
 * target holding any row of bankdata's tables is refused (exit 2) inside the copy's transaction,
 * and one holding another application's tables is refused before anything is created in it. It
 * merged into a target that held a payment but no consent, failed as an internal error (exit 70)
 * on one where `bankdata meta` had run, and created its tables beside another application's. A
 * target an older bankdata made and that holds data is refused before it is migrated: it was
 * migrated first and refused after, and the older version's workers then refused it (found by
 * review).
 */
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Payment } from '@bankdata/core/payment-schemas';
import { openDatabaseStore } from '../../src/store';
import { readJournal } from '../../src/store/migration-versions';
import { PG_MIGRATIONS_DIR } from '../../src/store/pg/open';
import { createFixtureStore, type FixtureStore } from '../export/fixture-store';
import { createOlderTestDatabase, createTestDatabase, describePostgres } from '../support/postgres';
import { runCliInProcess } from './cli-process';

describePostgres('db copy into a PostgreSQL database that already holds data', () => {
  let fixture: FixtureStore;
  beforeAll(async () => {
    fixture = await createFixtureStore();
  });
  afterAll(async () => {
    await fixture?.cleanup();
  });

  const copyInto = (url: string) =>
    runCliInProcess(['db', 'copy', '--from', fixture.path, '--to', url, '--data-dir', fixture.dir]);
  const rowsOf = async (url: string, query: string) => {
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    try {
      return (await pool.query(query)).rows;
    } finally {
      await pool.end();
    }
  };

  it('refuses a target holding a payment and no consent; the target keeps only its own', async () => {
    const url = await createTestDatabase();
    const target = await openDatabaseStore(url);
    await target.payments.record(
      Payment.parse({
        payment_id: '11111111-2222-4333-8444-555555555555',
        consent_id: 'a1b2c3d4-e5f6-4789-8abc-def012345678',
        status: 'AcceptedSettlementCompleted',
        creation_timestamp: '2025-03-01T10:00:00+13:00',
        status_updated_timestamp: '2025-03-01T10:01:00+13:00',
        amount: { total: '10.00', currency: 'NZD' },
        pcr: { particulars: 'TOPUP', reference: 'R1' },
      }),
      new Date('2025-03-01T00:00:00Z'),
    );
    await target.close();
    const copy = await copyInto(url);
    expect(copy.code, copy.stderr).toBe(2);
    expect(copy.stderr).toContain('already holds data (table payment_status_history)');
    expect(await rowsOf(url, 'SELECT payment_id FROM payments')).toEqual([
      { payment_id: '11111111-2222-4333-8444-555555555555' },
    ]);
    expect(await rowsOf(url, 'SELECT count(*)::int AS n FROM transactions')).toEqual([{ n: 0 }]);
  });

  it('refuses a target where `bankdata meta` already ran (exit 2, not an internal error)', async () => {
    const url = await createTestDatabase();
    await rowsOf(
      url,
      `INSERT INTO bank_meta (bank, max_history_days, raw_json, fetched_at) VALUES ('PNZ', 365, '{}', '2025-03-02T00:00:00.000Z')`,
    );
    const copy = await copyInto(url);
    expect(copy.code, copy.stderr).toBe(2);
    expect(copy.stderr).toContain('already holds data (table bank_meta)');
  });

  it('refuses an older bankdata database that holds a consent before migrating it: its migrations and columns as they were', async () => {
    const url = await createOlderTestDatabase(readJournal(PG_MIGRATIONS_DIR).length - 1);
    await rowsOf(
      url,
      `INSERT INTO consents (consent_id, registered_at) VALUES ('11111111-1111-4111-8111-111111111111', '2026-03-01T00:00:00.000Z')`,
    );
    const schema = () =>
      rowsOf(
        url,
        `SELECT table_name, column_name FROM information_schema.columns
         WHERE table_schema = current_schema() ORDER BY table_name, column_name`,
      );
    const migrations = () => rowsOf(url, 'SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations');
    const [columnsBefore, migrationsBefore] = [await schema(), await migrations()];

    const copy = await copyInto(url);
    expect(copy.code, copy.stderr).toBe(2);
    expect(copy.stderr).toContain('already holds data (table consents)');
    // Not migrated: an older bankdata's workers still use it.
    expect(await migrations()).toEqual(migrationsBefore);
    expect(await schema()).toEqual(columnsBefore);
    expect(await rowsOf(url, 'SELECT consent_id FROM consents')).toEqual([
      { consent_id: '11111111-1111-4111-8111-111111111111' },
    ]);
  });

  it("refuses another application's database before creating anything in it", async () => {
    const url = await createTestDatabase({ migrated: false });
    await rowsOf(url, 'CREATE TABLE ledger_entries (id int PRIMARY KEY, memo text)');
    await rowsOf(url, "INSERT INTO ledger_entries VALUES (1, 'the accounting tool''s own row')");
    const copy = await copyInto(url);
    expect(copy.code, copy.stderr).toBe(2);
    expect(copy.stderr).toContain('holds tables bankdata did not make (ledger_entries)');
    expect(
      await rowsOf(url, "SELECT tablename FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')"),
    ).toEqual([{ tablename: 'ledger_entries' }]);
  });
});
