/**
 * A PostgreSQL database restored from a dump on another server (docs/changes.md "Cursors"): two
 * servers set up alike give their first database the same oid, so the log's name alone does not
 * tell the restored database from the one dumped. A consumer's cursor of an entry logged after the
 * dump names an entry the restored log does not hold (its own entries take new transaction ids):
 * refused, not served the restored log's changes after a position that is not its own.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import type { ConsentId } from '@bankdata/core/schemas';
import { openDatabaseStore } from '../../../src/store';
import type { PgStore } from '../../../src/store/pg/pg-store';
import { Consumer, cursorBody, expectRefused } from '../../sync/change-feed.cases';
import { describePostgres } from '../../support/postgres';
import {
  findPostgresBin,
  freshDatabase,
  startPostgresServer,
  type PostgresServer,
} from '../../support/postgres-server';
import { tempDir } from '../helpers';

const T = '2026-03-10T00:00:00.000Z';
const CONSENT = '11111111-1111-4111-8111-111111111111' as ConsentId;

const insert = (store: PgStore, id: string) =>
  store.pool.query(
    `INSERT INTO transactions (bank, account_id, transaction_id, consent_id, status, booking_date_time, booking_date,
       amount, currency, credit_debit_indicator, raw_json, first_seen_at, last_seen_at, updated_at)
     VALUES ('PNZ', 'acc-1', $1, $2, 'Booked', $3, '2026-03-10', '-1.00', 'NZD', 'Debit', '{}', $3, $3, $3)`,
    [id, CONSENT, T],
  );
const oidOf = async (store: PgStore) =>
  (
    await store.pool.query<{ oid: string }>(
      'SELECT oid::text AS oid FROM pg_database WHERE datname = current_database()',
    )
  ).rows[0]!.oid;

describePostgres('a change log restored from a dump on another server', () => {
  const servers: PostgresServer[] = [];
  const stores: PgStore[] = [];
  afterAll(async () => {
    for (const store of stores) await store.close();
    for (const server of servers) await server.stop();
  });

  it("refuses a consumer's cursor of an entry logged after the dump; serves one of before it", async () => {
    const bin = findPostgresBin()!;
    const dir = tempDir();
    servers.push(await startPostgresServer(), await startPostgresServer());
    const [first, second] = servers as [PostgresServer, PostgresServer];
    const source = await freshDatabase(first.adminUrl, 'bankdata');
    const dumped = (await openDatabaseStore(source)) as PgStore;
    stores.push(dumped);
    await dumped.consents.add(CONSENT);
    await dumped.pool.query(
      `INSERT INTO accounts (bank, account_id, consent_id, currency, raw_json, first_seen_at, last_seen_at, updated_at)
       VALUES ('PNZ', 'acc-1', $1, 'NZD', '{}', $2, $2, $2)`,
      [CONSENT, T],
    );
    const consumer = new Consumer(100);
    await consumer.poll(dumped);
    await insert(dumped, 't-1');
    await consumer.poll(dumped);
    const atDump = consumer.cursor!;
    const dump = join(dir, 'bankdata.dump');
    const dumping = spawnSync(join(bin, 'pg_dump'), ['-Fc', '-f', dump, '-d', source], { encoding: 'utf8' });
    expect(dumping.status, dumping.stderr).toBe(0);
    await insert(dumped, 't-2');
    await consumer.poll(dumped);
    const later = consumer.cursor!;

    // An empty database of the same name on the other server, made as the first one was.
    const target = new URL(second.adminUrl);
    target.pathname = '/bankdata';
    const making = spawnSync(join(bin, 'psql'), ['-d', second.adminUrl, '-c', 'CREATE DATABASE bankdata'], {
      encoding: 'utf8',
    });
    expect(making.status, making.stderr).toBe(0);
    const restoring = spawnSync(join(bin, 'pg_restore'), ['--no-owner', '-d', target.toString(), dump], {
      encoding: 'utf8',
    });
    expect(restoring.status, restoring.stderr).toBe(0);
    const restored = (await openDatabaseStore(target.toString())) as PgStore;
    stores.push(restored);
    // The case the log's name cannot tell: the same oid, and the restored log's next transaction
    // ids already past the cursor's (so it is not ahead either).
    expect(await oidOf(restored)).toBe(await oidOf(dumped));
    await insert(restored, 't-3');
    const xmax = await restored.pool.query<{ x: string }>('SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS x');
    expect(Number(xmax.rows[0]!.x)).toBeGreaterThan(Number(cursorBody(later).x));

    await expectRefused(restored.changes.read({ since: later, limit: 100 }), /another database's change log/);
    // The dump holds what the consumer had at its cursor: from there the restored log is served.
    const page = await restored.changes.read({ since: atDump, limit: 100 });
    expect(page.changes.map((c) => `${c.change} ${c.key.transaction_id}`)).toEqual(['added t-3']);
  }, 180_000);
});
