/**
 * The pacer against a simulated bank: a token bucket judged on a fake clock, lanes that wait
 * their slot, the latency and the `Retry-After` second. No real time passes: every sleep is an
 * event on the fake clock.
 */
import { describe, expect, it } from 'vitest';
import { createPacer, rateFromHeaders } from '../../src/api/pacer';
import { simulate } from './pacer-sim';

describe('pacer', () => {
  it('sends at once while it has learned no limit', async () => {
    let slept = 0;
    const pacer = createPacer({ now: () => new Date(1000), sleep: async (ms) => void (slept += ms) });
    for (let i = 0; i < 100; i++) pacer.settle(await pacer.acquire(), { status: 200 });
    expect(slept).toBe(0);
    expect(pacer.state()).toMatchObject({ rate: null, source: 'none', accepted: 100 });
  });

  it('a 429 after a few requests (not our own rate) leaves the pacing to Retry-After', async () => {
    let now = 0;
    let slept = 0;
    const pacer = createPacer({ now: () => new Date(now), sleep: async (ms) => void (slept += ms) });
    pacer.settle(await pacer.acquire(), { status: 200 });
    now = 10;
    pacer.settle(await pacer.acquire(), { status: 429 });
    expect(pacer.state().rate).toBeNull();
    now = 1010;
    pacer.settle(await pacer.acquire(), { status: 200 });
    expect(slept).toBe(0);
  });

  it.each([
    { rate: 50, burst: 20, latencyMs: 20, lanes: 16 },
    { rate: 10, burst: 20, latencyMs: 20, lanes: 16 },
    { rate: 200, burst: 20, latencyMs: 5, lanes: 16 },
    { rate: 50, burst: 20, latencyMs: 100, lanes: 16 },
  ])(
    'learns a bank limit of $rate/s (burst $burst, latency $latencyMs ms) from 429s: throughput at the limit, refusals rare',
    async (bank) => {
      const r = await simulate({ ...bank, untilMs: Number(process.env.SIM_MS ?? 120_000), warmupMs: 30_000 });
      // Throughput over the last 20 s within 3% of the bank's rate (never above it: the bucket).
      expect(r.lateRate).toBeGreaterThanOrEqual(bank.rate * 0.97);
      expect(r.rate!).toBeGreaterThan(bank.rate * 0.97);
      expect(r.rate!).toBeLessThan(bank.rate * 1.03);
      // After the first 30 s (learning), refusals are under 1% of the requests sent.
      expect(r.refusedLate / r.sent).toBeLessThan(0.01);
    },
  );

  it('learns a bank limit of 2/s with a burst of 1 (a second holds too few sends for a rate): throughput at the limit, refusals under a quarter of the sends', async () => {
    // Before: every lane met the empty bucket each second and no first rate was taken (fewer than 4
    // accepted in it); then lanes queued at a cut pace kept it for seconds after the pace rose, and
    // a second's 1 or 2 accepted requests cut the pace to half the limit again and again (a third of
    // the limit lost, 47% of the sends refused).
    const r = await simulate({ rate: 2, burst: 1, latencyMs: 5, lanes: 16, untilMs: 120_000, warmupMs: 30_000 });
    expect(r.lateRate).toBeGreaterThanOrEqual(2 * 0.9);
    expect(r.rate!).toBeGreaterThan(2 * 0.9);
    expect(r.rate!).toBeLessThan(2 * 1.1);
    expect(r.refused / r.sent).toBeLessThan(0.25);
    expect(r.refusedLate / r.sent).toBeLessThan(0.15);
  });

  it('a bank of 5/s with a burst of 5: once learnt, refusals under 2% of the sends (a cut near the limit halves the creep that brought the pace there)', async () => {
    // Before: the pace swung between 5.4 and 6.0 req/s, the creep of a rough bound taking back each
    // 10% cut within a second or so: 27 refusals after the first 10 s of 120 (4.1% of the sends).
    const r = await simulate({ rate: 5, burst: 5, latencyMs: 20, lanes: 16, untilMs: 120_000, warmupMs: 10_000 });
    expect(r.refusedLate / r.sent).toBeLessThan(0.02);
    expect(r.lateRate).toBeGreaterThanOrEqual(5 * 0.95);
  });

  it("a run from nothing holds its requests in flight to a window that grows each round trip: at most 8 of 16 lanes meet the bank's spent burst", async () => {
    // Before: all 16 lanes sent at once from the start, and the first 500 ms had 15 refusals.
    const r = await simulate({ rate: 50, burst: 20, latencyMs: 20, lanes: 16, untilMs: 5_000, warmupMs: 0 });
    expect(r.refusedAt.filter((at) => at < 500).length).toBeLessThanOrEqual(8);
    expect(r.perSecond.slice(1).every((n) => n >= 45)).toBe(true);
  });

  it.each([
    [50, 20, 20, 5, 1.02],
    [50, 20, 5, 5, 1.02],
    [200, 40, 20, 6, 1.02],
    [200, 40, 5, 6, 1.08],
    [50, 20, 100, 8, 1.01],
  ])(
    'a run from nothing at %i req/s (burst %i, %i ms round trips) grows its window by one each round trip or each 80 ms, whichever is longer: at most %i refusals in the first second, the job within %f of the bound',
    async (rate, burst, latencyMs, mostRefusals, mostOverBound) => {
      // Before, the window grew by one each round trip however quick: its size when the burst ran
      // out, about √(2 × burst × growth per round trip), met the empty bucket. In the first second
      // 7, 8, 10 and 10 refusals at 20 and 5 ms (4, 2, 5 and 3 now); the jobs took 1.001, 1.003,
      // 1.015 and 1.130 of the bound (1.000, 1.005, 1.002 and 1.067 now). The time bounds guard
      // against a growth too slow to reach the bank's rate (only the fourth fails on the old rule).
      // At 100 ms the window grows as before (7 refusals, 1.006): that row guards it, and cannot
      // tell the two rules apart.
      const requests = 1700;
      const r = await simulate({ rate, burst, latencyMs, lanes: 16, untilMs: 120_000, warmupMs: 1000, requests });
      expect(r.refused - r.refusedLate).toBeLessThanOrEqual(mostRefusals);
      const bound = 2 * latencyMs + ((requests - burst) / rate) * 1000;
      expect(r.doneAtMs).not.toBeNull();
      expect(r.doneAtMs! / bound).toBeLessThanOrEqual(mostOverBound);
    },
  );

  it.each([
    [20, 22],
    [100, 19],
  ])(
    "a bank of 10/s with a burst of 20, learnt from nothing at %i ms: the slow start's first cut measures the bank's rate since its bucket ran empty, not over the second that held its burst",
    async (latencyMs, mostRefusals) => {
      // Before: the first cut went to 10% under a pace set by the first second's accepted
      // requests, the bank's burst among them (23.7 and 29.4 req/s), and a second cut, some 300
      // ms and four refusals on, reached the bank's rate: 22 and 24 refusals in the minute. The
      // cut's count is taken at its top (one more than accepted), so it is never below the bank's
      // rate; without its "no climb back to the pace cut from", 21 and 20 refusals.
      const cuts: number[] = [];
      const r = await simulate({
        rate: 10,
        burst: 20,
        latencyMs,
        lanes: 16,
        untilMs: 60_000,
        warmupMs: 10_000,
        onSlowdown: (_at, event) => cuts.push(event.toRate),
      });
      expect(cuts[0]).toBeGreaterThanOrEqual(10);
      expect(cuts[0]).toBeLessThanOrEqual(18);
      expect(r.refused).toBeLessThanOrEqual(mostRefusals - 1);
      expect(r.perSecond.slice(2).every((n) => n >= 8)).toBe(true);
    },
  );

  it('a bank of 2/s with a burst of 10, learnt from nothing: the slow start is not cut below its rate on the one or two requests accepted since its bucket ran empty', async () => {
    // A cut on fewer than 2 requests since the bucket ran empty went to 0.5 req/s, with no climb
    // back: 16 requests accepted in the first 10 s (found by review, never released).
    const cuts: number[] = [];
    const r = await simulate({
      rate: 2,
      burst: 10,
      latencyMs: 20,
      lanes: 16,
      untilMs: 30_000,
      warmupMs: 10_000,
      onSlowdown: (_at, event) => cuts.push(event.toRate),
    });
    expect(Math.min(...cuts.slice(0, 3))).toBeGreaterThanOrEqual(1.5);
    expect(r.perSecond.slice(0, 10).reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(25);
  });

  it.each([
    ['frozen (every round trip measures 0 ms)', (sentAt: number) => sentAt],
    ['stepped back 60 s after each send (an NTP step, a VM resumed)', (sentAt: number) => sentAt - 60_000],
  ])('a run from nothing on a clock %s: the window in flight still grows, never shrinks', async (_name, answeredAt) => {
    // Found by review: the window grew by the round trip's share of 80 ms, so a clock that saw
    // no round trip held it at 2 for good, and one stepped back shrank it to nothing, every
    // later `acquire` waiting with no timer to wake it.
    let now = 0;
    const pacer = createPacer({ now: () => new Date(now), sleep: async () => undefined });
    const tick = () => new Promise((r) => setImmediate(r));
    let widest = 0;
    for (let round = 0; round < 48; round++) {
      now = 100_000 + round * 1000;
      const sent: number[] = [];
      // Every slot the window gives now, without waiting.
      for (;;) {
        let granted: number | null = null;
        const slot = pacer.acquire().then((at) => (granted = at));
        await tick();
        if (granted === null) {
          // The last ask waits for a place: one answer frees it, and it is settled with the rest.
          const at = sent.shift()!;
          now = answeredAt(at);
          pacer.settle(at, { status: 200 });
          await slot;
          sent.push(granted!);
          break;
        }
        sent.push(granted);
      }
      widest = Math.max(widest, sent.length);
      for (const at of sent) {
        now = answeredAt(at);
        pacer.settle(at, { status: 200 });
      }
    }
    // One more each 16 round trips at least: 2 → 4 or more over 48 rounds.
    expect(widest).toBeGreaterThanOrEqual(4);
  });

  it('a request given a slot that gets no answer (a timeout) frees its place in the window', async () => {
    const pacer = createPacer({ now: () => new Date(0), sleep: async () => undefined });
    // The window starts at 2 requests in flight: a third waits ...
    await pacer.acquire();
    await pacer.acquire();
    let third = false;
    void pacer.acquire().then(() => (third = true));
    await new Promise((r) => setImmediate(r));
    expect(third).toBe(false);
    // ... until one of the two is answered, or abandoned.
    pacer.abandon();
    await new Promise((r) => setImmediate(r));
    expect(third).toBe(true);
  });

  it('lanes that, not the pace, limit the sending (16 lanes at 520 ms, about 31 req/s, against 30 req/s) keep the pace within twice what they sent', async () => {
    // Before: too few refusals in a row to cut, and a rough bound's creep took the pace to 268
    // times the bank's rate, which lanes added later would have sent at.
    const r = await simulate({ rate: 30, burst: 20, latencyMs: 520, lanes: 16, untilMs: 150_000, warmupMs: 30_000 });
    expect(r.rate!).toBeLessThan(30 * 2);
    expect(r.lateRate).toBeGreaterThanOrEqual(30 * 0.95);
  });

  it('lanes queued while the window was full do not all go at once when a rate comes: at most one interval of credit', async () => {
    let now = 0;
    const pacer = createPacer({ now: () => new Date(now), sleep: () => new Promise<void>(() => undefined) });
    // The window of 2 requests in flight is full; five lanes queue behind it ...
    await pacer.acquire();
    await pacer.acquire();
    const sent: number[] = [];
    for (let i = 0; i < 5; i++) void pacer.acquire().then((at) => sent.push(at));
    // ... and two seconds later a rate of 10 req/s is known (here: resumed). Slots spaced from the
    // last one given two seconds ago would all be due: five sends at once into the bucket.
    now = 2_000;
    pacer.resume({ rate: 10, ceiling: null }, { probe: false });
    await new Promise((r) => setImmediate(r));
    expect(sent).toEqual([1_900, 2_000]);
  });

  it('lanes queued for their slots follow a pace that rises: none keeps the spacing of the pace it queued at', async () => {
    let now = 0;
    const timers: { at: number; fire: () => void }[] = [];
    const pacer = createPacer({
      now: () => new Date(now),
      sleep: (ms) => new Promise<void>((fire) => timers.push({ at: now + ms, fire })),
    });
    pacer.resume({ rate: 1, ceiling: null }, { probe: false });
    // Ten lanes queue at 1 req/s: the first goes at once, the others a second apart.
    const sent: number[] = [];
    for (let i = 0; i < 10; i++) void pacer.acquire().then((at) => sent.push(at));
    await Promise.resolve();
    // The bank's headers then give 100 req/s: the queued lanes go within a second, not in nine.
    pacer.settle(0, { status: 200, headers: { 'ratelimit-policy': '100;w=1' } });
    while (sent.length < 10 && timers.length > 0) {
      timers.sort((a, b) => a.at - b.at);
      const next = timers.shift()!;
      now = Math.max(now, next.at);
      next.fire();
      for (let i = 0; i < 5; i++) await Promise.resolve();
    }
    expect(sent).toHaveLength(10);
    expect(Math.max(...sent)).toBeLessThan(1_200);
  });

  it.each([
    { rate: 50, latencyMs: 20, most: 10 },
    { rate: 10, latencyMs: 20, most: 5 },
  ])(
    'once refusals confirm the limit ($rate/s), it probes past it more gently: at most $most refusals in the last 90 s of 120',
    async (bank) => {
      // Before the probe slowed with confirmations: 16 at 50/s, 8 at 10/s.
      const r = await simulate({ ...bank, burst: 20, lanes: 16, untilMs: 120_000, warmupMs: 30_000 });
      expect(r.refusedLate).toBeLessThanOrEqual(bank.most);
      expect(r.lateRate).toBeGreaterThanOrEqual(bank.rate * 0.97);
    },
  );

  it('still follows a limit the bank raises after the pacer confirmed the old one (10 → 50/s)', async () => {
    const r = await simulate({
      rate: 10,
      burst: 20,
      latencyMs: 20,
      lanes: 16,
      untilMs: 900_000,
      warmupMs: 0,
      raise: { atMs: 120_000, rate: 50 },
    });
    expect(r.lateRate).toBeGreaterThanOrEqual(50 * 0.97);
  });

  it('a RateLimit-Policy header sets the rate outright: no refusal at all', async () => {
    const r = await simulate({
      rate: 50,
      burst: 20,
      latencyMs: 20,
      lanes: 16,
      untilMs: 30_000,
      warmupMs: 0,
      headers: { 'ratelimit-policy': '"default";q=50;w=1' },
    });
    expect(r.rate).toBe(50);
    // The burst is spent by the first requests, sent before any header was seen.
    expect(r.refused).toBeLessThanOrEqual(16);
    expect(r.lateRate).toBeGreaterThanOrEqual(49);
  });
});

describe('a pacing budget shared with other workers', () => {
  it.each([
    { workers: 4, lanes: 8, rate: 40, latencyMs: 5 },
    { workers: 4, lanes: 16, rate: 50, latencyMs: 20 },
    { workers: 2, lanes: 8, rate: 10, latencyMs: 20 },
  ])(
    "$workers workers of one client learn the client's limit ($rate/s), not their share of it: together at the limit, refusals rare",
    async (bank) => {
      const r = await simulate({ ...bank, burst: 4, untilMs: 120_000, warmupMs: 30_000 });
      expect(r.lateRate).toBeGreaterThanOrEqual(bank.rate * 0.95);
      expect(r.refusedLate / r.sent).toBeLessThan(0.01);
    },
  );

  it("4 workers of 2 lanes each under 30/s with a burst of 4 (the rate-limit test's bank): at the limit from the 6th second on, refusals rare", async () => {
    // Guards the slow start and the idle share of a bound: without them the lanes spent the first
    // seconds waiting out their Retry-After, then settled on a plateau below the limit (a bound
    // measured over the climb taken as tight).
    const r = await simulate({
      workers: 4,
      lanes: 8,
      rate: 30,
      burst: 4,
      latencyMs: 5,
      untilMs: 60_000,
      warmupMs: 20_000,
    });
    expect(Math.min(...r.perSecond.slice(5))).toBeGreaterThanOrEqual(27);
    expect(r.lateRate).toBeGreaterThanOrEqual(30 * 0.97);
    expect(r.refusedLate / r.sent).toBeLessThan(0.01);
  });

  it('no budget round trip before any 429; counted (interval 0) after one; once a rate is known every slot at its interval, its wait kept', async () => {
    const asked: number[] = [];
    const slept: number[] = [];
    let now = 5_000;
    const pacer = createPacer({
      now: () => new Date(now),
      sleep: async (ms) => void slept.push(ms),
      shared: {
        reserve: async (intervalMs) => {
          asked.push(intervalMs);
          return { waitMs: asked.length <= 2 ? 0 : 40, sent: asked.length, refused: 0 };
        },
        refuse: async () => ({ sent: asked.length, refused: 1 }),
      },
    });
    // Nothing says the bank limits the client: no round trip to the budget.
    for (let i = 0; i < 3; i++) pacer.settle(await pacer.acquire(), { status: 200 });
    expect(asked).toEqual([]);
    // A 429 with no rate learnt from it (too few requests): from now on the slots are counted.
    pacer.settle(await pacer.acquire(), { status: 429 });
    now += 10;
    pacer.settle(await pacer.acquire(), { status: 200 });
    expect(asked).toEqual([0]);
    expect(pacer.state().rate).toBeNull();
    pacer.settle(now, { status: 200, headers: { 'ratelimit-policy': '"default";q=25;w=1' } });
    await pacer.acquire();
    await pacer.acquire();
    expect(asked).toEqual([0, 40, 40]);
    expect(slept).toEqual([40]);
    expect(pacer.state().waitedMs).toBe(40);
  });

  it("a 429 that another worker of the client had is learnt from too: its pacer starts pacing at the client's rate", async () => {
    let now = 0;
    let sent = 0;
    let refused = 0;
    const pacer = createPacer({
      now: () => new Date(now),
      sleep: async () => undefined,
      shared: {
        reserve: async () => ({ waitMs: 0, sent: ++sent, refused }),
        refuse: async () => ({ sent, refused: ++refused }),
      },
    });
    // One 429 of its own starts the counting (too few requests to learn a rate from) ...
    pacer.settle(await pacer.acquire(), { status: 429 });
    expect(pacer.state().rate).toBeNull();
    // ... then the client sends 40 a second, this process a quarter of them ...
    for (let i = 0; i < 50; i++) {
      now += 25;
      pacer.settle(await pacer.acquire(), { status: 200 });
      sent += 3;
    }
    expect(pacer.state().rate).toBeNull();
    // ... and another worker has a 429: this pacer, with none of its own, learns the client's rate.
    refused += 1;
    now += 25;
    pacer.settle(await pacer.acquire(), { status: 200 });
    expect(pacer.state().refused).toBe(1);
    expect(pacer.state().rate).toBeGreaterThanOrEqual(35);
  });
});

describe('rateFromHeaders', () => {
  it.each([
    [{ 'ratelimit-policy': '100;w=60' }, 100 / 60],
    [{ 'ratelimit-policy': '"burst";q=20;w=1, "day";q=10000;w=86400' }, 20],
    [{ 'ratelimit-limit': '50;w=1' }, 50],
    [{ 'x-ratelimit-limit': '300', 'x-ratelimit-window': '60' }, 5],
    [{ 'x-ratelimit-limit': '300' }, null],
    [{ 'ratelimit-policy': 'garbage' }, null],
    [{}, null],
  ])('%j → %s', (headers, expected) => {
    expect(rateFromHeaders(headers)).toBe(expected);
  });
});

describe('a pacer that lives on across runs (the scheduler keeps one client)', () => {
  it('forgets what an earlier run learned when the next run finds nothing stored (bankdata pacing reset)', () => {
    let now = 1000;
    const pacer = createPacer({ now: () => new Date(now), sleep: async () => undefined });
    pacer.resume({ rate: 30, ceiling: 40 }, { probe: false });
    now += 10_000;
    expect(pacer.learned()).toMatchObject({ ceiling: 40 });
    // The stored row was reset between the runs: this run must not write the old rate back.
    pacer.forget();
    expect(pacer.learned()).toBeNull();
    expect(pacer.state()).toMatchObject({ rate: null, ceiling: null, source: 'none' });
  });
});
