/**
 * The change feed (`bankdata changes`, docs/changes.md) applied by a consumer: pages of the feed
 * (a small limit, so they split) applied to an empty table, which then equals v_transactions on
 * the watched columns, after a backfill against the emulator, incremental runs with pending rows
 * settling and vanishing (the emulator's data clock moved), a hand-made edit of a row, a joined
 * table of the shape issue 36 adds, the real categories (applyCategories deciding, then a rule
 * moving rows) and a duplicate suspicion raised and cleared, `consents forget`, and a sync killed with SIGKILL mid-run;
 * pruning and the cursors it refuses. Both dialects: change-feed.test.ts (SQLite) and
 * change-feed.pg.test.ts (PostgreSQL, with its own cases: commits out of order, two workers).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import type { ConsentId, TransactionId } from '@bankdata/core/schemas';
import { startEmulator, type StartedEmulator } from '@bankdata/emulator';
import { applyCategories } from '../../src/categories/apply';
import { parseRules } from '../../src/categories/rules';
import { UsageError } from '../../src/errors';
import { openDatabaseStore, WATCHED_COLUMNS, type Change, type SqliteStore, type Store } from '../../src/store';
import { changeFeedTriggersSql, type ChangeSource } from '../../src/store/change-feed';
import type { AccountKey } from '../../src/store/continuity';
import type { DuplicateSuspicion } from '../../src/store/duplicates';
import type { PgStore } from '../../src/store/pg/pg-store';
import { emulatorEnv } from '../fixtures/cli-env';
import { startHarnessOn, type Harness } from '../fixtures/sync-harness';
import { execute, queryRow, queryRows, type DialectSetup, type Row } from '../support/dialects';

const DAY_MS = 86_400_000;
const KEY = ['bank', 'account_id', 'transaction_id'] as const;
/** The columns a consumer keeps: the key and every watched column. */
export const CONSUMER_COLUMNS: readonly string[] = [...KEY, ...WATCHED_COLUMNS];

const keyText = (row: Row) => JSON.stringify(KEY.map((k) => row[k]));
const pick = (row: Row) => Object.fromEntries(CONSUMER_COLUMNS.map((c) => [c, row[c] ?? null]));

/** A downstream table fed only by the feed's pages. */
export class Consumer {
  readonly rows = new Map<string, Row>();
  cursor: string | undefined;
  pages = 0;
  readonly seen = { added: 0, modified: 0, removed: 0 };
  readonly changedColumns = new Set<string>();
  /** The keys of the removed entries applied (a key once however often it came). */
  readonly removedKeys = new Set<string>();

  constructor(readonly limit: number) {}

  apply(changes: readonly Change[]): void {
    for (const c of changes) {
      this.seen[c.change] += 1;
      const key = keyText(c.key as unknown as Row);
      if (c.change === 'removed') {
        this.rows.delete(key);
        this.removedKeys.add(key);
      } else this.rows.set(key, pick(c.row));
      if (c.change === 'modified') for (const column of c.changed) this.changedColumns.add(column);
    }
  }

  /** Pages until the feed has nothing more now. */
  async poll(store: Store): Promise<void> {
    for (;;) {
      const page = await store.changes.read({ ...(this.cursor ? { since: this.cursor } : {}), limit: this.limit });
      this.apply(page.changes);
      this.cursor = page.cursor;
      this.pages += 1;
      if (!page.hasMore) return;
    }
  }
}

/** v_transactions as a consumer should hold it: the amounts as their exact text (as the feed gives them). */
export async function viewRows(store: Store): Promise<Map<string, Row>> {
  const rows = await queryRows(store, 'SELECT * FROM v_transactions');
  return new Map(
    // As the feed shows a row (src/store/changes.ts feedRow): amounts as text, a flag 0 or 1 on both dialects.
    rows.map((r) => [
      keyText(r),
      pick({
        ...r,
        amount: r.amount_text,
        balance_after: r.balance_after_text,
        suspected_duplicate:
          typeof r.suspected_duplicate === 'boolean' ? Number(r.suspected_duplicate) : r.suspected_duplicate,
      }),
    ]),
  );
}

export async function expectEqualToView(consumer: Consumer, store: Store): Promise<void> {
  const view = await viewRows(store);
  expect(view.size).toBeGreaterThan(0);
  const sorted = (m: Map<string, Row>) => [...m.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  expect(sorted(consumer.rows)).toEqual(sorted(view));
}

/**
 * On PostgreSQL a page serves only the entries of transactions older than the cluster's oldest
 * running one (docs/changes.md "How it is made"): a transaction of another database (another
 * test file's) or a killed client's backend not yet gone may hold that back a moment. Waits for the
 * event the assertions need, every committed entry servable; on SQLite it holds at once.
 */
export async function feedSettled(store: Store): Promise<void> {
  if (store.dialect !== 'postgres') return;
  await vi.waitFor(
    async () => {
      const row = await queryRow<{ n: number }>(
        store,
        'SELECT count(*) AS n FROM change_log WHERE xid >= pg_snapshot_xmin(pg_current_snapshot())::text::bigint',
      );
      expect(Number(row!.n)).toBe(0);
    },
    { timeout: 60_000, interval: 50 },
  );
}

async function logCount(store: Store): Promise<number> {
  return Number((await queryRow<{ n: number }>(store, 'SELECT count(*) AS n FROM change_log'))!.n);
}

/** Runs a migration's text (statements separated as drizzle separates them). */
async function runStatements(store: Store, text: string): Promise<void> {
  for (const statement of text.split('--> statement-breakpoint')) {
    if (store.dialect === 'sqlite') (store as SqliteStore).sqlite.exec(statement);
    else await (store as PgStore).pool.query(statement);
  }
}

const BIN = resolve(__dirname, '../../bin/bankdata.js');

/** A cursor's content (the feed's cursors are base64url JSON; tests only). */
export const cursorBody = (cursor: string): Record<string, unknown> =>
  JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Record<string, unknown>;
export const cursorText = (body: Record<string, unknown>): string =>
  Buffer.from(JSON.stringify(body)).toString('base64url');

/** Refused as a consumer's cursor is: exit 2, the message, the hint to start again. */
export async function expectRefused(read: Promise<unknown>, message: RegExp): Promise<void> {
  await expect(read).rejects.toBeInstanceOf(UsageError);
  await expect(read).rejects.toMatchObject({
    exitCode: 2,
    message: expect.stringMatching(message) as string,
    hint: expect.stringContaining('without --since') as string,
  });
}

/** The statement of the change log identity's migration that makes the log's row. */
function identityInsert(dialect: DialectSetup['dialect']): string {
  const file =
    dialect === 'sqlite'
      ? 'src/store/sqlite/migrations/0018_change_log_identity.sql'
      : 'src/store/pg/migrations/0017_change_log_identity.sql';
  const statement = readFileSync(resolve(__dirname, '../..', file), 'utf8')
    .split('--> statement-breakpoint')
    .find((s) => s.includes('INSERT INTO'));
  if (!statement) throw new Error(`${file} makes no row`);
  return statement;
}

export const changeFeedSuite = (setup: DialectSetup): void =>
  setup.describe('a consumer of the change feed equals v_transactions', () => {
    let h: Harness<Store>;
    const early = new Consumer(37);
    const sync = () => h.sync({ now: () => h.emu.now().toJSDate() });

    beforeAll(async () => {
      // A data clock in the past, so that it may move forward: pending rows settle and vanish.
      h = await startHarnessOn(await setup.location(), {
        customersPerBank: 1,
        historyDays: 90,
        start: '2026-03-10T10:00:00+13:00',
      });
    }, 120_000);
    afterAll(async () => {
      await h?.close();
    });

    it('a backfill: the pages of a consumer polling from before it, and of one starting after it (the snapshot)', async () => {
      await feedSettled(h.store);
      await early.poll(h.store);
      expect(early.rows.size).toBe(0);
      expect((await sync()).outcome).toBe('ok');
      await feedSettled(h.store);
      await early.poll(h.store);
      expect(early.pages).toBeGreaterThan(5);
      expect(early.seen.added).toBeGreaterThan(200);
      await expectEqualToView(early, h.store);

      const late = new Consumer(50);
      await feedSettled(h.store);
      await late.poll(h.store);
      expect(late.pages).toBeGreaterThan(4);
      await expectEqualToView(late, h.store);

      // A run that changes nothing logs nothing: its re-fetched rows move last_seen_at only.
      const before = await logCount(h.store);
      h.emu.advance(60_000);
      expect((await sync()).outcome).toBe('ok');
      expect(await logCount(h.store)).toBe(before);
    }, 240_000);

    it('incremental runs: pending rows settle (under a new id) and vanish: removed and added', async () => {
      const pendingBefore = Number(
        (await queryRow<{ n: number }>(h.store, "SELECT count(*) AS n FROM v_transactions WHERE status = 'Pending'"))!
          .n,
      );
      expect(pendingBefore).toBeGreaterThan(0);
      const removedBefore = early.seen.removed;
      for (const days of [1, 2]) {
        h.emu.advance(days * DAY_MS);
        expect((await sync()).counters.failedUnits).toEqual([]);
        await feedSettled(h.store);
        await early.poll(h.store);
        await expectEqualToView(early, h.store);
      }
      expect(early.seen.removed).toBeGreaterThan(removedBefore);
    }, 240_000);

    it('an edit of watched columns is "modified" with exactly those columns; last_seen_at alone logs nothing', async () => {
      const row = (await queryRow<Row>(h.store, 'SELECT * FROM transactions WHERE removed_at IS NULL LIMIT 1'))!;
      const where = 'bank = ? AND account_id = ? AND transaction_id = ?';
      const key = [row.bank, row.account_id, row.transaction_id];
      const before = await logCount(h.store);
      await execute(
        h.store,
        `UPDATE transactions SET last_seen_at = '2099-01-01T00:00:00.000Z' WHERE ${where}`,
        ...key,
      );
      await execute(h.store, `UPDATE transactions SET description = description WHERE ${where}`, ...key);
      expect(await logCount(h.store)).toBe(before);
      await execute(
        h.store,
        `UPDATE transactions SET description = 'edited', amount = '-12.34', merchant_name = NULL WHERE ${where}`,
        ...key,
      );
      await feedSettled(h.store);
      const page = await h.store.changes.read({ since: early.cursor!, limit: 10 });
      const nullBefore = row.merchant_name === null;
      expect(page.changes).toEqual([
        {
          change: 'modified',
          key: { bank: row.bank, account_id: row.account_id, transaction_id: row.transaction_id },
          changed: ['amount', 'description', ...(nullBefore ? [] : ['merchant_name']), 'amount_text'],
          row: expect.objectContaining({ description: 'edited', amount: '-12.34', amount_text: '-12.34' }) as Row,
        },
      ]);
      await feedSettled(h.store);
      await early.poll(h.store);
      await expectEqualToView(early, h.store);
    });

    it('a joined table (the shape of transaction_categories): its rows are "modified" of the transaction, named by the view column', async () => {
      // A stand-in for issue 36's table: one line in the list of sources, triggers generated from it.
      const source: ChangeSource = {
        table: 'feed_test_categories',
        role: 'joined',
        key: ['bank', 'account_id', 'transaction_id'],
        columns: { category: ['category'], payee: ['payee'] },
      };
      await runStatements(
        h.store,
        'CREATE TABLE feed_test_categories (bank text NOT NULL, account_id text NOT NULL, transaction_id text NOT NULL, category text NOT NULL, payee text, decided_at text)',
      );
      await runStatements(h.store, changeFeedTriggersSql(h.store.dialect, { sources: [source] }));
      const row = (await queryRow<Row>(h.store, 'SELECT * FROM v_transactions LIMIT 1'))!;
      const key = [row.bank, row.account_id, row.transaction_id];
      const keyObject = { bank: row.bank, account_id: row.account_id, transaction_id: row.transaction_id };
      const where = 'bank = ? AND account_id = ? AND transaction_id = ?';
      const next = async () => {
        await feedSettled(h.store);
        const page = await h.store.changes.read({ since: early.cursor!, limit: 10 });
        early.apply(page.changes);
        early.cursor = page.cursor;
        return page.changes.map((c) => (c.change === 'modified' ? [c.change, c.key, c.changed] : [c.change, c.key]));
      };
      await execute(
        h.store,
        `INSERT INTO feed_test_categories VALUES (?, ?, ?, 'groceries', NULL, '2026-03-12T00:00:00.000Z')`,
        ...key,
      );
      expect(await next()).toEqual([['modified', keyObject, ['category']]]);
      await execute(h.store, `UPDATE feed_test_categories SET decided_at = 'later' WHERE ${where}`, ...key);
      expect(await next()).toEqual([]);
      await execute(h.store, `UPDATE feed_test_categories SET payee = 'Countdown' WHERE ${where}`, ...key);
      expect(await next()).toEqual([['modified', keyObject, ['payee']]]);
      await execute(h.store, `DELETE FROM feed_test_categories WHERE ${where}`, ...key);
      expect(await next()).toEqual([['modified', keyObject, ['category', 'payee']]]);
    });

    it('real categories: rows applyCategories decides or moves are "modified" naming category; the consumer equals the view', async () => {
      /** Pages until nothing more, applied by the early consumer; the changes served. */
      const drain = async () => {
        const changes: Change[] = [];
        for (;;) {
          await feedSettled(h.store);
          const page = await h.store.changes.read({ since: early.cursor!, limit: 37 });
          early.apply(page.changes);
          changes.push(...page.changes);
          early.cursor = page.cursor;
          if (!page.hasMore) return changes;
        }
      };
      const changedOf = (changes: Change[]) =>
        new Map(changes.map((c) => [keyText(c.key as unknown as Row), c.change === 'modified' ? c.changed : []]));
      await feedSettled(h.store);
      await early.poll(h.store);

      // First decisions (the harness's sync decides nothing): the MCC and code tables, no rules.
      const undecided = await viewRows(h.store);
      expect((await applyCategories(h.store, { rules: [], all: true })).changed).toBe(undecided.size);
      const decided = await viewRows(h.store);
      const first = await drain();
      await expectEqualToView(early, h.store);
      expect(first.every((c) => c.change === 'modified')).toBe(true);
      const firstChanged = changedOf(first);
      const categorised = [...decided].filter(([k, r]) => undecided.get(k)!.category !== r.category).map(([k]) => k);
      expect(categorised.length).toBeGreaterThan(0);
      for (const k of categorised) expect(firstChanged.get(k)).toContain('category');

      // Then a rule on a word of one row's description in one account: some rows move, others not.
      const target = (await queryRow<Row>(
        h.store,
        "SELECT * FROM v_transactions WHERE description IS NOT NULL AND description <> '' ORDER BY bank, account_id, transaction_id LIMIT 1",
      ))!;
      const word = String(target.description).trim().split(/\s+/)[0]!;
      const parsed = parseRules(
        `rules:\n  - id: feed-test\n    description: ${JSON.stringify(word)}\n    account: ${JSON.stringify(String(target.account_id))}\n    category: feed-test\n    payee: Feed Test\n`,
      );
      if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
      const result = await applyCategories(h.store, { rules: parsed.rules, all: true });
      const after = await viewRows(h.store);
      const moved = [...after].filter(([k, r]) => decided.get(k)!.category !== r.category).map(([k]) => k);
      expect(moved.length).toBeGreaterThan(0);
      expect(moved.length).toBeLessThan(after.size);
      expect(result.moves.reduce((n, m) => n + m.count, 0)).toBe(moved.length);
      for (const k of moved) expect(after.get(k)).toMatchObject({ category: 'feed-test', category_rule: 'feed-test' });
      const second = await drain();
      await expectEqualToView(early, h.store);
      // Exactly the moved rows, each naming the decision's columns that changed (never a column of transactions).
      expect([...changedOf(second).keys()].sort()).toEqual([...moved].sort());
      for (const c of second) {
        expect(c.change).toBe('modified');
        if (c.change !== 'modified') continue;
        const k = keyText(c.key as unknown as Row);
        expect(c.changed).toContain('category');
        for (const column of c.changed) {
          expect(['category', 'payee', 'category_source', 'category_rule']).toContain(column);
          expect(after.get(k)![column]).not.toEqual(decided.get(k)![column]);
        }
      }

      // The same rules again: nothing moves, nothing is logged.
      const logged = await logCount(h.store);
      expect((await applyCategories(h.store, { rules: parsed.rules, all: true })).changed).toBe(0);
      expect(await logCount(h.store)).toBe(logged);
    });

    it('a duplicate suspicion raised and cleared: "modified" suspected_duplicate each time', async () => {
      await feedSettled(h.store);
      await early.poll(h.store);
      const row = (await queryRow<Row>(
        h.store,
        'SELECT * FROM v_transactions WHERE suspected_duplicate = ? ORDER BY bank, account_id, transaction_id DESC LIMIT 1',
        h.store.dialect === 'sqlite' ? 0 : false,
      ))!;
      const keyObject = { bank: row.bank, account_id: row.account_id, transaction_id: row.transaction_id };
      const account = { bank: row.bank, accountId: row.account_id } as unknown as AccountKey;
      // Its twin: another stored row of the account (a suspicion is written only while both are stored).
      const twin = (await queryRow<Row>(
        h.store,
        'SELECT transaction_id FROM transactions WHERE bank = ? AND account_id = ? AND transaction_id <> ? LIMIT 1',
        row.bank,
        row.account_id,
        row.transaction_id,
      ))!;
      const suspicion: DuplicateSuspicion = {
        ...account,
        transactionId: row.transaction_id as TransactionId,
        twinTransactionId: twin.transaction_id as TransactionId,
        evidence: 'balances',
        balance: '100.00',
        balanceDateTime: '2026-03-11T00:00:00.000Z',
        balanceDate: '2026-03-11',
        countedBalance: '90.00',
        amountOff: '-10.00',
        amountOffMinor: -1000,
        currency: 'NZD',
        detail: 'a stand-in check',
      };
      const next = async () => {
        await feedSettled(h.store);
        const page = await h.store.changes.read({ since: early.cursor!, limit: 10 });
        early.apply(page.changes);
        early.cursor = page.cursor;
        return page.changes.map((c) => (c.change === 'modified' ? [c.change, c.key, c.changed] : [c.change, c.key]));
      };
      const check = (suspicions: DuplicateSuspicion[], checkedAt: string) =>
        h.store.duplicates.replaceSuspicions({ accounts: [account], suspicions, runId: null, checkedAt });
      expect(await check([suspicion], '2026-03-12T00:00:00.000Z')).toMatchObject({ marked: 1 });
      expect(await next()).toEqual([['modified', keyObject, ['suspected_duplicate']]]);
      await expectEqualToView(early, h.store);
      expect(early.rows.get(keyText(row))!.suspected_duplicate).toBe(1);
      // Proved again: its evidence replaced, the view unchanged, nothing logged.
      expect(await check([suspicion], '2026-03-12T01:00:00.000Z')).toMatchObject({ kept: 1 });
      expect(await next()).toEqual([]);
      // Not proved by the next check: cleared (the row kept with cleared_at), modified again.
      expect(await check([], '2026-03-12T02:00:00.000Z')).toMatchObject({ cleared: 1 });
      expect(await next()).toEqual([['modified', keyObject, ['suspected_duplicate']]]);
      await expectEqualToView(early, h.store);
      expect(early.rows.get(keyText(row))!.suspected_duplicate).toBe(0);
    });

    it("a decision or suspicion that leaves the view row as it was logs nothing (the view's defaults, an open suspicion only)", async () => {
      await feedSettled(h.store);
      await early.poll(h.store);
      const logged = await logCount(h.store);
      const viewRow = async (k: Row) =>
        (await queryRow<Row>(
          h.store,
          'SELECT * FROM v_transactions WHERE bank = ? AND account_id = ? AND transaction_id = ?',
          k.bank,
          k.account_id,
          k.transaction_id,
        ))!;
      // A row decided as nothing (the view shows `uncategorised`, `none` with or without its decision).
      const row = (await queryRow<Row>(
        h.store,
        `SELECT t.* FROM v_transactions t JOIN transaction_categories c
           ON c.bank = t.bank AND c.account_id = t.account_id AND c.transaction_id = t.transaction_id
         WHERE c.category = 'uncategorised' AND c.category_source = 'none' AND c.payee IS NULL AND c.category_rule IS NULL
         ORDER BY t.bank, t.account_id, t.transaction_id LIMIT 1`,
      ))!;
      expect(row).toBeDefined();
      const key = [row.bank, row.account_id, row.transaction_id];
      const where = 'bank = ? AND account_id = ? AND transaction_id = ?';
      // Its decision deleted: the view row is the same, nothing is logged.
      await execute(h.store, `DELETE FROM transaction_categories WHERE ${where}`, ...key);
      expect(await viewRow(row)).toEqual(row);
      expect(await logCount(h.store)).toBe(logged);
      // A first decision of the defaults (no rule, MCC or code matched): the same.
      await h.store.categories.save([
        {
          bank: row.bank,
          accountId: row.account_id,
          transactionId: row.transaction_id,
          category: 'uncategorised',
          payee: null,
          source: 'none',
          rule: null,
          rowUpdatedAt: String(row.first_seen_at),
        } as unknown as Parameters<Store['categories']['save']>[0][number],
      ]);
      expect(await viewRow(row)).toEqual(row);
      expect(await logCount(h.store)).toBe(logged);

      // A cleared suspicion (the case before left one): cleared again later, then deleted. The view
      // showed no suspicion throughout: nothing is logged. Raised again (open): logged.
      const cleared = (await queryRow<Row>(
        h.store,
        'SELECT * FROM duplicate_suspicions WHERE cleared_at IS NOT NULL ORDER BY bank, account_id, transaction_id LIMIT 1',
      ))!;
      expect(cleared).toBeDefined();
      const suspect = [cleared.bank, cleared.account_id, cleared.transaction_id];
      const suspectRow = await viewRow(cleared);
      await execute(
        h.store,
        `UPDATE duplicate_suspicions SET cleared_at = ? WHERE ${where}`,
        '2026-03-13T00:00:00.000Z',
        ...suspect,
      );
      await execute(h.store, `DELETE FROM duplicate_suspicions WHERE ${where}`, ...suspect);
      expect(await viewRow(cleared)).toEqual(suspectRow);
      expect(await logCount(h.store)).toBe(logged);
      // Put back as it was (cleared): still nothing; opened: "modified" suspected_duplicate.
      const columns = Object.keys(cleared);
      const insert = `INSERT INTO duplicate_suspicions (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`;
      await execute(h.store, insert, ...columns.map((c) => cleared[c]));
      expect(await logCount(h.store)).toBe(logged);
      await execute(h.store, `UPDATE duplicate_suspicions SET cleared_at = NULL WHERE ${where}`, ...suspect);
      await feedSettled(h.store);
      const page = await h.store.changes.read({ since: early.cursor!, limit: 10 });
      early.apply(page.changes);
      early.cursor = page.cursor;
      expect(page.changes.map((c) => (c.change === 'modified' ? [c.change, c.key, c.changed] : [c.change]))).toEqual([
        [
          'modified',
          { bank: cleared.bank, account_id: cleared.account_id, transaction_id: cleared.transaction_id },
          ['suspected_duplicate'],
        ],
      ]);
      await expectEqualToView(early, h.store);
    });

    it('consents forget: the rows deleted are removed, those handed over modified', async () => {
      // The customer cancels a consent that holds rows; the next sync records it as ended.
      const holders = await queryRows<{ consent_id: string }>(
        h.store,
        'SELECT consent_id, count(*) AS n FROM v_transactions GROUP BY consent_id ORDER BY n DESC',
      );
      const ended = holders.map((r) => r.consent_id).find((id) => h.emu.consent(id)?.status === 'Authorised');
      expect(ended).toBeDefined();
      h.emu.actOnConsent(ended!, 'cancel');
      expect(h.emu.consent(ended!)!.status).not.toBe('Authorised');
      await sync();
      const held = Number(
        (await queryRow<{ n: number }>(h.store, 'SELECT count(*) AS n FROM transactions WHERE consent_id = ?', ended))!
          .n,
      );
      const heldKeys = (await queryRows<Row>(h.store, 'SELECT * FROM transactions WHERE consent_id = ?', ended)).map(
        keyText,
      );
      await feedSettled(h.store);
      await early.poll(h.store);
      early.removedKeys.clear();
      const report = await h.store.consents.forget(ended as ConsentId, { dryRun: false });
      await feedSettled(h.store);
      await early.poll(h.store);
      await expectEqualToView(early, h.store);
      const stored = new Set((await queryRows<Row>(h.store, 'SELECT * FROM transactions')).map(keyText));
      const deletedKeys = heldKeys.filter((k) => !stored.has(k));
      // Every row it held (pending rows already removed from the view too) went: deleted (removed
      // in the feed) or handed over (consent_id modified).
      const deleted = report.deleted.transactions ?? 0;
      const handed = Object.values(report.handedOver).reduce((n, t) => n + (t.transactions ?? 0), 0);
      expect(held).toBeGreaterThan(0);
      expect(deleted + handed).toBe(held);
      // Each deleted row is removed; so are (again) rows gone before whose category rows forget deletes
      // with them, and a row's category row may come in another page than the row: harmless (docs/changes.md).
      expect(deletedKeys).toHaveLength(deleted);
      expect([...early.removedKeys]).toEqual(expect.arrayContaining(deletedKeys));
      for (const k of early.removedKeys) expect(stored.has(k) && early.rows.has(k)).toBe(false);
      if (handed > 0) expect(early.changedColumns).toContain('consent_id');
      expect(
        await queryRow(h.store, 'SELECT 1 AS one FROM v_transactions WHERE consent_id = ? LIMIT 1', ended),
      ).toBeUndefined();
    }, 240_000);

    it("a cursor names its database's change log: another database's, one ahead of the log, and an old one where the log was unused are refused (exit 2)", async () => {
      await feedSettled(h.store);
      await early.poll(h.store);
      const mine = early.cursor!;
      const body = cursorBody(mine);
      expect(body).toMatchObject({ v: 2, i: expect.stringMatching(/^[0-9a-f.]+$/) as string });
      // On PostgreSQL `other` is made from the same migrated template, so it holds the same
      // log_id: the database's oid in the cursor tells the two apart (as for a dump restored).
      const other = await openDatabaseStore(await setup.location());
      const identityRow = async (store: Store) => (await queryRow<Row>(store, 'SELECT * FROM change_log_identity'))!;
      const saved = await identityRow(h.store);
      try {
        await expectRefused(other.changes.read({ since: mine, limit: 10 }), /another database's change log/);
        const theirs = (await other.changes.read({ limit: 10 })).cursor;
        await expectRefused(h.store.changes.read({ since: theirs, limit: 10 }), /another database's change log/);
        // After every position this log gave: a file put back from an earlier copy.
        const ahead =
          setup.dialect === 'postgres' ? { x: Number(body.x) + 1_000_000 } : { s: Number(body.s) + 1_000_000 };
        await expectRefused(
          h.store.changes.read({ since: cursorText({ ...body, ...ahead }), limit: 10 }),
          /ahead of this database's change log/,
        );
        expect((await h.store.changes.read({ since: mine, limit: 10 })).changes).toEqual([]);

        // A cursor of before logs had an id (version 1, no log named). This log was empty when its
        // migration ran (a new database), so such a cursor is not its own.
        const { i: _named, f: _entry, ...unnamed } = body;
        const v1 = cursorText({ ...unnamed, v: 1 });
        await expectRefused(h.store.changes.read({ since: v1, limit: 10 }), /another database's change log/);
        // The migration's own statement, run again on a log already used (this one) and on an unused
        // one (`other`): the first keeps the old cursors as its own, the second does not.
        const insert = identityInsert(setup.dialect);
        for (const store of [h.store, other]) {
          await execute(store, 'DELETE FROM change_log_identity');
          await runStatements(store, insert);
        }
        expect(Number((await identityRow(h.store)).legacy)).toBe(1);
        expect(Number((await identityRow(other)).legacy)).toBe(0);
        const served = await h.store.changes.read({ since: v1, limit: 10 });
        expect(served.changes).toEqual([]);
        expect(cursorBody(served.cursor)).toMatchObject({ v: 2, x: body.x, s: body.s });
        expect(cursorBody(served.cursor).i).not.toBe(body.i);
        await expectRefused(other.changes.read({ since: v1, limit: 10 }), /another database's change log/);
        // The cursor of the id before is another log's now.
        await expectRefused(h.store.changes.read({ since: mine, limit: 10 }), /another database's change log/);
      } finally {
        await execute(h.store, 'DELETE FROM change_log_identity');
        await execute(
          h.store,
          'INSERT INTO change_log_identity (id, log_id, legacy, db_oid, forked_from, forked_xid, forked_seq) VALUES (?, ?, ?, ?, ?, ?, ?)',
          ...['id', 'log_id', 'legacy', 'db_oid', 'forked_from', 'forked_xid', 'forked_seq'].map((c) => saved[c]),
        );
        await other.close();
      }
      expect((await h.store.changes.read({ since: mine, limit: 10 })).changes).toEqual([]);
    });

    it('prune: entries logged before the kept days go; a cursor before them is refused (exit 2), a later one served', async () => {
      const old = early.cursor!;
      // Something new after the consumer's cursor, then everything logged so far pruned.
      const row = (await queryRow<Row>(h.store, 'SELECT * FROM v_transactions LIMIT 1'))!;
      await execute(
        h.store,
        'UPDATE transactions SET description = ? WHERE bank = ? AND account_id = ? AND transaction_id = ?',
        'changed before the prune',
        row.bank,
        row.account_id,
        row.transaction_id,
      );
      // On PostgreSQL an entry is pruned only once it can be served: below the cluster's snapshot
      // xmin, which another database's open transaction may hold back (as for reads, above).
      await feedSettled(h.store);
      const pruned = await h.store.changes.prune({ keepDays: 0, now: new Date(Date.now() + 1000) });
      expect(pruned.pruned).toBeGreaterThan(0);
      expect(await logCount(h.store)).toBe(0);
      const tooOld = h.store.changes.read({ since: old, limit: 10 });
      await expect(tooOld).rejects.toBeInstanceOf(UsageError);
      await expect(tooOld).rejects.toMatchObject({
        exitCode: 2,
        hint: expect.stringContaining('without --since') as string,
      });
      // The horizon itself is served (nothing before it is missing): an empty page.
      expect((await h.store.changes.read({ since: pruned.horizon!, limit: 10 })).changes).toEqual([]);
      // A consumer starting again from none gets every row (the snapshot), so it is whole again.
      const again = new Consumer(500);
      await feedSettled(h.store);
      await again.poll(h.store);
      await expectEqualToView(again, h.store);
      // The log is empty: its cursor is the horizon's, with the fingerprint of the last entry pruned
      // (a log forked after it, such as a copy put back, is told apart: test/store/change-log-fork.test.ts).
      expect(cursorBody(pruned.horizon!).f).toMatch(/^[0-9a-f]{16}$/);
      expect(cursorBody(again.cursor!)).toMatchObject({
        x: cursorBody(pruned.horizon!).x,
        s: cursorBody(pruned.horizon!).s,
        f: cursorBody(pruned.horizon!).f,
      });
      // A cursor with no fingerprint is given only where the log holds no entry at or before it: one
      // whose position holds an entry, or comes after one, is of a log that forked after it.
      await execute(
        h.store,
        'UPDATE transactions SET description = ? WHERE bank = ? AND account_id = ? AND transaction_id = ?',
        'changed after the prune',
        row.bank,
        row.account_id,
        row.transaction_id,
      );
      await feedSettled(h.store);
      await again.poll(h.store);
      await expectEqualToView(again, h.store);
      const { f: _entry, ...bare } = cursorBody(again.cursor!);
      await expectRefused(
        h.store.changes.read({ since: cursorText(bare), limit: 10 }),
        /another database's change log/,
      );
      // The horizon's cursor as versions before this one gave it (no fingerprint): no entry at or
      // before it, so served as then.
      const { f: _kept, ...bareHorizon } = cursorBody(pruned.horizon!);
      expect((await h.store.changes.read({ since: cursorText(bareHorizon), limit: 10 })).changes).toHaveLength(1);
      for (const bad of ['x', 'not a cursor!', Buffer.from('{"v":2}').toString('base64url')]) {
        await expect(h.store.changes.read({ since: bad, limit: 10 })).rejects.toBeInstanceOf(UsageError);
      }
    });
  });

/**
 * A `bankdata sync` process killed with SIGKILL at a known point mid-run while a consumer polls;
 * the rerun; the consumer equals the view after each. The point is made by the emulator, not by
 * timing: once it has served the first page of the WINDOWS_BEFORE_HOLD-th transactions window
 * (the sync runs in one lane, so the windows before it are committed) it holds every request
 * after (`dataRequestDelayMs`, packages/emulator/src/hold.ts), so the sync is stopped with its
 * requests in flight, some rows committed and the run unfinished, however fast the machine; then
 * it is killed by its pid, and the hold released for the rerun. The world's first consent has
 * three accounts of 7, 4 and 1 pages: the rows of the first are committed at the kill, and the
 * rerun adds the others'.
 */
const WINDOWS_BEFORE_HOLD = 2;

export const changeFeedCrashSuite = (setup: DialectSetup): void =>
  setup.describe('the change feed across a sync killed with SIGKILL', () => {
    let emu: StartedEmulator;
    let store: Store;
    let env: Record<string, string>;
    let dir: string;
    const children: ChildProcess[] = [];
    /** Transaction windows begun while the hold is armed; the hold starts with the last of them. */
    let windowsServed = 0;
    let holdArmed = false;

    beforeAll(async () => {
      emu = await startEmulator({
        seed: 5,
        latencyMs: 8,
        historyDays: 150,
        customersPerBank: 1,
        // Called as each answer is made, before it is sent: the hold starts between two requests.
        logger: {
          info: (_msg, fields) => {
            if (!holdArmed || fields?.status !== 200 || !String(fields.path).endsWith('/transactions')) return;
            // A window's first page: no `page` in its query (the later pages follow `Next`).
            if ((fields.query as Record<string, string> | undefined)?.page !== undefined) return;
            if ((windowsServed += 1) < WINDOWS_BEFORE_HOLD) return;
            holdArmed = false;
            emu.updateSettings({ dataRequestDelayMs: 600_000 });
          },
        },
      });
      dir = mkdtempSync(join(tmpdir(), 'bankdata-feed-crash-'));
      // One lane (config/local.json `sync.concurrency` 1): the consents, their accounts and units
      // one after another, so the windows before the hold are committed and most are still ahead
      // (with spare lanes, src/sync/pool.ts, every account's windows would run at once).
      mkdirSync(join(dir, 'config'));
      writeFileSync(join(dir, 'config', 'local.json'), JSON.stringify({ sync: { concurrency: 1 } }));
      const db = setup.dialect === 'sqlite' ? join(dir, 'bankdata.sqlite') : await setup.location();
      store = await openDatabaseStore(db);
      for (const id of emu.consentIds) await store.consents.add(id as ConsentId);
      env = emulatorEnv(emu, dir, { BANKDATA_DB: db, BANKDATA_LEASE_TTL_MS: '1200', BANKDATA_LEASE_RENEW_MS: '200' });
    }, 120_000);
    afterAll(async () => {
      for (const child of children)
        if (child.exitCode === null && child.signalCode === null && child.pid) process.kill(child.pid, 'SIGKILL');
      await store?.close();
      await emu?.close();
    });

    const start = () => {
      const child = spawn(process.execPath, [BIN, 'sync', '--json'], { cwd: dir, env, stdio: 'ignore' });
      children.push(child);
      return {
        child,
        exited: new Promise<number | NodeJS.Signals | null>((done) =>
          child.once('exit', (code, signal) => done(code ?? signal)),
        ),
      };
    };
    const count = async () =>
      Number((await queryRow<{ n: number }>(store, 'SELECT count(*) AS n FROM transactions'))!.n);

    it('polls while the sync runs, is whole after the kill at a known point mid-run and after the rerun', async () => {
      const consumer = new Consumer(113);
      holdArmed = true;
      const first = start();
      // The consumer polls while the sync writes, until the emulator holds the sync's requests.
      while (emu.heldRequests() === 0 && first.child.exitCode === null) {
        await consumer.poll(store);
        await new Promise((r) => setTimeout(r, 20));
      }
      await emu.whenHeld(1);
      // Held, so still running: the kill lands mid-run whatever the machine's speed.
      expect(first.child.exitCode).toBeNull();
      const rowsAtKill = await count();
      expect(rowsAtKill).toBeGreaterThan(0);
      process.kill(first.child.pid!, 'SIGKILL');
      expect(await first.exited).toBe('SIGKILL');
      emu.updateSettings({ dataRequestDelayMs: 0 });
      await feedSettled(store);
      await consumer.poll(store);
      await expectEqualToView(consumer, store);

      const second = start();
      while (second.child.exitCode === null) {
        await consumer.poll(store);
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(await second.exited).toBe(0);
      await feedSettled(store);
      await consumer.poll(store);
      await expectEqualToView(consumer, store);
      // The kill left the run unfinished: the rerun added rows the killed run had not reached.
      expect(await count()).toBeGreaterThan(rowsAtKill);
      expect(consumer.seen.added).toBeGreaterThan(rowsAtKill);
    }, 240_000);
  });
