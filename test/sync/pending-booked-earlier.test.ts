/**
 * A pending row that books under its own id with an earlier BookingDateTime than it had while
 * pending (docs/bank-api.md §6.4: a pending entry's date is the expected one and may change once
 * booked), as a bank that dates the booked card row by its purchase day, 00:00 NZ. The row stays
 * pending longer than the look-back, so each night's start is pulled back to it. Before, a night
 * started at the pending row's instant: the booked row, hours before it, was never fetched, and
 * the pending row was marked removed, a transaction the bank holds lost until a `--full`.
 *
 * The bank is the emulator with that one row's booked BookingDateTime moved to 00:00 NZ of its
 * pending day: a wrapper over the client answers every range as such a bank would.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DateTime } from 'luxon';
import type { ConsentId, Transaction } from '@bankdata/core/schemas';
import type { DataApiClient } from '../../src/api';
import type { QueryDate } from '../../src/api/endpoints/accounts';
import type { SyncSettings } from '../../src/sync/run-context';
import { startHarness, type Harness } from '../fixtures/sync-harness';

const DAY = 86_400_000;
const NZ = 'Pacific/Auckland';
const SETTINGS: SyncSettings = { lookbackDays: 14, floor: null, concurrency: 4, windowDays: 3650 };

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ customersPerBank: 1, start: '2026-10-01T10:00:00+13:00', settleDaysMax: 25 });
});
afterAll(async () => {
  await h?.close();
});

const instant = (value: QueryDate): DateTime => (typeof value === 'string' ? DateTime.fromISO(value) : value);

it('a pending row the bank books under its id at 00:00 of its pending day is fetched booked, not lost', async () => {
  const t0 = h.emu.now();
  const consentId = h.emu.consentIds.find((id) => {
    const c = h.emu.consent(id)!;
    return c.status === 'Authorised' && c.permissions.includes('ReadTransactionsDebits') && c.end_date_time! > '2027';
  })!;
  const consent = h.emu.consent(consentId)!;
  // A pending row, bought after 01:00 NZ, that books under the same id more than 15 days later
  // while it is the account's oldest open pending row (each night then starts at its day).
  let target: { bank: string; accountId: string; id: string; pendingAt: DateTime; bookedAt: DateTime } | null = null;
  const limit = t0.plus({ days: 50 });
  for (const key of consent.accountKeys) {
    const { bank, account } = h.emu.world.accounts.get(key)!;
    const seen = new Map<string, { p?: DateTime; s?: DateTime }>();
    for (let at = t0; at <= limit; at = at.plus({ hours: 6 })) {
      for (const t of h.emu.world.transactionsAt(bank, account.AccountId, at)) {
        const e = seen.get(t.TransactionId) ?? {};
        if (t.Status === 'Pending' && !e.p) e.p = DateTime.fromISO(t.BookingDateTime);
        if (t.Status === 'Booked' && e.p && !e.s) e.s = DateTime.fromISO(t.BookingDateTime);
        seen.set(t.TransactionId, e);
      }
    }
    for (const [id, e] of seen) {
      if (!e.p || !e.s || e.p < t0.minus({ days: 20 })) continue;
      if (e.s.diff(e.p, 'days').days < 16 || e.p.setZone(NZ).hour < 1) continue;
      const before = h.emu.world.transactionsAt(bank, account.AccountId, e.s.minus({ seconds: 1 }));
      if (
        before.some(
          (t) => t.Status === 'Pending' && t.TransactionId !== id && DateTime.fromISO(t.BookingDateTime) <= e.p!,
        )
      )
        continue;
      target = { bank, accountId: account.AccountId, id, pendingAt: e.p, bookedAt: e.s };
      break;
    }
    if (target) break;
  }
  expect(target, 'the world holds a pending row that books 16 days or more later').not.toBeNull();
  const x = target!;
  const bookedDate = x.pendingAt.setZone(NZ).startOf('day');

  // The bank: the emulator, with x's booked row dated 00:00 NZ of its pending day.
  const inner = h.client;
  let bookedRecord: Transaction | null = null;
  const listTransactions: DataApiClient['listTransactions'] = async (cid, accountId, range) => {
    const result = await inner.listTransactions(cid, accountId, range);
    if (accountId !== x.accountId) return result;
    const records = result.records.filter((t) => !(t.TransactionId === x.id && t.Status === 'Booked'));
    if (h.emu.now() >= x.bookedAt && bookedDate >= instant(range.from) && bookedDate <= instant(range.to)) {
      if (!bookedRecord) {
        const at = x.bookedAt.toISO()!;
        const one = await inner.listTransactions(cid, accountId, { from: at, to: at });
        const found = one.records.find((t) => t.TransactionId === x.id)!;
        bookedRecord = { ...found, BookingDateTime: bookedDate.toISO()! };
      }
      records.push(bookedRecord);
    }
    return { ...result, records };
  };
  const client = new Proxy(inner, {
    get: (target, prop, receiver) =>
      prop === 'listTransactions' ? listTransactions : (Reflect.get(target, prop, receiver) as unknown),
  });
  const sync = () =>
    h.sync({ settings: SETTINGS, client, now: () => h.emu.now().toJSDate(), consentIds: [consentId as ConsentId] });

  // The backfill stores x pending; then a run every night until two days after it booked.
  expect((await sync()).outcome).toBe('ok');
  const row = () =>
    h.store.sqlite
      .prepare(
        'SELECT status, booking_date_time, removed_at FROM transactions WHERE bank = ? AND account_id = ? AND transaction_id = ?',
      )
      .get(x.bank, x.accountId, x.id) as { status: string; booking_date_time: string; removed_at: string | null };
  expect(row().status).toBe('Pending');
  while (h.emu.now() < x.bookedAt.plus({ days: 2 })) {
    h.emu.advance(DAY);
    expect((await sync()).outcome).toBe('ok');
  }
  // The bank holds x booked (at 00:00 of its pending day); so does the database.
  expect(row()).toEqual({ status: 'Booked', booking_date_time: bookedDate.toUTC().toISO(), removed_at: null });
});
