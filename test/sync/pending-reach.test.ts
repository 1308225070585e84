/**
 * A consent's nightly counts only the rows its fetches can return again (src/sync/transactions.ts):
 * a pending row before its range's floor, after its end or of the indicator its Credits/Debits
 * filter leaves out neither moves its start back nor keeps an ended consent read (`pendingReach`),
 * and the rows that size its look-back are of its indicator. The store is a stub applying what it
 * is asked to lists of rows (the SQL itself: test/store/window-commit.cases.ts, store-ops.cases.ts).
 */
import { expect, it } from 'vitest';
import { DateTime } from 'luxon';
import type { PendingReach } from '../../src/store';
import { syncTransactions, transactionRange } from '../../src/sync/transactions';

interface Pending {
  at: string;
  indicator: 'Credit' | 'Debit';
}

const utc = (iso: string) => DateTime.fromISO(iso, { setZone: true }).toUTC().toISO()!;

function stubContext(options: {
  now: string;
  watermark: string;
  pending: Pending[];
  floor?: string;
  /** Debit rows held in the look-back, at noon of the days before the watermark. */
  debitsHeld?: number;
}) {
  const asked: unknown[] = [];
  const debits = Array.from(
    { length: options.debitsHeld ?? 0 },
    (_, i) => Date.parse(options.watermark) - (1 + (i % 13)) * 86_400_000,
  ).sort((a, b) => a - b);
  const store = {
    rowTimesSince: (key: { indicator?: 'Credit' | 'Debit' | null; limit: number }) =>
      Promise.resolve(key.indicator === 'Credit' ? [] : debits.slice(-key.limit)),
    syncState: {
      // The transactions' watermark; a complete read (`transactions_read`) at the stub's now; the
      // floor reached (`transactions_floor`) long before any floor, so nothing is read back to.
      getWatermark: (key: { resource?: string }) =>
        Promise.resolve(
          utc(
            key.resource === 'transactions_read'
              ? options.now
              : key.resource === 'transactions_floor'
                ? '2000-01-01T00:00:00Z'
                : options.watermark,
          ),
        ),
      getRowsPerDay: () => Promise.resolve(options.debitsHeld ? 4 : 1),
      oldestOpenPending: (_key: unknown, reach: PendingReach = {}) => {
        const ms = (v: unknown) => (v === undefined ? null : new Date(v as Date).getTime());
        const [from, to] = [ms(reach.from), ms(reach.to)];
        const open = options.pending
          .filter((p) => from === null || Date.parse(p.at) >= from)
          .filter((p) => to === null || Date.parse(p.at) <= to)
          .filter((p) => !reach.indicator || p.indicator === reach.indicator)
          .map((p) => utc(p.at))
          .sort();
        return Promise.resolve(open[0] ?? null);
      },
      getWindowKnowledge: () => {
        asked.push('transactions read');
        // The run stops here; the rejection may be held by a cache no one awaits again.
        const stop = Promise.reject(new Error('stop here: the account is read'));
        stop.catch(() => undefined);
        return stop;
      },
    },
  };
  const ctx = {
    store,
    client: { serverNow: () => null },
    since: null,
    full: false,
    counters: {},
    settings: { lookbackDays: 14, windowDays: 3650, floor: options.floor ?? null, concurrency: 1 },
    now: () => new Date(options.now),
    logger: { debug: () => asked.push('not read') },
  };
  return { ctx, asked };
}

const bank = { name: 'PNZ', features: { max_history_days: null } };

it('a nightly starts at its look-back, not at the floor, for a pending row stored before sync.floor', async () => {
  const { ctx } = stubContext({
    now: '2026-06-10T02:00:00+12:00',
    watermark: '2026-06-09T02:00:00+12:00',
    floor: '2026-03-01',
    pending: [{ at: '2026-02-27T10:00:00+13:00', indicator: 'Debit' }],
  });
  const consent = { consentId: 'c1', startDateTime: '2025-01-01T00:00:00+13:00', endDateTime: null, permissions: [] };
  const range = await transactionRange(ctx as never, consent as never, bank as never, 'acc-1' as never);
  expect(range!.start.setZone('Pacific/Auckland').toISO()).toBe('2026-05-26T02:00:00.000+12:00');
});

it('a Debits-only consent does not read back to a pending credit it can never return', async () => {
  const { ctx } = stubContext({
    now: '2026-06-10T02:00:00+12:00',
    watermark: '2026-06-09T02:00:00+12:00',
    pending: [{ at: '2026-04-01T10:00:00+13:00', indicator: 'Credit' }],
  });
  const consent = {
    consentId: 'c1',
    startDateTime: '2025-01-01T00:00:00+13:00',
    endDateTime: null,
    permissions: ['ReadAccountsDetail', 'ReadTransactionsDetail', 'ReadTransactionsDebits'],
  };
  const range = await transactionRange(ctx as never, consent as never, bank as never, 'acc-1' as never);
  expect(range!.start.setZone('Pacific/Auckland').toISO()).toBe('2026-05-26T02:00:00.000+12:00');
});

it('an ended consent whose rows settled is not read for a pending row after its end (another consent’s)', async () => {
  const end = '2026-01-31T23:59:59+13:00';
  const consent = { consentId: 'c-old', startDateTime: '2025-01-01T00:00:00+13:00', endDateTime: end, permissions: [] };
  const run = async (pending: Pending[]) => {
    const { ctx, asked } = stubContext({ now: '2026-03-10T02:00:00+13:00', watermark: end, pending });
    await syncTransactions(
      ctx as never,
      { consentId: 'c-old', accountId: 'acc-1', bank: 'PNZ' } as never,
      consent as never,
      bank as never,
      null,
      null,
    ).catch(() => undefined);
    return asked;
  };
  expect(await run([{ at: '2026-03-08T09:00:00+13:00', indicator: 'Debit' }])).toEqual(['not read']);
  // One it can read again (before its end) still keeps it read.
  expect(await run([{ at: '2026-01-30T09:00:00+13:00', indicator: 'Debit' }])).toEqual(['transactions read']);
});

it('a Credits-only consent keeps its whole look-back when the account’s debits would fill a page', async () => {
  const { ctx } = stubContext({
    now: '2026-06-10T02:00:00+12:00',
    watermark: '2026-06-09T02:00:00+12:00',
    pending: [],
    debitsHeld: 60,
  });
  const consent = (permissions: string[]) => ({
    consentId: 'c1',
    startDateTime: '2025-01-01T00:00:00+13:00',
    endDateTime: null,
    permissions: ['ReadAccountsDetail', 'ReadTransactionsDetail', ...permissions],
  });
  const start = async (permissions: string[]) =>
    (await transactionRange(ctx as never, consent(permissions) as never, bank as never, 'acc-1' as never))!.start
      .setZone('Pacific/Auckland')
      .toISO();
  // Its night holds no debit: 14 days back. A consent that reads the debits: shortened.
  expect(await start(['ReadTransactionsCredits'])).toBe('2026-05-26T02:00:00.000+12:00');
  expect(await start([])).not.toBe('2026-05-26T02:00:00.000+12:00');
});
