/**
 * The simulated bank of the pacer's tests: a token bucket judged on a fake clock, lanes that wait
 * their slot, the latency and the `Retry-After` second. No real time passes: every sleep is an
 * event on the fake clock.
 */
import { createPacer, type PaceEvent, type Pacer } from '../../src/api/pacer';

export interface SimResult {
  sent: number;
  refused: number;
  /** Refusals after the first `warmupMs`. */
  refusedLate: number;
  /** Accepted requests per second over the last 20 s. */
  lateRate: number;
  /** Accepted requests in each second of the run. */
  perSecond: number[];
  rate: number | null;
  /** The send instants of the refused requests, ms. */
  refusedAt: number[];
  /** With `requests`: when the last of them was accepted, ms. */
  doneAtMs: number | null;
  /** The first worker's pacer, to read after the run. */
  pacer: Pacer;
}

/** `lanes` loops of acquire → latency → bank's bucket (rate, burst) → settle, until `untilMs`. */
export async function simulate(opts: {
  rate: number;
  burst: number;
  latencyMs: number;
  lanes: number;
  untilMs: number;
  warmupMs: number;
  headers?: Record<string, string>;
  /** The bank changes its limit (raises or lowers it) to `rate` at `atMs`. */
  raise?: { atMs: number; rate: number };
  /**
   * Processes of one client (PostgreSQL's cooperating workers), each with its own pacer and
   * `lanes / workers` of the lanes, taking their slots from one shared budget (default 1: no budget).
   */
  workers?: number;
  /** A job of this many accepted requests: the lanes stop when it is done (else at `untilMs`). */
  requests?: number;
  /** Called with each worker's pacer before the first request (e.g. `resume`). */
  setup?: (pacer: Pacer) => void;
  /** Told of each slowdown with the simulation's clock (ms), for tracing. */
  onSlowdown?: (at: number, event: PaceEvent) => void;
}): Promise<SimResult> {
  let now = 0;
  const timers: { at: number; seq: number; fire: () => void }[] = [];
  let seq = 0;
  const sleep = (ms: number) => new Promise<void>((fire) => timers.push({ at: now + ms, seq: seq++, fire }));
  const workers = opts.workers ?? 1;
  const budget = workers > 1 ? sharedBudget(() => now) : undefined;
  const pacers = Array.from({ length: workers }, () =>
    createPacer({
      now: () => new Date(now),
      sleep,
      ...(budget ? { shared: budget } : {}),
      ...(opts.onSlowdown ? { onSlowdown: (e: PaceEvent) => opts.onSlowdown?.(now, e) } : {}),
    }),
  );
  for (const pacer of pacers) opts.setup?.(pacer);
  let tokens = opts.burst;
  let tokensAt = 0;
  const take = () => {
    const rate = opts.raise && now >= opts.raise.atMs ? opts.raise.rate : opts.rate;
    tokens = Math.min(opts.burst, tokens + ((now - tokensAt) / 1000) * rate);
    tokensAt = now;
    if (tokens < 1) return false;
    tokens -= 1;
    return true;
  };
  const result: SimResult = {
    sent: 0,
    refused: 0,
    refusedLate: 0,
    lateRate: 0,
    perSecond: Array.from({ length: Math.ceil(opts.untilMs / 1000) }, () => 0),
    rate: null,
    refusedAt: [],
    doneAtMs: null,
    pacer: pacers[0]!,
  };
  let acceptedTotal = 0;
  let lateAccepted = 0;
  let stop = false;
  const lane = async (pacer: Pacer) => {
    while (!stop) {
      const sentAt = await pacer.acquire();
      if (stop) return;
      result.sent += 1;
      await sleep(opts.latencyMs);
      if (stop) return;
      const ok = take();
      pacer.settle(sentAt, { status: ok ? 200 : 429, headers: opts.headers ?? {} });
      const second = Math.floor(now / 1000);
      if (ok && second < result.perSecond.length) result.perSecond[second]! += 1;
      if (ok && ++acceptedTotal === opts.requests) {
        result.doneAtMs = now;
        stop = true;
      }
      if (!ok) {
        result.refused += 1;
        result.refusedAt.push(sentAt);
        if (sentAt > opts.warmupMs) result.refusedLate += 1;
        await sleep(1000); // Retry-After: 1
      } else if (sentAt > opts.untilMs - 20_000) {
        lateAccepted += 1;
      }
    }
  };
  const lanes = Array.from({ length: opts.lanes }, (_, i) => lane(pacers[i % workers]!));
  while (now < opts.untilMs && !stop) {
    await new Promise((r) => setImmediate(r));
    timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
    const next = timers.shift();
    if (!next) break;
    now = next.at;
    next.fire();
  }
  stop = true;
  let done = false;
  const all = Promise.all(lanes).then(() => void (done = true));
  while (!done) {
    for (const t of timers.splice(0)) t.fire();
    await new Promise((r) => setImmediate(r));
  }
  await all;
  result.lateRate = lateAccepted / 20;
  result.rate = pacers[0]!.state().rate;
  return result;
}

/**
 * The shared budget of PostgreSQL's workers (src/store/pg/work-queue.ts reserveRequestSlot) on
 * the simulation's clock: GCRA with a burst of 1, and the client's sends and refusals counted.
 */
function sharedBudget(now: () => number) {
  let arrivalAt = 0;
  let sent = 0;
  let refused = 0;
  return {
    async reserve(intervalMs: number) {
      arrivalAt = Math.max(arrivalAt, now()) + intervalMs;
      sent += 1;
      return { waitMs: Math.max(0, arrivalAt - intervalMs - now()), sent, refused };
    },
    async refuse() {
      refused += 1;
      return { sent, refused };
    },
  };
}
