/**
 * What the sync asks for, judged from the emulator's request log (docs/configuration.md "Sync rules"):
 * nothing the bank's meta lacks, no transactions range outside the consent window, the bank's
 * history or its today, nothing more on a consent once it is known to have ended, only the
 * consent read for one not yet authorised; and BDT263 splits down to one NZ day, a day still
 * too large being a failed unit, with the window size that worked remembered per bank.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DateTime } from 'luxon';
import { ENDPOINT_RESOURCE } from '@bankdata/core/endpoint-access';
import { NZ_ZONE, addNzDays, nzDateOf, nzMidnight } from '@bankdata/core/nz-time';
import { BANKS, type BankMeta, type BankName, type ConsentId } from '@bankdata/core/schemas';
import type { RequestLogEntry } from '@bankdata/emulator';
import { metaFor } from '@bankdata/emulator/bank-meta';
import type { SyncSummary } from '../../src/sync/run';
import { windowSpanDays } from '../../src/sync/windows';
import { consentOf, endpointOf, requestHook, windowOf } from '../fixtures/request-log';
import { SETTINGS, startHarness, storedTransactions, type Harness } from '../fixtures/sync-harness';
import { expectSameTransactions, truthTransactions } from '../fixtures/sync-truth';

const ENDED_STATUSES = new Set(['Rejected', 'Revoked', 'Consumed', 'GatewayTimeout']);
/** Answers that say the consent has ended (docs/bank-api.md §7.3): nothing may follow them. */
const ENDED_CODES = new Set(['BDT009', 'BDT013', 'BDT101', 'BDT409', 'BDT410', 'BDT412', 'BDT415']);
const META = new Map<string, BankMeta>(metaFor('production', true).map((b) => [b.name, b]));
const ms = (iso: string) => DateTime.fromISO(iso).toMillis();

describe('sync gating in production (seven banks, every seeded consent)', () => {
  let h: Harness;
  let runs: SyncSummary[];
  let log: RequestLogEntry[];
  /** Ended mid-run: ASB's full consent by the bank (BDT415), Kiwibank's by the customer (BDT410). */
  let unusable: string;
  let cancelled: string;
  let cancelling: Promise<Response> | null = null;
  const bankOf = (entry: RequestLogEntry) => h.emu.consent(consentOf(entry)!)!.bank;
  const fullConsentOf = (bank: BankName) =>
    h.emu.consentIds.find((id) => {
      const c = h.emu.consent(id)!;
      const lasting = c.expiration_date_time && ms(c.expiration_date_time) > h.emu.now().plus({ days: 30 }).toMillis();
      return c.bank === bank && c.status === 'Authorised' && c.permissions.includes('ReadPartyAuthUser') && lasting;
    })!;
  const control = (path: string) => fetch(`${h.emu.baseUrl}/__emulator/${path}`, { method: 'POST' });

  beforeAll(async () => {
    // Long windows and big pages keep the run short (the store commits row by row); the rules
    // judged bite at each account's first and last window, which are the same at any size.
    h = await startHarness({
      environment: 'production',
      customersPerBank: 1,
      pageSize: 5000,
      maxResultSize: Object.fromEntries(BANKS.map((b) => [b, 100_000])),
      // The customer cancels at the bank while the sync reads the consent's transactions.
      logger: requestHook((entry) => {
        if (!cancelling && entry.consent_id === cancelled && endpointOf(entry.path) === 'transactions') {
          cancelling = control(`consents/${cancelled}/cancel`);
        }
      }),
    });
    expect(h.emu.consentIds.length).toBe(70);
    unusable = fullConsentOf('ASB');
    cancelled = fullConsentOf('Kiwibank');
    expect((await control(`consents/${unusable}/bank-unusable`)).ok).toBe(true);
    const settings = { ...SETTINGS, windowDays: 400 };
    const first = await h.sync({ settings });
    // Two days later: pending settle, a consent expires, awaiting consents time out.
    h.emu.advance(2 * 24 * 3600 * 1000);
    const second = await h.sync({ settings });
    expect((await cancelling)?.ok).toBe(true);
    runs = [first, second];
    log = h.emu.requests();
  }, 120_000);
  afterAll(async () => {
    await h?.close();
  });

  it('both runs finish ok: skipping ended and awaiting consents is not a failure', () => {
    for (const run of runs) {
      expect(run.counters.failedUnits).toEqual([]);
      expect(run.outcome).toBe('ok');
    }
    expect(runs[0]!.needsReconsent).toEqual(expect.arrayContaining([unusable, cancelled]));
    // The only error answers: the two consents ended mid-run, and the token the data clock
    // expired while it moved two days (the client's cache runs on the local clock), renewed.
    const errors = log.filter((e) => e.status >= 400);
    const refusals = errors.filter((e) => e.status !== 401).map((e) => [consentOf(e), e.status, e.code]);
    expect(refusals.sort((a, b) => String(a[2]).localeCompare(String(b[2])))).toEqual([
      [cancelled, 422, 'BDT410'],
      [unusable, 422, 'BDT415'],
    ]);
    for (const denied of errors.filter((e) => e.status === 401)) {
      const next = log.find(
        (e) => e.seq > denied.seq && e.path === denied.path && e.query.consent_id === denied.query.consent_id,
      );
      expect(next?.status).toBe(200);
    }
  });

  it('never requests a resource the bank does not offer in /v1/meta (501 never reached)', () => {
    const violations = log.flatMap((e) => {
      const endpoint = endpointOf(e.path);
      const feature = endpoint && endpoint !== 'token' ? ENDPOINT_RESOURCE[endpoint] : undefined;
      if (!feature) return [];
      const bank = bankOf(e);
      return META.get(bank)!.features.resources[feature] ? [] : [`${bank} ${e.method} ${e.path}`];
    });
    expect(violations).toEqual([]);

    // The rule was exercised: ASB lacks statements, NZHL statement files, PNZ lacks nothing.
    const requested = (bank: BankName, endpoint: string) =>
      log.filter((e) => endpointOf(e.path) === endpoint && bankOf(e) === bank).length;
    expect(requested('ASB', 'transactions')).toBeGreaterThan(0);
    expect(requested('ASB', 'statements')).toBe(0);
    expect(requested('NZHL', 'statements')).toBeGreaterThan(0);
    expect(requested('NZHL', 'statement_file')).toBe(0);
    expect(requested('PNZ', 'statement_file')).toBeGreaterThan(0);
    // The skips carry their reason.
    expect(runs[0]!.counters.skipped.some((s) => s.resource === 'statements' && s.reason.includes('ASB'))).toBe(true);
  });

  it('asks transactions only inside the consent window, the bank history and the bank today (BDT236, BDT238)', () => {
    const violations: string[] = [];
    const windows = log.filter((e) => windowOf(e) !== null);
    expect(windows.length).toBeGreaterThan(50);
    for (const e of windows) {
      const { from, to } = windowOf(e)!;
      const consent = h.emu.consent(consentOf(e)!)!;
      const days = META.get(consent.bank)!.features.max_history_days;
      const now = DateTime.fromISO(e.time, { setZone: true });
      const say = (rule: string) =>
        violations.push(`${consent.bank} ${consent.consent_id} ${from.toISO()}..${to.toISO()}: ${rule}`);
      if (to < from) say('to before from');
      if (from.toMillis() < ms(consent.start_date_time)) say('from before the consent start');
      if (consent.end_date_time && to.toMillis() > ms(consent.end_date_time)) say('to after the consent end');
      if (days !== null && from < now.setZone(NZ_ZONE).minus({ days })) say(`from older than now − ${days} days`);
      if (nzDateOf(to) > nzDateOf(now)) say('to after the bank today (NZ date)');
    }
    expect(violations).toEqual([]);

    // ANZ keeps 365 days and its full consent started earlier: the floor is the bank's history.
    const anz = windows.filter((e) => bankOf(e) === 'ANZ' && e.seq <= lastSeqOf(runs[0]!));
    const oldest = DateTime.min(...anz.map((e) => windowOf(e)!.from))!;
    const limit = DateTime.fromISO(anz[0]!.time, { setZone: true }).setZone(NZ_ZONE).minus({ days: 365 });
    expect(oldest.toMillis() - limit.toMillis()).toBeGreaterThanOrEqual(0);
    expect(oldest.toMillis() - limit.toMillis()).toBeLessThanOrEqual(3600_000);
  });

  it('sends nothing on an ended consent after the answer that revealed it (BDT009/013/101/409/410/412/415)', () => {
    const ended = h.emu.consentIds.filter((id) => ENDED_STATUSES.has(h.emu.consent(id)!.status));
    // Seeded Rejected, Revoked, Consumed and GatewayTimeout, the one that expired, the awaiting that timed out.
    expect(ended.length).toBeGreaterThanOrEqual(7 * 6);
    const violations: string[] = [];
    for (const id of ended) {
      const consent = h.emu.consent(id)!;
      const endedAt = ms(consent.status_update_date_time);
      const mine = log.filter((e) => consentOf(e) === id);
      const reveal = mine.find(
        (e) =>
          (e.code !== undefined && ENDED_CODES.has(e.code)) ||
          // A read after the transition (the clock is frozen during a run: a consent ended
          // mid-run shares its instant with the run's first read, which still said Authorised).
          (endpointOf(e.path) === 'consents' && e.status === 200 && ms(e.time) > endedAt),
      );
      if (!reveal) {
        violations.push(`${consent.bank} ${id} (${consent.status}): never seen ended`);
        continue;
      }
      for (const e of mine.filter((x) => x.seq > reveal.seq))
        violations.push(`${consent.bank} ${id} (${consent.status}): ${e.method} ${e.path}`);
    }
    expect(violations).toEqual([]);

    // Ended mid-run: the bank's BDT415 on the first resource call, the customer's cancel
    // (BDT410) while the transactions were read; the answer was the last request on each.
    for (const [id, code] of [
      [unusable, 'BDT415'],
      [cancelled, 'BDT410'],
    ] as const) {
      const mine = log.filter((e) => consentOf(e) === id);
      expect(mine.at(-1)!.code, id).toBe(code);
      expect(mine.filter((e) => e.status === 200).length).toBeGreaterThan(id === cancelled ? 2 : 0);
    }

    // The consent that expired between the runs was read in the second run, and only read.
    const expired = ended.filter((id) => {
      const c = h.emu.consent(id)!;
      return c.status === 'Consumed' && c.expiration_date_time && ms(c.expiration_date_time) > ms(log[0]!.time);
    });
    expect(expired.length).toBe(7);
    for (const id of expired) {
      const second = log.filter((e) => consentOf(e) === id && e.seq > lastSeqOf(runs[0]!));
      expect(second.map((e) => endpointOf(e.path))).toEqual(['consents']);
    }
  });

  it('reads a consent not yet authorised and asks nothing else of it (BDT413 never provoked)', () => {
    const awaiting = h.emu.world.seededConsents.filter((c) =>
      ['AwaitingAuthorisation', 'GatewayAwaitingSubmission'].includes(c.status),
    );
    expect(awaiting.length).toBe(14);
    for (const seeded of awaiting) {
      const mine = log.filter((e) => consentOf(e) === seeded.consent_id);
      // One read per run: awaiting in the first, timed out (ended) in the second.
      expect(
        mine.map((e) => `${e.method} ${e.path}`),
        seeded.bank,
      ).toEqual(Array(2).fill(`GET /v1/consents/${seeded.consent_id}`));
    }
    expect(log.some((e) => e.code === 'BDT413')).toBe(false);
  });

  /** The last request of a run: the one before the next run's token or meta request. */
  function lastSeqOf(run: SyncSummary): number {
    const index = runs.indexOf(run);
    const metas = log.filter((e) => e.path === '/v1/meta');
    const next = metas[index + 1];
    return next ? next.seq - 1 : log.at(-1)!.seq;
  }
});

describe('BDT263: splits down to one NZ day; a day still too large is a failed unit', () => {
  let h: Harness;
  let consentId: string;
  let floor: string;
  /** `${accountId}|${NZ date}` of the days holding more rows than the bank's limit. */
  let tooLarge: Set<string>;
  /** The bank's BDT263 limit set for PNZ. */
  let limit: number;
  let run1: SyncSummary;
  let seqAfterRun1: number;

  beforeAll(async () => {
    // A fixed start: the world is made around it, and with the default (the real clock) its rows,
    // and so the refusals these tests count, differed by the time of day the test ran.
    h = await startHarness({ customersPerBank: 1, start: '2026-03-10T10:00:00+13:00' });
    const now = h.emu.now();
    // The full consent alone, over the last 30 days.
    consentId = h.emu.consentIds.find((id) => {
      const c = h.emu.consent(id)!;
      return (
        c.status === 'Authorised' &&
        c.permissions.includes('ReadStatements') &&
        ms(c.end_date_time!) > now.plus({ days: 30 }).toMillis()
      );
    })!;
    floor = addNzDays(nzDateOf(now), -30);
    const consent = h.emu.consent(consentId)!;
    const perDay = new Map<string, number>();
    for (const key of consent.accountKeys) {
      const { bank, account } = h.emu.world.accounts.get(key)!;
      for (const tx of h.emu.world.transactionsAt(bank, account.AccountId, now)) {
        if (ms(tx.BookingDateTime) < nzMidnight(floor).toMillis()) continue;
        const day = `${account.AccountId}|${nzDateOf(tx.BookingDateTime)}`;
        perDay.set(day, (perDay.get(day) ?? 0) + 1);
      }
    }
    // The limit: below the busiest day only (or the busiest days, when tied).
    const counts = [...perDay.values()].sort((a, b) => b - a);
    limit = counts[0]! > counts[1]! ? counts[1]! : counts[0]! - 1;
    tooLarge = new Set([...perDay].filter(([, n]) => n > limit).map(([day]) => day));
    expect(tooLarge.size).toBeGreaterThan(0);
    h.emu.updateSettings({ maxResultSize: { PNZ: limit } });
  });
  afterAll(async () => {
    await h?.close();
  });

  const sync = () => h.sync({ consentIds: [consentId as ConsentId], settings: { ...SETTINGS, floor } });

  it('every other window lands: the data equals the world minus the day too large', async () => {
    run1 = await sync();
    seqAfterRun1 = h.emu.requests().at(-1)!.seq;
    expect(run1.counters.splits).toBeGreaterThan(0);
    expect(run1.outcome).toBe('partial');

    // One failed unit per day too large, each a single NZ day refused with BDT263.
    expect(run1.counters.failedUnits).toHaveLength(tooLarge.size);
    for (const day of tooLarge) {
      const [accountId, date] = day.split('|') as [string, string];
      const from = nzMidnight(date).toUTC().toISO({ suppressMilliseconds: true })!;
      const unit = run1.counters.failedUnits.find((f) => f.unit.startsWith(`transactions ${accountId} ${from}..`));
      expect(unit, day).toBeDefined();
      expect(unit!.reason).toContain('BDT263');
    }
    const refusedDays = h.emu
      .requests()
      .filter((e) => e.code === 'BDT263' && windowSpanDays(windowOf(e)!) === 1)
      .map((e) => `${e.account_id}|${nzDateOf(windowOf(e)!.from)}`);
    expect(new Set(refusedDays)).toEqual(tooLarge);

    const expected = truthTransactions(h.emu, { consentIds: [consentId], floor });
    for (const [key, row] of expected) {
      const accountId = key.split('|')[1]!;
      if (tooLarge.has(`${accountId}|${nzDateOf(DateTime.fromMillis(row.bookingMs))}`)) expected.delete(key);
    }
    expectSameTransactions(await storedTransactions(h.store), expected);
  });

  it('remembers what the bank refused and accepted: the next run sizes its windows below that limit', async () => {
    const known = await h.store.syncState.getWindowKnowledge('PNZ');
    // Learned from run 1: a refused query held more rows than the limit, an accepted one no more.
    expect(known.minRefusedRows).not.toBeNull();
    expect(known.minRefusedRows!).toBeGreaterThan(limit);
    expect(known.maxAcceptedRows).not.toBeNull();
    expect(known.maxAcceptedRows!).toBeLessThanOrEqual(limit);
    const firstPages = (entries: RequestLogEntry[]) => entries.filter((e) => windowOf(e) !== null && !e.query.page);
    expect(firstPages(h.emu.requests()).some((e) => e.code === 'BDT263')).toBe(true);

    const run2 = await sync();
    const requests = firstPages(h.emu.requests().filter((e) => e.seq > seqAfterRun1));
    expect(requests.length).toBeGreaterThan(0);
    // BDT263 comes back rarely besides the days too large (a window aims below the limit, but
    // rows per day vary): fewer such refusals than in run 1, which began knowing nothing.
    const holdsTooLarge = (e: RequestLogEntry) => {
      const { from, to } = windowOf(e)!;
      return [...tooLarge].some((day) => {
        const [accountId, date] = day.split('|') as [string, string];
        return accountId === e.account_id && nzMidnight(date) < to && nzMidnight(addNzDays(date, 1)) > from;
      });
    };
    const needless = (entries: RequestLogEntry[]) =>
      entries.filter((e) => e.code === 'BDT263' && !holdsTooLarge(e)).length;
    expect(needless(requests)).toBeLessThan(
      needless(firstPages(h.emu.requests().filter((e) => e.seq <= seqAfterRun1))),
    );
    expect(run2.counters.failedUnits.length).toBeGreaterThan(0);
    for (const failed of run2.counters.failedUnits) {
      const day = [...tooLarge].find((d) => {
        const [accountId, date] = d.split('|') as [string, string];
        return failed.unit.startsWith(
          `transactions ${accountId} ${nzMidnight(date).toUTC().toISO({ suppressMilliseconds: true })}..`,
        );
      });
      expect(day, failed.unit).toBeDefined();
    }
  });
});
