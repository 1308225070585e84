/**
 * The pacer's memory between runs (docs/client.md "Pacing"), against the emulator over HTTP with
 * its token bucket, on both dialects: the rate and ceiling a run learnt are stored per bank API
 * and client; the next run starts from them. The emulator's limit is changed between runs
 * (updateSettings, as PUT /__emulator/settings does); times are the request log's (the
 * emulator's running data clock), counts are the 429s it answered.
 */
import { afterEach, expect, it } from 'vitest';
import type { RequestLogEntry } from '@bankdata/emulator';
import { SETTINGS, startHarnessOn, type Harness } from '../fixtures/sync-harness';
import type { Store } from '../../src/store';
import type { DialectSetup } from '../support/dialects';

const DAY_MS = 86_400_000;
const RUN = { ...SETTINGS, concurrency: 8 };

export const pacingMemorySuite = (setup: DialectSetup): void =>
  setup.describe('the pacing a run learnt, kept for the next', () => {
    let h: Harness<Store> | null = null;
    afterEach(async () => {
      await h?.close();
      h = null;
    });

    /** A harness whose first run (a backfill: every consent new) learnt a limit of `rate`/s. */
    async function learnt(rate: number): Promise<Harness<Store>> {
      h = await startHarnessOn(await setup.location(), {
        clock: 'running',
        rateLimit: { requestsPerSecond: rate, burst: 4 },
      });
      const first = await h.sync({ settings: RUN });
      expect(first.outcome).toBe('ok');
      expect(refused(h.emu.requests()).length).toBeGreaterThan(0);
      return h;
    }

    /** A run one day later: its requests from the emulator's log. */
    async function runAfterADay(harness: Harness<Store>, extra: { full?: boolean } = {}) {
      harness.emu.advance(DAY_MS);
      const after = harness.emu.requests().at(-1)?.seq ?? 0;
      const summary = await harness.sync({ settings: RUN, ...extra });
      expect(summary.counters.failedUnits).toEqual([]);
      return harness.emu.requests().filter((e) => e.seq > after);
    }

    const stored = async (harness: Harness<Store>) => {
      const key = harness.client.pacing!.key;
      expect(key).toEqual({ api: harness.emu.baseUrl.replace(/\/$/, ''), clientId: harness.emu.clientId });
      return harness.store.pacing.get(key);
    };

    it('a second run starts at the stored rate and meets no 429 where the first learnt the limit', async () => {
      const harness = await learnt(20);
      const first = await stored(harness);
      // (At 20/s when the client can send that fast; a busy machine's client learns lower.)
      expect(first!.ceiling!).toBeGreaterThan(20 * 0.5);
      expect(first!.ceiling!).toBeLessThanOrEqual(20 * 1.05);
      expect(first!.rate).toBeLessThanOrEqual(first!.ceiling!);
      const nightly = await runAfterADay(harness);
      expect(nightly.length).toBeGreaterThan(20);
      expect(refused(nightly)).toEqual([]);
      expect((await stored(harness))!.ceiling).toBeLessThanOrEqual(first!.ceiling!);
    });

    it('a limit the bank lowered between runs is learnt within 5 s and 5 refusals, and stored', async () => {
      const harness = await learnt(20);
      // Well under what even a busy machine's client sends, so that the refused pace and its halving
      // both meet refusals and a bound measures the new limit.
      harness.emu.updateSettings({ rateLimit: { requestsPerSecond: 4, burst: 2 } });
      const nightly = await runAfterADay(harness);
      const tooMany = refused(nightly);
      expect(tooMany.length).toBeGreaterThan(0);
      expect(tooMany.length).toBeLessThanOrEqual(5);
      expect(msOf(tooMany.at(-1)!) - msOf(tooMany[0]!)).toBeLessThanOrEqual(5000);
      const after = await stored(harness);
      expect(after!.ceiling!).toBeLessThanOrEqual(4 * 1.05);
      expect(after!.rate).toBeLessThanOrEqual(after!.ceiling!);
    });

    it('a limit the bank raised is not probed by a nightly run, and is found by the next long run (--full)', async () => {
      // Rates well under what even a busy machine's client sends (it sent about 17 req/s at load 20),
      // so the long run's probe, not the client's own speed, is what meets the raised limit: learnt
      // at 6, raised to 9.
      const harness = await learnt(6);
      const learntBefore = (await stored(harness))!;
      harness.emu.updateSettings({ rateLimit: { requestsPerSecond: 9, burst: 4 } });
      const nightly = await runAfterADay(harness);
      expect(refused(nightly)).toEqual([]);
      // Never above the ceiling: no second of the nightly holds more than the ceiling's requests (and the burst).
      expect(Math.max(...perSecond(nightly))).toBeLessThanOrEqual(Math.ceil(learntBefore.ceiling!) + 4);
      expect((await stored(harness))!.ceiling).toBe(learntBefore.ceiling);
      // The long run probes 10%/s above the stored rate: this world's backfill (about 150 requests,
      // 20 s at these rates) reaches 1.5 times it within 5 s, past the raised limit, and is refused there.
      const long = await runAfterADay(harness, { full: true });
      expect(refused(long).length).toBeGreaterThan(0);
      const found = (await stored(harness))!.ceiling!;
      // Above the old limit, and above what was stored before, by more than a bound's spread.
      expect(found).toBeGreaterThan(6 * 1.25);
      expect(found).toBeGreaterThan(learntBefore.ceiling! * 1.25);
    });

    it('bankdata pacing reset clears it: the next run learns from refusals again', async () => {
      const harness = await learnt(20);
      expect(await stored(harness)).not.toBeNull();
      expect(await harness.store.pacing.reset({ api: 'http://elsewhere.example' })).toBe(0);
      expect(await harness.store.pacing.reset({ api: harness.client.pacing!.key.api })).toBe(1);
      expect(await stored(harness)).toBeNull();
    });
  });

const refused = (log: readonly RequestLogEntry[]) => log.filter((e) => e.status === 429);
const msOf = (e: RequestLogEntry) => Date.parse(e.time);

/** Requests answered (not refused) in each second of the log's span. */
function perSecond(log: readonly RequestLogEntry[]): number[] {
  const answered = log.filter((e) => e.status !== 429 && e.path !== '/oauth2/token').map(msOf);
  const start = Math.min(...answered);
  const counts: number[] = [];
  for (const at of answered) {
    const i = Math.floor((at - start) / 1000);
    counts[i] = (counts[i] ?? 0) + 1;
  }
  return counts.map((c) => c ?? 0);
}
