/**
 * One page where one page holds the night (docs/configuration.md "Sync windows", look-back of a
 * later run): after a backfill, the next night's transactions request of every account is
 * answered in one page, though the full look-back (`sync.lookbackDays`) of the denser accounts
 * holds more rows than a page (they would read a second page); nothing is lost (the database
 * holds exactly the world's rows) and each request still reaches back to the account's oldest
 * open pending row and `sync.minLookbackDays`. Counted from the emulator's request log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DateTime } from 'luxon';
import { createDataApiClient } from '../../src/api';
import type { SyncSettings } from '../../src/sync/run-context';
import { kindOf } from '../bench/sync-support/bench-world';
import { expectedTransactions, startHarness, storedTransactions, type Harness } from '../fixtures/sync-harness';

const DAY_MS = 86_400_000;
/**
 * The emulator's page and the client's `sync.pageSize`, set alike: 20 rows, so that the densest
 * accounts of this small world (about 2.7 rows a day) fill more than a page in 15 days.
 */
const PAGE = 20;
const SETTINGS: SyncSettings = {
  lookbackDays: 14,
  minLookbackDays: 3,
  pageSize: PAGE,
  floor: null,
  concurrency: 8,
  windowDays: 3650,
  minWindowDays: 1,
  partyRefreshDays: 7,
};

describe('a nightly fetch of an account needs one page where one page holds it', () => {
  let h: Harness;
  const client = () =>
    createDataApiClient({ baseUrl: h.emu.baseUrl, clientId: h.emu.clientId, clientSecret: h.emu.clientSecret });
  const sync = () => h.sync({ settings: SETTINGS, client: client(), now: () => h.emu.now().toJSDate() });

  beforeAll(async () => {
    h = await startHarness({ customersPerBank: 2, start: '2026-03-10T10:00:00+13:00' });
    h.emu.updateSettings({ pageSize: PAGE });
    expect((await sync()).outcome).toBe('ok');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('one day later: one request per account, none with a page, each from at most the full look-back and no later than the minimum look-back and the oldest open pending row', async () => {
    const watermarks = new Map(
      (
        h.store.sqlite
          .prepare(
            "SELECT consent_id, account_id, watermark, rows_per_day FROM sync_state WHERE resource = 'transactions'",
          )
          .all() as { consent_id: string; account_id: string; watermark: string; rows_per_day: number | null }[]
      ).map((r) => [`${r.consent_id}|${r.account_id}`, r]),
    );
    // The accounts whose full look-back (the night and 14 days) holds more rows than one page:
    // without sizing they read a second page.
    const dense = [...watermarks.values()].filter((r) => (r.rows_per_day ?? 0) * (SETTINGS.lookbackDays + 1) > PAGE);
    expect(dense.length).toBeGreaterThan(0);
    const pending = new Map(
      (
        h.store.sqlite
          .prepare(
            "SELECT account_id, min(booking_date_time) AS oldest FROM transactions WHERE status = 'Pending' AND removed_at IS NULL GROUP BY account_id",
          )
          .all() as { account_id: string; oldest: string }[]
      ).map((r) => [r.account_id, r.oldest]),
    );

    h.emu.advance(DAY_MS);
    const after = h.emu.requests().at(-1)?.seq ?? 0;
    expect((await sync()).outcome).toBe('ok');
    const log = h.emu.requests().filter((e) => e.seq > after && kindOf(e) === 'transactions');
    expect(log.length).toBeGreaterThan(0);
    expect(log.filter((e) => e.query.page !== undefined)).toEqual([]);
    expect(log.every((e) => e.status === 200)).toBe(true);
    expect(new Set(log.map((e) => `${e.consent_id}|${e.account_id}`)).size).toBe(log.length);
    for (const e of log) {
      const state = watermarks.get(`${e.consent_id}|${e.account_id}`)!;
      const from = DateTime.fromISO(e.query.fromBookingDateTime!).toMillis();
      const watermark = Date.parse(state.watermark);
      expect(from).toBeGreaterThanOrEqual(watermark - (SETTINGS.lookbackDays + 1) * DAY_MS);
      expect(from).toBeLessThanOrEqual(watermark - SETTINGS.minLookbackDays! * (DAY_MS - 3_600_000));
      const oldest = pending.get(e.account_id!);
      if (oldest !== undefined) expect(from).toBeLessThanOrEqual(Date.parse(oldest));
    }
    // Nothing lost: the database holds the world's rows as the bank shows them now.
    const expected = expectedTransactions(h.emu);
    const stored = await storedTransactions(h.store);
    expect([...stored.keys()].sort()).toEqual([...expected.keys()].sort());
  });
});
