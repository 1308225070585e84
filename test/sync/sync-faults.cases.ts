/**
 * The sync under faults (docs/bank-api.md §7.4): 503 BDT601–604, 500, 502, 504, dropped connections, a
 * tight rate limit (429 with Retry-After) and every token revoked mid-run. The first run
 * reports the units whose retries ran out (exit 1); the second completes them, and the data
 * then equals the emulator's world exactly.
 *
 * The chaos is driven from the emulator's request hook, so each phase is reached by what the
 * server answered, not by timing: every fault kind once, a rate-limit burst, a token
 * revocation, then an outage that lasts until one request has failed on every attempt.
 *
 * One suite, both dialects (../support/dialects.ts): sync-faults.test.ts runs it on SQLite,
 * sync-faults.pg.test.ts on PostgreSQL, where the data must equal the same world byte for byte.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createDataApiClient, type DataApiClient } from '../../src/api';
import { addNzDays, nzDateOf } from '@bankdata/core/nz-time';
import { exitCodeOf } from '../../src/cli/sync';
import { FAULT_PROFILES, type FaultKind, type FaultRates, type RequestLogEntry } from '@bankdata/emulator';
import type { SyncSummary } from '../../src/sync/run';
import { requestHook, requestKeyOf } from '../fixtures/request-log';
import type { Store } from '../../src/store';
import { SETTINGS, startHarnessOn, storedTransactions, type Harness } from '../fixtures/sync-harness';
import type { DialectSetup } from '../support/dialects';
import { expectResourcesMatchWorld, expectSameTransactions, truthTransactions } from '../fixtures/sync-truth';

const FAULT_KINDS: readonly FaultKind[] = [
  'bdt601',
  'bdt602',
  'bdt603',
  'bdt604',
  'http500',
  'http502',
  'http504',
  'drop',
];
const FAULT_STATUS: Record<FaultKind, number> = {
  bdt601: 503,
  bdt602: 503,
  bdt603: 503,
  bdt604: 503,
  http500: 500,
  http502: 502,
  http504: 504,
  drop: 0,
};
/** Attempts per request of this test's client; the outage lasts until one request used them all. */
const MAX_ATTEMPTS = 8;
/** Background faults in both runs: 16 % of requests, never 8 in a row in practice (0.16^8 ≈ 4e-7). */
const BACKGROUND: FaultRates = Object.fromEntries(FAULT_KINDS.map((k) => [k, 0.02])) as unknown as FaultRates;
const EVERY_REQUEST: FaultRates = Object.fromEntries(
  FAULT_KINDS.map((k) => [k, 1 / FAULT_KINDS.length]),
) as unknown as FaultRates;
const only = (kind: FaultKind): FaultRates => ({ ...FAULT_PROFILES.none, [kind]: 1 });
const FAILURE_STATUSES = new Set([0, 401, 429, 500, 502, 503, 504]);

type Phase = 'idle' | 'warmup' | 'each-kind' | 'rate-limit' | 'revoke' | 'outage' | 'background';

/** The chaos of the first run, advanced by the emulator's answers. */
class Chaos {
  phase: Phase = 'idle';
  private seen = 0;
  private kindIndex = 0;
  private limited = 0;
  /** Requests answered since the rate limit was switched on. */
  private seenLimited = 0;
  private readonly faultedTimes = new Map<string, number>();
  /** The request that failed on all its attempts during the outage. */
  exhaustedKey: string | null = null;
  revoked: Promise<Response> | null = null;

  constructor(private readonly h: () => Harness<Store>) {}

  onRequest(entry: Omit<RequestLogEntry, 'time'>): void {
    if (this.phase === 'idle' || this.phase === 'background') return;
    const emu = this.h().emu;
    this.seen += 1;
    switch (this.phase) {
      case 'warmup':
        // Meta and the first consent reads pass, so the run is under way.
        if (this.seen >= 10) {
          this.phase = 'each-kind';
          emu.updateSettings({ faults: only(FAULT_KINDS[0]!) });
        }
        return;
      case 'each-kind':
        if (entry.fault !== FAULT_KINDS[this.kindIndex]) return;
        this.kindIndex += 1;
        if (this.kindIndex < FAULT_KINDS.length) {
          emu.updateSettings({ faults: only(FAULT_KINDS[this.kindIndex]!) });
          return;
        }
        this.phase = 'rate-limit';
        // One request per 10 ms. The 429's Retry-After says 1 s, here as an HTTP-date (RFC 9110);
        // the client waits its policy's cap (5 ms). The pacer keeps the rate it learns for the
        // rest of the run, as it should (the bank's limit does not change), so the limit is set
        // high enough that the requests left after this phase, paced at it, keep the test short.
        emu.updateSettings({
          faults: 'none',
          rateLimit: { requestsPerSecond: 100, burst: 1 },
          retryAfterHttpDate: true,
        });
        return;
      case 'rate-limit':
        // The client's pacer learns the rate from the first refusals and then keeps under it
        // (docs/client.md "Pacing"), so only the first few requests are refused: the burst ends
        // after at least one 429 and ten answers under the limit.
        this.seenLimited += 1;
        if (entry.status === 429) this.limited += 1;
        if (this.limited >= 1 && this.seenLimited >= 10) {
          this.phase = 'revoke';
          emu.updateSettings({ rateLimit: null, retryAfterHttpDate: false });
          this.revoked = fetch(`${emu.baseUrl}/__emulator/tokens/revoke`, { method: 'POST' });
        }
        return;
      case 'revoke':
        if (entry.status === 401) {
          this.phase = 'outage';
          emu.updateSettings({ faults: EVERY_REQUEST });
        }
        return;
      case 'outage': {
        if (!entry.fault) return;
        const key = requestKeyOf(entry);
        const times = (this.faultedTimes.get(key) ?? 0) + 1;
        this.faultedTimes.set(key, times);
        if (times >= MAX_ATTEMPTS) {
          this.exhaustedKey = key;
          this.phase = 'background';
          emu.updateSettings({ faults: BACKGROUND });
        }
        return;
      }
    }
  }
}

/** Request keys of a run whose last answer was a failure: the units whose retries ran out. */
function exhaustedKeys(entries: RequestLogEntry[]): Set<string> {
  const last = new Map<string, RequestLogEntry>();
  for (const e of entries) if (e.path !== '/oauth2/token') last.set(requestKeyOf(e), e);
  return new Set([...last].filter(([, e]) => FAILURE_STATUSES.has(e.status)).map(([key]) => key));
}

export const syncFaultsSuite = (setup: DialectSetup): void =>
  setup.describe('sync under faults, rate limits and a token revocation', () => {
    let h: Harness<Store>;
    let client: DataApiClient;
    let floor: string;
    const chaos = new Chaos(() => h);
    let run1: SyncSummary;
    let run1Log: RequestLogEntry[];

    beforeAll(async () => {
      h = await startHarnessOn(await setup.location(), {
        customersPerBank: 1,
        logger: requestHook((entry) => chaos.onRequest(entry)),
      });
      // Retry-After (1 s on 429 and fault 503s) is clamped to the policy's cap: the test never waits a second.
      client = createDataApiClient({
        baseUrl: h.emu.baseUrl,
        clientId: h.emu.clientId,
        clientSecret: h.emu.clientSecret,
        retry: { maxAttempts: MAX_ATTEMPTS, baseDelayMs: 1, maxDelayMs: 5 },
      });
      // A floor keeps the runs short; the ground truth applies the same floor.
      floor = addNzDays(nzDateOf(h.emu.now()), -120);
    });
    afterAll(async () => {
      await h.close();
    });

    const sync = () => h.sync({ client, settings: { ...SETTINGS, floor } });

    it('a run whose retries run out on some units reports them as failed (partial, exit 1)', async () => {
      chaos.phase = 'warmup';
      run1 = await sync();
      run1Log = h.emu.requests();
      await chaos.revoked;

      // The chaos went through every phase while the run was in flight.
      expect(chaos.phase).toBe('background');
      for (const kind of FAULT_KINDS) {
        const hits = run1Log.filter((e) => e.fault === kind);
        expect(hits.length, kind).toBeGreaterThan(0);
        for (const e of hits) expect(e.status, kind).toBe(FAULT_STATUS[kind]);
        if (kind.startsWith('bdt')) for (const e of hits) expect(e.code).toBe(kind.toUpperCase());
      }
      // Every request refused with 429 (Retry-After as an HTTP-date) was sent again and got past it.
      const limited = run1Log.filter((e) => e.status === 429);
      expect(limited.length).toBeGreaterThanOrEqual(1);
      for (const refused of limited) {
        const passed = run1Log.find(
          (e) => e.seq > refused.seq && requestKeyOf(e) === requestKeyOf(refused) && e.status !== 429,
        );
        expect(passed, requestKeyOf(refused)).toBeDefined();
      }
      // The client paced itself on them: its pacer saw the refusals and learned a rate from them
      // (without the pacer in the transport there is neither; docs/client.md "Pacing").
      const pacing = client.stats().pacing;
      expect(pacing?.refused).toBeGreaterThan(0);
      expect(pacing?.refused).toBeLessThanOrEqual(limited.length);
      expect(pacing?.rate).not.toBeNull();

      // Every token was revoked mid-run: one new token for all, and each request that got 401
      // went on with it (its next attempt passed authentication).
      const unauthorised = run1Log.filter((e) => e.status === 401);
      expect(unauthorised.length).toBeGreaterThan(0);
      const tokensAfter = run1Log.filter((e) => e.seq > unauthorised[0]!.seq && e.path === '/oauth2/token');
      expect(tokensAfter.map((e) => e.status)).toEqual([200]);
      for (const denied of unauthorised) {
        const next = run1Log.find((e) => e.seq > denied.seq && requestKeyOf(e) === requestKeyOf(denied));
        expect(next?.status, requestKeyOf(denied)).not.toBe(401);
      }
      expect(run1.fatal).toBeNull();

      // Honest summary: exactly the requests whose last answer was a failure are failed units.
      const exhausted = exhaustedKeys(run1Log);
      expect(exhausted.has(chaos.exhaustedKey!)).toBe(true);
      expect(run1.counters.failedUnits.length).toBe(exhausted.size);
      expect(run1.outcome).toBe('partial');
      expect(exitCodeOf(run1)).toBe(1);
      const row = (await h.store.runs.get(run1.runId))!;
      expect(row).toMatchObject({ outcome: 'partial', failedUnits: exhausted.size });
      expect(row.errorSummary).toContain(run1.counters.failedUnits[0]!.unit);
    });

    it('the next run completes the failed units: the data equals the world exactly (exit 0)', async () => {
      const seqBefore = run1Log.at(-1)!.seq;
      const run2 = await sync();
      expect(run2.counters.failedUnits).toEqual([]);
      expect(run2.outcome).toBe('ok');
      expect(exitCodeOf(run2)).toBe(0);

      // Faults kept coming (background rate) and each was retried to success.
      const run2Log = h.emu.requests().filter((e) => e.seq > seqBefore);
      expect(run2Log.some((e) => e.fault)).toBe(true);
      expect(exhaustedKeys(run2Log)).toEqual(new Set());

      const scope = { floor };
      expectSameTransactions(await storedTransactions(h.store), truthTransactions(h.emu, scope));
      expect(await expectResourcesMatchWorld(h.emu, h.store, h.dataDir, scope)).toBeGreaterThan(0);
    });
  });
