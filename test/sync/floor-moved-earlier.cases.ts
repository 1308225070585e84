/**
 * The history floor moved earlier between runs (docs/configuration.md "Sync rules": floor = the
 * latest of the consent's start, now − `max_history_days` and `sync.floor`; "Sync windows": the
 * floor reached). A bank's `max_history_days` that grows or becomes null, or a `sync.floor`
 * lowered in the configuration, lets a consent read older rows than its backfill reached; a later
 * run starts at watermark − look-back, so before the fix nothing read them and every run was ok.
 * Now the run also reads [new floor, floor reached] before its usual range, and records the new
 * floor only once every window of that range committed (a failed one is read again next run).
 *
 * The bank is the emulator behind a proxy (test/fixtures/bank-proxy.ts) whose `rewrite` sets
 * /v1/meta's `max_history_days`; the emulator itself serves its whole history (PNZ: none).
 *
 * One suite, both dialects (../support/dialects.ts): floor-moved-earlier.test.ts runs it on SQLite,
 * floor-moved-earlier.pg.test.ts on PostgreSQL.
 */
import { afterEach, expect, it } from 'vitest';
import { DateTime } from 'luxon';
import type { RequestLogEntry } from '@bankdata/emulator';
import { toInstant } from '@bankdata/core/nz-time';
import { createDataApiClient, type DataApiClient } from '../../src/api';
import { formatQueryDate } from '../../src/api/endpoints/accounts';
import type { Store } from '../../src/store';
import { planDryRun } from '../../src/sync/dry-run';
import type { SyncSettings } from '../../src/sync/run-context';
import type { DialectSetup } from '../support/dialects';
import { startBankProxy, type BankProxy } from '../fixtures/bank-proxy';
import { windowOf } from '../fixtures/request-log';
import { startHarnessOn, storedTransactions, type Harness } from '../fixtures/sync-harness';
import { truthTransactions } from '../fixtures/sync-truth';
import { bankDown, overriding } from '../fixtures/client-overrides';

const DAY = 86_400_000;
const SETTINGS: SyncSettings = { lookbackDays: 14, floor: null, concurrency: 4, windowDays: 3650, minWindowDays: 1 };

type Meta = { features: { max_history_days: number | null } }[];

export function floorMovedEarlierSuite(setup: DialectSetup): void {
  setup.describe('the history floor moved earlier between runs', () => {
    let h: Harness<Store> | undefined;
    let proxy: BankProxy | undefined;
    afterEach(async () => {
      await proxy?.close();
      await h?.close();
      proxy = undefined;
      h = undefined;
    });

    it('max_history_days 30 then null: the older rows the bank serves are read, once', async () => {
      h = await startHarnessOn(await setup.location(), {
        customersPerBank: 1,
        start: '2026-06-10T10:00:00+12:00',
      });
      const emu = h.emu;
      proxy = await startBankProxy(emu);
      let history: number | null = 30;
      proxy.rewrite = (path, body) =>
        path !== '/v1/meta'
          ? body
          : (body as Meta).map((b) => ({ ...b, features: { ...b.features, max_history_days: history } }));
      const client = createDataApiClient({
        baseUrl: proxy.baseUrl,
        clientId: emu.clientId,
        clientSecret: emu.clientSecret,
        retry: { baseDelayMs: 1, maxDelayMs: 5 },
      });
      const sync = () => h!.sync({ settings: SETTINGS, now: () => emu.now().toJSDate(), client });
      expect((await sync()).outcome).toBe('ok');
      history = null;
      emu.advance(DAY);
      let mark = lastSeq(emu);
      expect((await sync()).outcome).toBe('ok');
      const lookback = () => emu.now().minus({ days: SETTINGS.lookbackDays + 1 });
      expect(transactionWindows(emu, mark).filter((w) => w.from < lookback()).length).toBeGreaterThan(0);
      emu.advance(DAY);
      mark = lastSeq(emu);
      expect((await sync()).outcome).toBe('ok');
      // Read once: the third run asks nothing before its look-back.
      expect(transactionWindows(emu, mark).filter((w) => w.from < lookback())).toEqual([]);
      const stored = await storedTransactions(h.store);
      expect([...truthTransactions(emu).keys()].filter((k) => !stored.has(k))).toEqual([]);
    });

    it('sync.floor lowered: the run reads from the new floor; a failed backfill is read again; then nightlies only', async () => {
      h = await startHarnessOn(await setup.location(), {
        customersPerBank: 1,
        start: '2026-06-10T10:00:00+12:00',
      });
      const emu = h.emu;
      const bank = { failBefore: null as DateTime | null };
      const client = failingBefore(h.client, bank);
      const sync = (floor: string) =>
        h!.sync({ settings: { ...SETTINGS, floor }, now: () => emu.now().toJSDate(), client });
      const missing = async (floor: string) => {
        const stored = await storedTransactions(h!.store);
        return [...truthTransactions(emu, { floor }).keys()].filter((k) => !stored.has(k));
      };
      const [OLD, NEW] = ['2026-04-01', '2026-01-01'];
      const oldFloor = DateTime.fromISO(OLD, { zone: 'Pacific/Auckland' });
      const newFloor = DateTime.fromISO(NEW, { zone: 'Pacific/Auckland' });
      // The lowered floor lets the consents read rows the first runs did not.
      expect(truthTransactions(emu, { floor: NEW }).size).toBeGreaterThan(truthTransactions(emu, { floor: OLD }).size);

      expect((await sync(OLD)).outcome).toBe('ok');
      expect(await missing(OLD)).toEqual([]);
      emu.advance(DAY);
      expect((await sync(OLD)).outcome).toBe('ok');

      // The floor lowered: the dry run lists the backfill from it, as the run then asks it.
      emu.advance(DAY);
      const plan = await planDryRun({
        store: h.store,
        client: h.client,
        settings: { ...SETTINGS, floor: NEW },
        now: () => emu.now().toJSDate(),
      });
      const planned = plan.consents.flatMap((c) => c.requests).filter((r) => r.includes('/transactions?'));
      const fromNew = `fromBookingDateTime=${encodeURIComponent(newFloor.toUTC().toISO({ suppressMilliseconds: true })!)}`;
      expect(planned.filter((r) => r.includes(fromNew)).length).toBeGreaterThan(0);

      // The bank fails every request before the old floor: the run is partial, nothing recorded.
      bank.failBefore = oldFloor;
      let mark = lastSeq(emu);
      expect((await sync(NEW)).outcome).toBe('partial');
      expect(await missing(NEW)).not.toEqual([]);
      expect(await missing(OLD)).toEqual([]);

      // The next run reads it again, from the new floor, and holds every row.
      bank.failBefore = null;
      emu.advance(DAY);
      mark = lastSeq(emu);
      expect((await sync(NEW)).outcome).toBe('ok');
      // As the dry run said: the accounts it would read from the new floor are those the run read from it.
      const readFromNew = emu
        .requests()
        .filter((e) => e.seq > mark && windowOf(e)?.from.equals(newFloor.toUTC()) === true)
        .map((e) => `${e.consent_id}|${e.account_id}`);
      expect(readFromNew.length).toBeGreaterThan(0);
      expect(new Set(readFromNew)).toEqual(
        new Set(
          planned
            .filter((r) => r.includes(fromNew))
            .map((r) => {
              const [, account, consent] = /\/v1\/accounts\/([^/]+)\/transactions\?consent_id=([^&]+)/.exec(r)!;
              return `${consent}|${decodeURIComponent(account!)}`;
            }),
        ),
      );
      expect(await missing(NEW)).toEqual([]);

      // Then nightlies only: nothing asked before the look-back, by the run and by the dry run.
      emu.advance(DAY);
      mark = lastSeq(emu);
      const next = await planDryRun({
        store: h.store,
        client: h.client,
        settings: { ...SETTINGS, floor: NEW },
        now: () => emu.now().toJSDate(),
      });
      expect(next.consents.flatMap((c) => c.requests).filter((r) => r.includes(fromNew))).toEqual([]);
      expect((await sync(NEW)).outcome).toBe('ok');
      const lookback = emu.now().minus({ days: SETTINGS.lookbackDays + 1 });
      expect(transactionWindows(emu, mark).filter((w) => w.from < lookback)).toEqual([]);
      expect(await missing(NEW)).toEqual([]);
    });
  });
}

function lastSeq(emu: { requests(): RequestLogEntry[] }): number {
  return emu.requests().at(-1)?.seq ?? 0;
}

/** The transactions windows asked after request `after`. */
function transactionWindows(emu: { requests(): RequestLogEntry[] }, after: number): { from: DateTime; to: DateTime }[] {
  return emu
    .requests()
    .filter((e) => e.seq > after)
    .flatMap((e) => {
      const w = windowOf(e);
      return w === null ? [] : [w];
    });
}

/** The client, its transactions requests failing (503) while they ask before `bank.failBefore`. */
function failingBefore(client: DataApiClient, bank: { failBefore: DateTime | null }): DataApiClient {
  return overriding(client, {
    listTransactions:
      (real) =>
      (...args) => {
        const from = toInstant(formatQueryDate(args[2].from));
        if (bank.failBefore !== null && from < bank.failBefore) throw bankDown();
        return real(...args);
      },
  });
}
