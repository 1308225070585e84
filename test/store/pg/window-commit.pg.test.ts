/**
 * A transaction window on PostgreSQL stores what SQLite stores: the windows a real backfill and a
 * later incremental run commit into SQLite (pending rows booked, vanished, restored; watermarks;
 * Basic fetches that must not blank details) are replayed, in order, into PostgreSQL, and both
 * tables end byte for byte the same, with the same counts per window. What the windows taught
 * (rows per day, the bank's accepted and refused sizes) is replayed with them, in the same order.
 */
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TransactionWindowInput, WindowCounts } from '../../../src/store';
import { copySqliteToPostgres, sqliteColumns } from '../../../src/store/pg/copy-tables';
import { createPool } from '../../../src/store/pg/open';
import { recordWindowKnowledge, setRowsPerDay, storedDensities } from '../../../src/store/sync-state';
import { postgresRunner } from '../../../src/store/pg/pg-runner';
import { commitTransactionWindowPg } from '../../../src/store/pg/window-commit';
import type { Instant } from '../../../src/store/time';
import { waitFor } from '../../cli/cli-process';
import { startHarness, type Harness } from '../../fixtures/sync-harness';
import { createTestDatabase, describePostgres } from '../../support/postgres';

const DAY_MS = 24 * 3600 * 1000;

describePostgres('a transaction window on PostgreSQL', () => {
  let harness: Harness;
  type Window = { input: TransactionWindowInput; counts: WindowCounts };
  const windows: Window[] = [];
  type Knowledge = Parameters<Harness['store']['syncState']['recordWindowKnowledge']>;
  const steps: (
    | { window: Window }
    | { rowsPerDay: Parameters<Harness['store']['syncState']['setRowsPerDay']>[0] & { now: Instant } }
    | { knowledge: { bank: Knowledge[0]; learned: Knowledge[1]; now: Instant } }
  )[] = [];

  beforeAll(async () => {
    // Four months of history: 654 rows added, 457 updated, 4 removed in 54 windows (a longer
    // history adds more rows and CPU, and no other path).
    harness = await startHarness({ seed: 3, historyDays: 120 });
    const commit = harness.store.commitTransactionWindow.bind(harness.store);
    harness.store.commitTransactionWindow = async (input) => {
      const counts = await commit(input);
      const window = { input: structuredClone({ ...input, now: input.now ?? harness.store.now() }), counts };
      windows.push(window);
      steps.push({ window });
      return counts;
    };
    // What the windows taught (migration 0008): each account's density after its windows, each
    // bank's accepted and refused sizes; replayed in the same order, at the same instants.
    const syncState = harness.store.syncState;
    const setRowsPerDay = syncState.setRowsPerDay.bind(syncState);
    syncState.setRowsPerDay = (key) => {
      const fixed = { ...key, now: key.now ?? harness.store.now() };
      steps.push({ rowsPerDay: structuredClone(fixed) });
      return setRowsPerDay(fixed);
    };
    const recordWindowKnowledge = syncState.recordWindowKnowledge.bind(syncState);
    syncState.recordWindowKnowledge = (bank, learned, now) => {
      const at = now ?? harness.store.now();
      steps.push({ knowledge: structuredClone({ bank, learned, now: at }) });
      return recordWindowKnowledge(bank, learned, at);
    };
    expect((await harness.sync()).outcome).toBe('ok');
    harness.emu.advance(3 * DAY_MS);
    expect((await harness.sync()).outcome).toBe('ok');
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('ends with the same rows and watermarks as SQLite after a backfill and an incremental run', async () => {
    const pool = createPool(await createTestDatabase());
    const sqlite = new Database(harness.store.path, { readonly: true });
    try {
      // Everything but what the windows write comes over as it is; the windows are replayed.
      await copySqliteToPostgres(sqlite, pool, { dataDir: harness.dataDir });
      await pool.query(
        `DELETE FROM transactions; DELETE FROM sync_state WHERE resource = 'transactions'; DELETE FROM rejects; DELETE FROM bank_window`,
      );
      const db = postgresRunner(pool);
      const counts = { added: 0, updated: 0, removed: 0, unchanged: 0 };
      for (const step of steps) {
        if ('rowsPerDay' in step) {
          await setRowsPerDay(db, step.rowsPerDay);
          continue;
        }
        if ('knowledge' in step) {
          await recordWindowKnowledge(db, step.knowledge.bank, step.knowledge.learned, step.knowledge.now);
          continue;
        }
        const { input, counts: expected } = step.window;
        const got = await commitTransactionWindowPg(db, input);
        expect(got).toEqual(expected);
        for (const k of Object.keys(counts) as (keyof WindowCounts)[]) counts[k] += got[k];
      }
      // The runs taught something: densities and accepted sizes.
      expect(steps.filter((s) => 'rowsPerDay' in s).length).toBeGreaterThan(0);
      expect(steps.filter((s) => 'knowledge' in s).length).toBeGreaterThan(0);
      // The runs exercised every path.
      expect(counts.added).toBeGreaterThan(500);
      // A row written again within its run (several consents of one account) takes the update path
      // but counts as unchanged (window-commit.ts countedOutcome): these runs add before they update.
      expect(counts.updated + counts.unchanged).toBeGreaterThan(0);
      expect(counts.unchanged).toBeGreaterThan(0);
      expect(counts.removed).toBeGreaterThan(0);
      for (const [table, where] of [
        ['transactions', 'true'],
        ['sync_state', `resource = 'transactions'`],
        ['bank_window', 'true'],
      ] as const) {
        const columns = sqliteColumns(sqlite, table)
          .map((c) => `"${c}"`)
          .join(', ');
        const fromSqlite = sqlite
          .prepare(`SELECT ${columns} FROM ${table} WHERE ${where} ORDER BY ${columns}`)
          .raw(true)
          .all();
        const { rows } = await pool.query({
          text: `SELECT ${columns} FROM ${table} WHERE ${where} ORDER BY ${columns.replaceAll('",', '" NULLS FIRST,')} NULLS FIRST`,
          rowMode: 'array',
        });
        expect(rows.length, table).toBe(fromSqlite.length);
        expect(rows, table).toEqual(fromSqlite);
      }
      // The priors for a new account's first window: every stored reading, the same on both.
      const sorted = (readings: { accountId: string; rowsPerDay: number }[]) =>
        readings.sort((a, b) => a.accountId.localeCompare(b.accountId) || a.rowsPerDay - b.rowsPerDay);
      const readings = sorted(await harness.store.syncState.storedDensities('PNZ'));
      expect(readings.length).toBeGreaterThan(0);
      expect(sorted(await storedDensities(db, 'PNZ'))).toEqual(readings);
      expect(await storedDensities(db, 'ANZ')).toEqual([]);
    } finally {
      sqlite.close();
      await pool.end();
    }
  });

  it('lets two workers commit the same new rows of one account at once: one adds, the other finds them', async () => {
    const pool = createPool(await createTestDatabase());
    const sqlite = new Database(harness.store.path, { readonly: true });
    try {
      await copySqliteToPostgres(sqlite, pool, { dataDir: harness.dataDir });
      const window = windows.find((w) => w.input.rows.length >= 20)!.input as TransactionWindowInput & { now: Date };
      const fresh = {
        ...window,
        checkpoint: null,
        rows: window.rows.map((r) => ({ ...r, transactionId: `${r.transactionId}-again` as typeof r.transactionId })),
      };
      // Two pools: two workers, each its own connection, committing at the same moment.
      const other = createPool(pool.options.connectionString!);
      try {
        const results = await Promise.all([
          commitTransactionWindowPg(postgresRunner(pool), fresh),
          commitTransactionWindowPg(postgresRunner(other), fresh),
        ]);
        const added = results.map((r) => r.added).sort((a, b) => a - b);
        expect(added).toEqual([0, fresh.rows.length]);
        expect(results.map((r) => r.unchanged).sort((a, b) => a - b)).toEqual([0, fresh.rows.length]);
      } finally {
        await other.end();
      }
    } finally {
      sqlite.close();
      await pool.end();
    }
  });

  it('waits for another writer of the same account, and not for one of another account', async () => {
    const pool = createPool(await createTestDatabase());
    const sqlite = new Database(harness.store.path, { readonly: true });
    const holder = await pool.connect();
    try {
      await copySqliteToPostgres(sqlite, pool, { dataDir: harness.dataDir });
      const byAccount = new Map<string, TransactionWindowInput & { now: Date }>();
      for (const w of windows)
        if (w.input.rows.length > 0)
          byAccount.set(w.input.accountId, w.input as TransactionWindowInput & { now: Date });
      const [held, free] = [...byAccount.values()];
      // Another worker is inside a window of `held`'s account.
      await holder.query('BEGIN');
      await holder.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`${held!.bank}/${held!.accountId}`]);
      let settled = false;
      const blocked = commitTransactionWindowPg(postgresRunner(pool), held!).then((r) => ((settled = true), r));
      // The server shows the window waiting for the account's lock (polled: no fixed sleep; a
      // commit that did not wait settles, and the poll stops with none waiting).
      // pg_locks is the whole server's: other test files run beside this one (concurrent
      // migrations, run openings) and wait on advisory locks too, so count this database's only.
      const waiting = await waitFor(async () => {
        const { rows } = await holder.query(
          `SELECT count(*) AS n FROM pg_locks
           WHERE locktype = 'advisory' AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
        );
        const n = Number(rows[0].n);
        return n !== 0 || settled ? n : undefined;
      });
      expect(waiting).toBe(1);
      await commitTransactionWindowPg(postgresRunner(pool), free!);
      expect(settled).toBe(false);
      await holder.query('COMMIT');
      expect((await blocked).unchanged).toBeGreaterThan(0);
    } finally {
      holder.release();
      sqlite.close();
      await pool.end();
    }
  });
});
