/**
 * The change feed on PostgreSQL: the shared cases (change-feed.cases.ts), and PostgreSQL's own:
 * two transactions that commit out of order (the lower xid last) are both served, never skipped,
 * and a consumer polling while `bankdata sync --workers 2` runs equals v_transactions at the end.
 */
import { join } from 'node:path';
import { mkdirSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ConsentId } from '@bankdata/core/schemas';
import { startEmulator, type StartedEmulator } from '@bankdata/emulator';
import { openDatabaseStore } from '../../src/store';
import type { PgStore } from '../../src/store/pg/pg-store';
import { spawnCli } from '../cli/cli-process';
import { emulatorEnv } from '../fixtures/cli-env';
import { tempDir } from '../store/helpers';
import { createTestDatabase, describePostgres, postgresDialect } from '../support/postgres';
import { changeFeedCrashSuite, changeFeedSuite, Consumer, expectEqualToView, feedSettled } from './change-feed.cases';

changeFeedSuite(postgresDialect);
changeFeedCrashSuite(postgresDialect);

const T = '2026-03-10T00:00:00.000Z';

describePostgres('the change feed on PostgreSQL: transactions that commit out of order', () => {
  let store: PgStore;
  beforeAll(async () => {
    store = (await openDatabaseStore(await createTestDatabase())) as PgStore;
    await store.consents.add('11111111-1111-4111-8111-111111111111' as ConsentId);
    await store.pool.query(
      `INSERT INTO accounts (bank, account_id, consent_id, currency, raw_json, first_seen_at, last_seen_at, updated_at)
       VALUES ('PNZ', 'acc-1', '11111111-1111-4111-8111-111111111111', 'NZD', '{}', $1, $1, $1)`,
      [T],
    );
  });
  afterAll(async () => {
    await store?.close();
  });

  const insert = (client: { query: PgStore['pool']['query'] }, id: string) =>
    client.query(
      `INSERT INTO transactions (bank, account_id, transaction_id, consent_id, status, booking_date_time, booking_date,
         amount, currency, credit_debit_indicator, raw_json, first_seen_at, last_seen_at, updated_at)
       VALUES ('PNZ', 'acc-1', $1, '11111111-1111-4111-8111-111111111111', 'Booked', $2, '2026-03-10', '-1.00', 'NZD',
         'Debit', '{}', $2, $2, $2)`,
      [id, T],
    );

  it('the lower transaction commits after the higher one was committed and polled: both are served, in order', async () => {
    const consumer = new Consumer(10);
    await consumer.poll(store); // an empty table: the cursor is at the log's start
    const first = await store.pool.connect();
    const second = await store.pool.connect();
    try {
      // `first` takes its transaction id (and its log entry's sequence value) before `second`.
      await first.query('BEGIN');
      await insert(first, 'tx-early');
      await second.query('BEGIN');
      await insert(second, 'tx-late');
      await second.query('COMMIT');
      // `second` committed; `first` (lower xid, lower sequence value) is still running: a sequence
      // cursor would serve tx-late and move past tx-early for good. The feed serves nothing yet.
      await consumer.poll(store);
      expect([...consumer.rows.keys()]).toEqual([]);
      const held = consumer.cursor;
      await first.query('COMMIT');
      await feedSettled(store);
      await consumer.poll(store);
      expect([...consumer.rows.values()].map((r) => r.transaction_id).sort()).toEqual(['tx-early', 'tx-late']);
      expect(consumer.cursor).not.toBe(held);
      await expectEqualToView(consumer, store);
    } finally {
      first.release();
      second.release();
    }
  });

  it('a transaction that began first but wrote last: served after the one that committed first', async () => {
    const consumer = new Consumer(10);
    await consumer.poll(store); // the two rows of the case before, as the snapshot
    const base = consumer.seen.added;
    const first = await store.pool.connect();
    const second = await store.pool.connect();
    try {
      await first.query('BEGIN');
      await first.query('SELECT pg_current_xact_id()'); // its xid now: lower than second's
      await second.query('BEGIN');
      await insert(second, 'tx-b'); // lower sequence value, higher xid
      await insert(first, 'tx-a'); // higher sequence value, lower xid
      await second.query('COMMIT');
      await consumer.poll(store);
      expect(consumer.seen.added).toBe(base);
      await first.query('COMMIT');
      await feedSettled(store);
      await consumer.poll(store);
      expect(consumer.seen.added).toBe(base + 2);
      await expectEqualToView(consumer, store);
    } finally {
      first.release();
      second.release();
    }
  });
});

describePostgres('the change feed while `bankdata sync --workers 2` runs', () => {
  let emu: StartedEmulator;
  const dir = tempDir();
  beforeAll(async () => {
    emu = await startEmulator({
      seed: 5,
      environment: 'production',
      customersPerBank: 1,
      historyDays: 60,
      latencyMs: 5,
    });
  }, 120_000);
  afterAll(async () => {
    await emu?.close();
  });

  it('a consumer polling during the run of two cooperating workers equals v_transactions after it', async () => {
    const url = await createTestDatabase();
    const cwd = join(dir, 'workers');
    mkdirSync(join(cwd, 'config'), { recursive: true });
    writeFileSync(join(cwd, 'config', 'local.json'), JSON.stringify({ sync: { concurrency: 2 } }));
    const env = { ...emulatorEnv(emu, join(cwd, 'data')), BANKDATA_DB: url };
    const store = await openDatabaseStore(url);
    try {
      const ids = emu.world.seededConsents
        .filter((c) => ['PNZ', 'ANZ', 'ASB'].includes(c.bank))
        .map((c) => c.consent_id);
      for (const id of ids) await store.consents.add(id as ConsentId);
      const consumer = new Consumer(71);
      const run = spawnCli(['sync', '--workers', '2', '--json'], { env, cwd });
      let polls = 0;
      let exited = false;
      void run.exited.then(() => (exited = true));
      while (!exited) {
        await consumer.poll(store);
        polls += 1;
        await new Promise((r) => setTimeout(r, 25));
      }
      expect([0, 1], run.stderr()).toContain(await run.exited);
      expect(polls).toBeGreaterThan(1);
      await feedSettled(store);
      await consumer.poll(store);
      expect(consumer.seen.added).toBeGreaterThan(100);
      await expectEqualToView(consumer, store);
    } finally {
      await store.close();
    }
  }, 240_000);
});
