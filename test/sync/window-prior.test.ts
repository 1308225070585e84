/**
 * The first transaction window of an account never read (docs/configuration.md "Sync windows"):
 * sized from what is already known of the bank, so that BDT263 stays rare. While no refusal has
 * taught the bank's limit, one account at a time asks a window that may be over it (the others
 * wait for what its refusal teaches); once the limit is known, or stored from an earlier run, a
 * new account's first window is sized at the same account's rows per day read through another
 * consent, else at the densest account of its kind (type and subtype), else of the bank.
 * Judged from the emulator's request log; every run still stores exactly the world's rows.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccountId, ConsentId } from '@bankdata/core/schemas';
import type { RequestLogEntry } from '@bankdata/emulator';
import { openStore, type SqliteStore } from '../../src/store';
import { runSync } from '../../src/sync/run';
import { toAccountRow } from '../../src/sync/transform';
import { accountKey } from '@bankdata/emulator/world-types';
import { windowOf } from '../fixtures/request-log';
import { SETTINGS, startHarness, storedTransactions, type Harness } from '../fixtures/sync-harness';
import { expectSameTransactions, truthTransactions } from '../fixtures/sync-truth';
import { authorise } from '../store/helpers';

/** Windows up to ten years: an account nothing is known about is asked for its whole range. */
const WIDE = { ...SETTINGS, windowDays: 3650 };

describe('the first window of an account never read (BDT263)', () => {
  let h: Harness;
  /** The two consents with the densest accounts (the same three accounts, read through each). */
  let dense: ConsentId[];
  /** The bank's limit in this test: below the whole range of the two denser accounts. */
  const limit = 300;
  /** The most rows per day of any account over its range. */
  let densest = 0;
  /** The dense consents' accounts whose whole range fits well under the limit (a third of it). */
  let sparse: AccountId[] = [];
  const stores: SqliteStore[] = [];

  beforeAll(async () => {
    // Big pages keep the runs short; BDT263 is judged on first pages only. A fixed start: the
    // world is made around it, so the default (the real clock) changed the rows by time of day.
    h = await startHarness({ pageSize: 5000, start: '2026-03-10T10:00:00+13:00' });
    const now = h.emu.now().toMillis();
    const rowsOf = (id: string) => {
      const perAccount = new Map<string, number[]>();
      for (const [key, row] of truthTransactions(h.emu, { consentIds: [id] })) {
        const accountId = key.split('|')[1]!;
        perAccount.set(accountId, [...(perAccount.get(accountId) ?? []), row.bookingMs]);
      }
      return perAccount;
    };
    dense = h.emu.consentIds.filter(
      (id) => [...rowsOf(id).values()].filter((rows) => rows.length > limit).length >= 2,
    ) as ConsentId[];
    expect(dense).toHaveLength(2);
    const most = new Map<string, number>();
    for (const [accountId, rows] of dense.flatMap((id) => [...rowsOf(id)])) {
      densest = Math.max(densest, rows.length / ((now - Math.min(...rows)) / 86_400_000));
      most.set(accountId, Math.max(most.get(accountId) ?? 0, rows.length));
    }
    sparse = [...most].filter(([, rows]) => rows <= limit / 3).map(([accountId]) => accountId as AccountId);
    expect(sparse.length).toBeGreaterThan(0);
    h.emu.updateSettings({ maxResultSize: { PNZ: limit } });
  });
  afterAll(async () => {
    for (const store of stores) await store.close();
    await h?.close();
  });

  /** One backfill of the dense consents into a new store (after `prepare`); its refused first pages. */
  async function backfill(prepare: (store: SqliteStore) => Promise<void> = async () => {}) {
    const store = await openStore(join(mkdtempSync(join(tmpdir(), 'bankdata-prior-')), 'bankdata.sqlite'));
    stores.push(store);
    for (const id of dense) await store.consents.add(id);
    await prepare(store);
    const after = h.emu.requests().at(-1)?.seq ?? 0;
    const summary = await runSync({
      store,
      client: h.client,
      dataDir: join(h.dir, `data-${stores.length}`),
      settings: WIDE,
      consentIds: dense,
    });
    expect(summary.outcome).toBe('ok');
    expectSameTransactions(await storedTransactions(store), truthTransactions(h.emu, { consentIds: dense }));
    const firstPages = h.emu
      .requests()
      .filter((e: RequestLogEntry) => e.seq > after && windowOf(e) !== null && !e.query.page);
    // Each account's first window through each consent (the log is in arrival order).
    const firstWindows = new Map<string, RequestLogEntry>();
    for (const e of firstPages)
      if (!firstWindows.has(`${e.consent_id}|${e.account_id}`)) firstWindows.set(`${e.consent_id}|${e.account_id}`, e);
    // Each account's windows through each consent.
    const windows = new Map<string, Set<string>>();
    for (const e of firstPages) {
      const key = `${e.consent_id}|${e.account_id}`;
      windows.set(key, (windows.get(key) ?? new Set()).add(JSON.stringify(windowOf(e))));
    }
    return {
      store,
      firstPages,
      refused: firstPages.filter((e) => e.code === 'BDT263'),
      firstWindows: [...firstWindows.values()],
      windowsOf: (accountId: string) => dense.map((id) => windows.get(`${id}|${accountId}`)?.size ?? 0),
    };
  }

  it('while the limit is unknown, one account learns it from BDT263 and the other lane waits: one first window refused, not one per lane', async () => {
    const { store, firstPages, refused, firstWindows } = await backfill();
    expect(refused.length).toBeGreaterThan(0);
    expect(firstWindows.length).toBe(6);
    // Before this rule both lanes' first accounts were refused their whole range at once. Once a
    // window was accepted the limit is bracketed, and a later first window is sized from what was
    // read so far (an account's density can still rise after it: a miss then is a sizing one).
    const firstAccepted = Math.min(...firstPages.filter((e) => e.status === 200).map((e) => e.seq));
    expect(firstWindows.filter((e) => e.code === 'BDT263' && e.seq < firstAccepted)).toHaveLength(1);
    const known = await store.syncState.getWindowKnowledge('PNZ');
    expect(known.minRefusedRows!).toBeGreaterThan(limit);
  });

  it("a stored limit and the densest stored account's rows per day size a new account's first window: no BDT263", async () => {
    const { refused } = await backfill(async (store) => {
      await store.syncState.recordWindowKnowledge('PNZ', { acceptedRows: limit, refusedRows: limit + 1 });
      // Learned in an earlier run through another consent: no account of this run has its own.
      await store.syncState.setRowsPerDay({
        bank: 'PNZ',
        accountId: 'acc-earlier' as AccountId,
        consentId: '00000000-0000-4000-8000-000000000000' as ConsentId,
        rowsPerDay: densest,
      });
    });
    expect(refused).toEqual([]);
    // Before this rule the prior was only the densest account read in this run: none yet.
  });

  /**
   * Earlier runs knew the bank's limit, and an account of the bank as dense as the densest here,
   * read through EARLIER, a consent they read (its permissions stored: no Credits/Debits filter).
   */
  async function knownBank(store: SqliteStore): Promise<void> {
    await store.consents.add(EARLIER);
    await authorise(store, EARLIER);
    await store.syncState.recordWindowKnowledge('PNZ', { acceptedRows: limit, refusedRows: limit + 1 });
    await store.syncState.setRowsPerDay({
      bank: 'PNZ',
      accountId: 'acc-earlier' as AccountId,
      consentId: EARLIER,
      rowsPerDay: densest,
    });
  }
  /** A consent of an earlier run, not synced in this one. */
  const EARLIER = '00000000-0000-4000-8000-000000000000' as ConsentId;
  /** Rows per day no sparse account reaches over its range (a third of the limit over 400 days). */
  const quiet = limit / 3 / 400;

  it('an account read through another consent: its own rows per day size its first window, its whole range in one', async () => {
    const { refused, windowsOf } = await backfill(async (store) => {
      await knownBank(store);
      for (const accountId of sparse)
        await store.syncState.setRowsPerDay({ bank: 'PNZ', accountId, consentId: EARLIER, rowsPerDay: quiet });
    });
    expect(refused).toEqual([]);
    // Before, the bank's densest account sized it: several windows for rows one page holds.
    for (const accountId of sparse) expect(windowsOf(accountId)).toEqual([1, 1]);
  });

  it("an account of a kind read before (type and subtype): its kind's rows per day size its first window", async () => {
    const { refused, windowsOf } = await backfill(async (store) => {
      await knownBank(store);
      for (const [i, accountId] of sparse.entries()) {
        const { account } = h.emu.world.accounts.get(accountKey('PNZ', accountId))!;
        const kin = `acc-kin-${i}` as AccountId;
        const ctx = { bank: 'PNZ' as const, consentId: EARLIER, fetchedAt: new Date() };
        await store.commitAccounts({ ...ctx, rows: [toAccountRow({ ...account, AccountId: kin }, ctx)], runId: null });
        await store.syncState.setRowsPerDay({ bank: 'PNZ', accountId: kin, consentId: EARLIER, rowsPerDay: quiet });
      }
    });
    expect(refused).toEqual([]);
    for (const accountId of sparse) expect(windowsOf(accountId)).toEqual([1, 1]);
  });
});
