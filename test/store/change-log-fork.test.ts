/**
 * A SQLite database's change log and its copies (docs/changes.md "Cursors"): a backup file
 * (`bankdata db backup`, and the copy a migration takes first) is a log of its own that remembers
 * where it forked, so a consumer's cursor from the database is served by the backup put back in
 * its place only when it is at or before what the backup holds; a file copied by hand and put back
 * is caught by a cursor ahead of its log. The cases every dialect shares (another database, a
 * cursor of before logs had an id): test/sync/change-feed.cases.ts.
 */
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsentId } from '@bankdata/core/schemas';
import { openDatabaseStore, type SqliteStore } from '../../src/store';
import { backupDatabase } from '../../src/store/sqlite/backup';
import { Consumer, cursorBody, expectEqualToView, expectRefused } from '../sync/change-feed.cases';
import { tempDir } from './helpers';

const T = '2026-03-10T00:00:00.000Z';
const CONSENT = '11111111-1111-4111-8111-111111111111' as ConsentId;

function insert(store: SqliteStore, id: string, accountId = 'acc-1'): void {
  store.sqlite
    .prepare(
      `INSERT INTO transactions (bank, account_id, transaction_id, consent_id, status, booking_date_time, booking_date,
         amount, currency, credit_debit_indicator, raw_json, first_seen_at, last_seen_at, updated_at)
       VALUES ('PNZ', ?, ?, ?, 'Booked', ?, '2026-03-10', '-1.00', 'NZD', 'Debit', '{}', ?, ?, ?)`,
    )
    .run(accountId, id, CONSENT, T, T, T, T);
}

function account(store: SqliteStore, accountId: string): void {
  store.sqlite
    .prepare(
      `INSERT INTO accounts (bank, account_id, consent_id, currency, raw_json, first_seen_at, last_seen_at, updated_at)
       VALUES ('PNZ', ?, ?, 'NZD', '{}', ?, ?, ?)`,
    )
    .run(accountId, CONSENT, T, T, T);
}

describe('a SQLite change log and its copies', () => {
  const dir = tempDir();
  const path = join(dir, 'bankdata.sqlite');
  let live: SqliteStore;
  const opened: SqliteStore[] = [];
  const open = async (file: string) => {
    const store = (await openDatabaseStore(file)) as SqliteStore;
    opened.push(store);
    return store;
  };
  beforeAll(async () => {
    live = await open(path);
    await live.consents.add(CONSENT);
    account(live, 'acc-1');
  });
  afterAll(async () => {
    for (const store of opened) await store.close();
  });

  it("a backup serves the database's cursors up to what it holds, refuses a later one, and its own are not the database's", async () => {
    const consumer = new Consumer(10);
    await consumer.poll(live); // the log's start (an empty table)
    insert(live, 't-1');
    insert(live, 't-2');
    await consumer.poll(live);
    expect(consumer.rows.size).toBe(2);
    const atBackup = consumer.cursor!;

    const backupPath = join(dir, 'backup.sqlite');
    await backupDatabase(path, backupPath);
    // A copy by hand of the same moment (the WAL written into the file first).
    live.sqlite.pragma('wal_checkpoint(TRUNCATE)');
    const handPath = join(dir, 'by-hand.sqlite');
    copyFileSync(path, handPath);

    insert(live, 't-3');
    await consumer.poll(live);
    expect(consumer.rows.size).toBe(3);
    const afterBackup = consumer.cursor!;

    // The backup put back in the database's place.
    const backup = await open(backupPath);
    expect(cursorBody((await backup.changes.read({ limit: 10 })).cursor).i).not.toBe(cursorBody(atBackup).i);
    await expectRefused(backup.changes.read({ since: afterBackup, limit: 10 }), /another database's change log/);
    const resumed = await backup.changes.read({ since: atBackup, limit: 10 });
    expect(resumed.changes).toEqual([]);
    // The consumer at the backup's last position follows the backup from there on.
    const follower = new Consumer(10);
    follower.apply((await live.changes.read({ limit: 10 })).changes.filter((c) => c.key.transaction_id !== 't-3'));
    follower.cursor = resumed.cursor;
    insert(backup, 't-4');
    await follower.poll(backup);
    await expectEqualToView(follower, backup);
    // The backup's cursors are not the database's.
    await expectRefused(live.changes.read({ since: follower.cursor, limit: 10 }), /another database's change log/);

    // The copy by hand names the same log, but the later cursor is after anything it gave.
    const byHand = await open(handPath);
    await expectRefused(byHand.changes.read({ since: afterBackup, limit: 10 }), /ahead of this database's change log/);
    expect((await byHand.changes.read({ since: atBackup, limit: 10 })).changes).toEqual([]);
  });
  it("a copy by hand put back, then written past the consumer's cursor (the nightly sync) before it polls: refused", async () => {
    const file = join(dir, 'second.sqlite');
    const db = await open(file);
    await db.consents.add(CONSENT);
    account(db, 'acc-1');
    const consumer = new Consumer(100);
    await consumer.poll(db);
    insert(db, 's-1');
    await consumer.poll(db);
    db.sqlite.pragma('wal_checkpoint(TRUNCATE)');
    const handPath = join(dir, 'second-by-hand.sqlite');
    copyFileSync(file, handPath);
    insert(db, 's-2');
    insert(db, 's-3');
    await consumer.poll(db);
    const later = consumer.cursor!;
    // Put back, and the nightly sync logs past the consumer's position before it polls: the
    // positions it had are other entries now.
    const restored = await open(handPath);
    insert(restored, 's-4');
    insert(restored, 's-5');
    insert(restored, 's-6');
    await expectRefused(restored.changes.read({ since: later, limit: 100 }), /another database's change log/);
  });

  it('the feed serves its own snapshot cursor holding the longest keys (three ids of 40 characters of 3 UTF-8 bytes)', async () => {
    const db = await open(join(dir, 'long-keys.sqlite'));
    await db.consents.add(CONSENT);
    const accountId = '口'.repeat(40);
    account(db, accountId);
    insert(db, '字'.repeat(40), accountId);
    insert(db, '字'.repeat(39) + '子', accountId);
    const first = await db.changes.read({ limit: 1 });
    expect(first.hasMore).toBe(true);
    expect(first.cursor.length).toBeGreaterThan(400);
    const second = await db.changes.read({ since: first.cursor, limit: 1 });
    expect([...first.changes, ...second.changes].map((c) => c.key.transaction_id).sort()).toEqual(
      ['字'.repeat(40), '字'.repeat(39) + '子'].sort(),
    );
  });
});

describe('a SQLite change log emptied by a prune, and a copy by hand put back', () => {
  const opened: SqliteStore[] = [];
  const open = async (file: string) => {
    const store = (await openDatabaseStore(file)) as SqliteStore;
    opened.push(store);
    return store;
  };
  afterAll(async () => {
    for (const store of opened) await store.close();
  });
  /** A database whose log held s-1 when copied by hand, then s-2 and s-3, all pruned (keep 0 days). */
  const prunedWithCopy = async () => {
    const dir = tempDir();
    const file = join(dir, 'bankdata.sqlite');
    const db = await open(file);
    await db.consents.add(CONSENT);
    account(db, 'acc-1');
    insert(db, 's-1');
    db.sqlite.pragma('wal_checkpoint(TRUNCATE)');
    const copy = join(dir, 'by-hand.sqlite');
    copyFileSync(file, copy);
    insert(db, 's-2');
    insert(db, 's-3');
    const pruned = await db.changes.prune({ keepDays: 0, now: new Date(Date.now() + 60_000) });
    expect(pruned.pruned).toBe(3);
    return { db, copy, horizon: pruned.horizon! };
  };

  it("a consumer starting on the empty log gets the last pruned entry's fingerprint; the copy put back, written past it, refuses it", async () => {
    const { db, copy, horizon } = await prunedWithCopy();
    const consumer = new Consumer(100);
    await consumer.poll(db);
    expect(consumer.rows.size).toBe(3);
    // The horizon's own cursor and the consumer's: the position of s-3's entry, with its fingerprint.
    expect(cursorBody(consumer.cursor!)).toMatchObject({ s: 3, f: expect.stringMatching(/^[0-9a-f]{16}$/) as string });
    expect(cursorBody(horizon)).toMatchObject({ s: 3, f: cursorBody(consumer.cursor!).f });
    const mine = consumer.cursor!;
    // Served by its own database, before and after more is logged.
    insert(db, 's-7');
    await consumer.poll(db);
    await expectEqualToView(consumer, db);

    // The copy put back: s-4 to s-6 take the numbers 2 to 4 (3: the consumer's position).
    const restored = await open(copy);
    for (const id of ['s-4', 's-5', 's-6']) insert(restored, id);
    await expectRefused(restored.changes.read({ since: mine, limit: 10 }), /another database's change log/);
    // The same cursor without its fingerprint (as versions before this one gave it): refused too,
    // its position holds an entry.
    const { f: _f, ...bare } = cursorBody(mine);
    const unchecked = Buffer.from(JSON.stringify(bare)).toString('base64url');
    await expectRefused(restored.changes.read({ since: unchecked, limit: 10 }), /another database's change log/);
    expect((await db.changes.read({ since: unchecked, limit: 10 })).changes.length).toBeGreaterThan(0);
    // Pruned there too, to the consumer's position: its horizon recorded another entry (s-5's).
    const prunedThere = await restored.changes.prune({ keepDays: 0, now: new Date(Date.now() + 60_000) });
    expect(cursorBody(prunedThere.horizon!)).toMatchObject({ s: 4 });
    restored.sqlite.prepare('UPDATE change_log_horizon SET seq = 3').run();
    restored.sqlite
      .prepare('UPDATE change_log_horizon SET fingerprint = ?')
      .run(String(cursorBody(mine).f).replace(/^./, (c) => (c === '0' ? '1' : '0')));
    await expectRefused(restored.changes.read({ since: mine, limit: 10 }), /another database's change log/);
  });
});
