/**
 * `sync.partyRefreshDays` counts NZ calendar days (src/sync/resources.ts `partyDue`;
 * docs/configuration.md "Keys"): party data is due again when the NZ date of now is at least the
 * NZ date of its last read plus the setting, whatever the time of day. Counted in 24-hour days, a
 * nightly at the same hour was a night late across the September DST change (a 23-hour day), and
 * whenever the run reached the party read a few seconds earlier in the day than the last one.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DateTime } from 'luxon';
import type { AccountId, BankName, ConsentId } from '@bankdata/core/schemas';
import { partyDue } from '../../src/sync/resources';
import type { SyncSettings } from '../../src/sync/run-context';
import { startHarness, type Harness } from '../fixtures/sync-harness';

const SETTINGS: SyncSettings = {
  lookbackDays: 14,
  floor: null,
  concurrency: 4,
  windowDays: 3650,
  minWindowDays: 1,
  partyRefreshDays: 7,
};

describe('a nightly at the same hour reads party data again on the 7th night', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('across the September DST change (a week of one 23-hour day)', async () => {
    h = await startHarness({ customersPerBank: 1, start: '2026-09-21T10:00:00+12:00' });
    const emu = h.emu;
    const sync = () => h!.sync({ settings: SETTINGS, now: () => emu.now().toJSDate() });
    const partyReads = (after: number) => emu.requests().filter((e) => e.seq > after && e.path === '/v1/party').length;
    expect((await sync()).outcome).toBe('ok');
    // The sixth night (2026-09-27, DST starts that morning): not due yet.
    emu.advance(DateTime.fromISO('2026-09-27T10:00:00+13:00').toMillis() - emu.now().toMillis());
    let after = emu.requests().at(-1)?.seq ?? 0;
    expect((await sync()).outcome).toBe('ok');
    expect(partyReads(after)).toBe(0);
    // The seventh night at the same wall-clock hour: 6 days and 23 hours after the last read.
    emu.advance(DateTime.fromISO('2026-09-28T10:00:00+13:00').toMillis() - emu.now().toMillis());
    after = emu.requests().at(-1)?.seq ?? 0;
    expect((await sync()).outcome).toBe('ok');
    expect(partyReads(after)).toBeGreaterThan(0);
  });
});

describe('partyDue counts NZ calendar days, not 24-hour days', () => {
  const scope = { bank: 'PNZ' as BankName, consentId: 'c-1' as ConsentId };
  const due = (last: string, now: string, partyRefreshDays = 7) =>
    partyDue(
      {
        store: { partyLastSeen: () => Promise.resolve(DateTime.fromISO(last).toUTC().toISO()) } as never,
        full: false,
        settings: { ...SETTINGS, partyRefreshDays },
        now: () => DateTime.fromISO(now).toJSDate(),
      },
      scope,
      'acc-1' as AccountId,
      false,
    );

  it('due on the 7th NZ date even a few seconds earlier in the day than the last read', async () => {
    expect(await due('2026-06-01T02:00:07+12:00', '2026-06-08T02:00:03+12:00')).toBe(true);
    expect(await due('2026-06-01T02:00:07+12:00', '2026-06-08T00:00:00+12:00')).toBe(true);
    expect(await due('2026-06-01T02:00:07+12:00', '2026-06-07T23:59:59+12:00')).toBe(false);
  });

  it('by the NZ date, not the UTC one, across both DST changes', async () => {
    // 23:30 NZDT on 30 March is 10:30Z; the 7th NZ date, 6 April (NZST from 5 April), starts at 12:00Z on the 5th.
    expect(await due('2026-03-30T23:30:00+13:00', '2026-04-06T00:10:00+12:00')).toBe(true);
    expect(await due('2026-03-30T23:30:00+13:00', '2026-04-05T23:50:00+12:00')).toBe(false);
    expect(await due('2026-09-21T10:00:00+12:00', '2026-09-28T00:00:00+13:00')).toBe(true);
  });

  it('0 days: due every run; 1 day: not again on the same NZ date', async () => {
    expect(await due('2026-06-01T02:00:00+12:00', '2026-06-01T02:00:00+12:00', 0)).toBe(true);
    expect(await due('2026-06-01T02:00:00+12:00', '2026-06-01T03:00:00+12:00', 1)).toBe(false);
  });
});
