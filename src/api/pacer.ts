/**
 * One pacer per client: every Data API request of every lane takes its send slot here, so the
 * client as a whole keeps under the bank's rate limit instead of meeting it with 429s
 * (docs/client.md "Pacing").
 *
 * The bank does not publish its limit. The pacer starts unpaced and learns from what the
 * bank answers:
 * - A `RateLimit-Policy` (`q=…;w=…`, or `N;w=S`) or a `RateLimit-Limit`/`X-RateLimit-Limit`
 *   with a window in seconds, when a bank sends them, give the rate outright.
 * - Otherwise each 429 says the bank's bucket was empty when that request arrived. From such a
 *   moment `a` on, a token bucket of rate r passed at most 1 + r·(t − a) requests by any later
 *   `t`, so (accepted in (a, t] − 1) / (t − a) is a rate the bank certainly allows. Such a bound
 *   is tight only if the client sent at the bank's rate all through (a, t]: its idle share (this
 *   pacer's pace below it, stretches in which the client sent less) is how far it may lie low.
 * - From the first rate (the accepted rate of a second) a slow start grows the rate e-fold a
 *   second until a refusal of a pace it set. Refusals in a row cut the pace by 10%, to no more
 *   than a tight bound's spread above it and a little above what the bank accepted in the last
 *   second (lanes waiting out a `Retry-After` send less than the pace), then the rate climbs
 *   back to the cut pace fast. A refusal after a quiet spell trims 3%, never below the bound.
 * - Between refusals the rate creeps up (fast while the bound is rough, barely once tight), so a
 *   pacer that undershot recovers. A refusal after a quiet spell whose bound agrees with the last
 *   confirms the rate, and the creep slows with each confirmation (fewer 429s once the limit is
 *   known); a bound above the last ends the confirmations, so a limit the bank raises is followed.
 * A refused request itself still waits its `Retry-After` (the retry policy): the bank asks it.
 * A run may `resume` from what an earlier one learned (the rate and the ceiling, the rate at which
 * refusals began; src/sync/pacing-memory.ts stores them): a short run never paces above the
 * ceiling, halves on a refusal it cannot measure and takes a bound's rate when it can; a long run
 * probes above it by a slow start 10 times gentler than the one from nothing.
 *
 * Pure but for the injected clock and sleep: unit-tested with a fake clock. Over 300 lines: the
 * learning and the local and shared slots share one state, kept in one closure.
 */
import { nowMs, type Clock } from '@bankdata/core/clock';
import { partitionPoint } from '@bankdata/core/arrays';

export interface PacerOptions {
  /** The local clock (injectable for tests). */
  now: Clock;
  sleep: (ms: number) => Promise<void>;
  /** How long refusals and accepted sends are remembered for learning (default 5 minutes). */
  memoryMs?: number;
  /**
   * A budget shared with other processes of the same client (PostgreSQL's cooperating workers,
   * docs/postgres.md "Cooperating workers"). Without it the slots are this process's own.
   */
  shared?: SharedBudget;
  /**
   * Told when a refusal lowers the pace (req/s before and after). The pacer only reports it; the
   * CLI shows it (src/cli/progress.ts `reportPace`).
   */
  onSlowdown?: (event: PaceEvent) => void;
}

/** The pace lowered by a refusal of the bank: req/s before and after. */
export interface PaceEvent {
  fromRate: number;
  toRate: number;
}

/**
 * The pacing budget of one client shared by its processes. The bank limits the client, so a
 * pacer learns from the client's requests, not from its own share of them: the budget counts the
 * client's slots and its 429s, and the bound a refusal gives counts the client's requests accepted
 * since an earlier refusal of this process (the slots reserved between the two less the 429s
 * counted between them, both read when each refusal was answered).
 */
export interface SharedBudget {
  /**
   * Reserves (and counts) the client's next send slot at `intervalMs` (0 while no rate is known:
   * the slot is only counted): how long to wait, ms, and the client's counts so far, this slot
   * included.
   */
  reserve(intervalMs: number): Promise<BudgetCounts & { waitMs: number }>;
  /** Counts a 429 answered to the client; returns the counts, this one included. */
  refuse(): Promise<BudgetCounts>;
}

export interface BudgetCounts {
  sent: number;
  refused: number;
}

export interface PacerState {
  /** Requests per second the pacer allows now; null while it has learned no limit. */
  rate: number | null;
  /** The rate at which the bank's refusals began (req/s), or null while none is known. */
  ceiling: number | null;
  /** Where the rate came from: none yet, refusals, rate-limit headers, or an earlier run (`resume`). */
  source: 'none' | 'refusals' | 'headers' | 'stored';
  accepted: number;
  refused: number;
  /** Total time requests waited for their slot, ms. */
  waitedMs: number;
  /** Mean time from send to answer (moving average), ms; null before any answer. */
  latencyMs: number | null;
}

export interface Pacer {
  /** Waits for this request's send slot; returns the send instant to pass to `settle`. */
  acquire(): Promise<number>;
  /** What the bank answered the request sent at `sentAt`. */
  settle(
    sentAt: number,
    answer: { status: number; headers?: Readonly<Record<string, string | string[] | undefined>> },
  ): void;
  state(): PacerState;
  /** The request given a slot got no answer (a timeout, a dropped connection): its place in flight is freed. */
  abandon(): void;
  /**
   * Starts from what an earlier run learned (the stored rate, never above its ceiling). `probe`:
   * a long run (a backfill) may probe above the ceiling, gently; without it the pacer never paces
   * above the ceiling, and a refusal only lowers it.
   */
  resume(stored: LearnedPacing, options: { probe: boolean }): void;
  /**
   * A new run with nothing stored (never, or reset by `bankdata pacing reset`): forgets what an
   * earlier run of this pacer learned (a client that lives on, the scheduler's), as a new pacer.
   */
  forget(): void;
  /** What to keep for the next run: the rate now (never above the ceiling) and the ceiling; null before any limit. */
  learned(): LearnedPacing | null;
}

/** What a pacer learned of the bank's limit, as a run stores it (src/store/pacing.ts). */
export interface LearnedPacing {
  /** Requests per second. */
  rate: number;
  /** The rate at which refusals began, requests per second; null when the run saw none. */
  ceiling: number | null;
}

/** A certified bound needs this many accepted requests after its refusal to be trusted. */
const MIN_COUNT = 4;
/** Headroom above the certified bound, besides the bound's own count uncertainty. */
const PROBE = 0.001;
/** A bound measured over fewer than 1 / ROUGH requests is rough: the rate creeps up fast. */
const ROUGH = 0.05;
/** Upward creep per second between refusals, at least (the bound's uncertainty when larger). */
const CREEP_PER_S = 0.0005;
/** Before any bound: a refusal with no estimate yet starts from the accepted rate of the last second. */
const FIRST_WINDOW_MS = 1000;
/** How fast the creep itself grows while no refusal comes, per second². */
const ACCELERATION_PER_S2 = 0.0003;
/** A refusal more than this after the one before is isolated: the rate is only trimmed. */
const ISOLATED_MS = 1000;
const TRIM = 0.03;
/** Requests accepted since the bucket ran empty that measure its rate in the slow start (fewer: the second's). */
const EMPTY_COUNT = 2;
/** Requests in flight at first, before any rate is known (one more each round trip). */
const FIRST_FLIGHT = 2;
/**
 * …but one more each this many ms at least: when round trips are quicker, the window grows by one
 * per this span, not per round trip. The refusals when the bank's burst runs out are about the
 * window then, √(2 × burst × growth per round trip); a quick round trip needs a small window for
 * the bank's rate (rate × round trip), so growing it slower costs little time.
 */
const FLIGHT_GROWTH_MS = 80;
/** …and by one each 16 round trips at least (at 5 ms a round trip and quicker). */
const MIN_FLIGHT_SHARE = 1 / 16;
/** …or more than this many intervals of the pace after it, at a low pace. */
const ISOLATED_SENDS = 8;
/** A cut goes no higher than the accepted rate of the last second, or of this many intervals at a low pace. */
const RECENT_SENDS = 8;
/**
 * After the slow start, a cut goes to the accepted rate only when that is under this share of the
 * pace (the lanes sent far less than it allowed); nearer, the 10% cut is enough.
 */
const FAR_BELOW = 0.5;
/** The cut of a refusal that follows another within ISOLATED_MS (the pace is above the bank's). */
const CUT = 0.1;
/** The creep goes no further than this many times the rate this process sent lately. */
const SENT_CAP = 2;
/** How far behind now a slot may be, at least (a late timer's lane and the next catch up). */
const CATCH_UP_MS = 50;
/** The slowest pace, req/s. */
const MIN_RATE = 0.5;

/** After a cut, refusals of requests sent within this long (or two latencies) answer the old pace. */
const HOLDOFF_MS = 250;
/** Two refusals closer than this measure no rate (their counts are read at different moments). */
const MIN_SPAN_MS = 200;
/** The most the rate creeps above its last bound (a client that never reaches the limit). */
const MAX_CREEP = 8;
/** The creep of a rough bound stops at e^MAX_GROWTH times it (a client that never reaches the limit). */
const MAX_GROWTH = 8;
/** Refusals tried as the start of a bound (the most recent ones). */
const MAX_ANCHORS = 64;
/** Upward creep per second while no bound is certified yet. */
const UNKNOWN_CREEP_PER_S = 1;
/** A refusal confirms the rate when its bound is within this of the bound before it. */
const CONFIRM = 0.02;
/**
 * Confirmations that slow the probe: with n, the creep is divided by 1 + n and its acceleration
 * by (1 + n)²; at most this many, so a limit the bank raises is still followed within minutes.
 */
const MAX_CONFIRMED = 3;
/**
 * A long run resumed from a stored rate probes above it this much a second (relative) until the
 * first refusal: 10 times gentler than the slow start, and a doubled limit is found in about 7 s.
 */
const PROBE_GROWTH_PER_S = 0.1;
/** A run resumed from a stored rate without probing: how much the rate is taken to lie below the bank's. */
const STORED_SPREAD = 0.01;

export function createPacer(options: PacerOptions): Pacer {
  const memoryMs = options.memoryMs ?? 300_000;
  const accepted: number[] = []; // send instants, ascending-ish (settled in answer order)
  const sends: number[] = []; // send instants of every settled request, accepted or refused, ascending
  const refusals: Refusal[] = [];
  // A refusal waits for the shared budget to count it before the pacer learns from it; the next
  // slot is taken after that, and a failure to count fails the next request.
  let learning: Promise<void> = Promise.resolve();
  let budgetFailure: { error: unknown } | null = null;
  // With a shared budget: the client's 429s known to this pacer, and the 429s of this process
  // being counted. A rise in the count this process did not cause is another worker's refusal:
  // this pacer learns from it too, so the workers' pacers learn from the same refusals and keep
  // to the same rate. Slots are counted from this process's first 429 on (before it, nothing
  // says the bank limits the client: no round trip to the budget). The counts each slot returned
  // are kept (`readings`, as long as the memory): the first rate is the client's accepted rate of
  // a second, a cut goes no higher than the last second's, and they show the idle stretches of a
  // bound's span.
  let limited = false;
  let knownRefused = 0;
  let counting = 0;
  const readings: (BudgetCounts & { at: number })[] = [];
  let base: number | null = null; // req/s at `baseAt`
  let baseAt = 0;
  let loweredAt = -Infinity; // when the rate was last set or cut by a refusal
  let uncertainty = 0.2; // relative, of the current bound
  let source: PacerState['source'] = 'none';
  let acceptedTotal = 0;
  let refusedTotal = 0;
  // The 429s since the run began (resume or forget): what `learned` may say of this run.
  let refusedThisRun = 0;
  let waitedMs = 0;
  let latencyMs: number | null = null;
  // Refusals in a row whose bound agreed with the one before: the limit is where the pacer
  // believes, so it probes past it ever more gently (a higher limit still shows: the creep
  // never stops, and a bound above the last one starts the count again).
  let confirmed = 0;
  // The rate at which refusals began: the last tight bound measured (or stored). Without `probe`
  // the rate never goes above it and a bound only lowers it.
  let ceiling: number | null = null;
  let probe = true;
  // The lanes waiting for a send slot, first come first served. Each slot is one interval of the
  // rate in force when it is given after the last one, so a pace a refusal lowers spaces the queued
  // lanes anew, and one that rises (the creep, the climb back after a cut) speeds them at once: a
  // slot reserved ahead at the pace of its reservation would hold a queue of lanes for seconds at a
  // pace long since left (16 lanes at 1 req/s). One timer at a time wakes the first lane; a timer
  // the rate overtook is passed over (`timer` is the one in force).
  const waiting: { since: number; grant: (slot: number) => void }[] = [];
  let timer: { at: number } | null = null;
  let lastSlot = -Infinity;
  // Before any rate is known, the requests in flight are held to a window that starts at
  // FIRST_FLIGHT and grows by one each round trip, or each FLIGHT_GROWTH_MS when round trips are
  // quicker (1/window with each accepted answer, times the share of FLIGHT_GROWTH_MS a round trip
  // takes): when the bank's burst runs out, a window's worth of requests meets its empty bucket,
  // not every lane at once (16 refusals in the first 40 ms of a run from nothing at 50 req/s,
  // burst 20, 16 lanes; 7 with a window grown each 20 ms round trip, 4 with one grown each 80 ms).
  // A window grows past the lanes in a few dozen round trips; `abandon` frees the place of a
  // request that got no answer.
  let inFlight = 0;
  let flight = FIRST_FLIGHT;
  // When a short run last cut its pace (the local clock when the refusal was answered).
  let cutAt = -Infinity;
  // Slow start: from the first rate until a refusal of a pace it set, the rate grows e-fold a
  // second (UNKNOWN_CREEP_PER_S), whatever the bounds, which are rough while the lanes wait out
  // their first `Retry-After`s.
  let starting = true;
  // The send instant of the refusal that gave the first rate, from nothing (not with a shared
  // budget, nor after `resume`): the bank's bucket was empty then, so what it accepted since is
  // its rate while the slow start sends above it.
  let emptySince: number | null = null;
  // After a cut to the accepted rate of the last second, below the pace the cut allows: the rate
  // climbs back to this fast, then creeps (0 when there is none).
  let threshold = 0;
  // The rate each refusal set, in order: between them it only grows.
  const paces: { at: number; rate: number }[] = [];
  /** The lowest pace in (from, to]: the rate set last before `from`, or any set within. */
  const minPace = (from: number, to: number): number => {
    let lowest = Infinity;
    for (const p of paces) {
      if (p.at > to) break;
      lowest = p.at <= from ? p.rate : Math.min(lowest, p.rate);
    }
    return lowest;
  };
  const setBase = (t: number, rate: number) => {
    base = rate;
    baseAt = t;
    paces.push({ at: t, rate });
  };

  /** Learns from a 429; the slots of the lanes still waiting follow the new rate (`release`). */
  function learnFrom(refusal: Refusal): void {
    const now = nowMs(options.now);
    const before = rateAt(now);
    learnFromRefusal(refusal);
    const after = rateAt(now);
    if (before !== null && after !== null && after < before) options.onSlowdown?.({ fromRate: before, toRate: after });
  }

  /**
   * The first waiting lane's slot: one interval of the rate now after the last slot, not before
   * the lane came, and at most CATCH_UP_MS or one interval (the longer) before now. A timer that
   * woke late (a busy event loop: a window's commit) sends its lane at once and the next one
   * interval after the slot it was due, so the pace holds though timers are late by a few
   * milliseconds (an interval is 5 ms at 200 req/s); but a last slot long past (the window's,
   * before the first rate) gives no more credit: the lanes queued when a first rate is learnt do
   * not all go at once into the bucket that just refused.
   */
  function nextSlot(since: number, t: number): number {
    const rate = rateAt(t);
    if (rate === null) return inFlight < flight ? Math.max(since, t) : Infinity;
    const interval = 1000 / rate;
    return Math.max(since, lastSlot + interval, t - Math.max(interval, CATCH_UP_MS));
  }

  /**
   * Gives the waiting lanes their slots, in order, while they are due; else sets the timer for the
   * first (replacing one set for a slot the rate now gives well before). A timer that wakes before
   * its lane is due (the rate fell meanwhile) sleeps on; one whose clock stood still (a test's
   * sleep) gives its slot all the same.
   */
  function release(woken?: { at: number }): void {
    for (let lane = waiting[0]; lane !== undefined; lane = waiting[0]) {
      const t = nowMs(options.now);
      const slot = nextSlot(lane.since, t);
      const due = slot <= t || (woken !== undefined && slot <= woken.at);
      woken = undefined;
      if (!due) {
        if (slot === Infinity) return; // the window is full: an answer releases the next
        // A timer set is kept unless the slot came well forward (a slight creep sets no new one).
        if (timer && timer.at - slot <= 1 + (timer.at - t) / 10) return;
        const mine = { at: slot };
        timer = mine;
        void options.sleep(slot - t).then(() => {
          if (timer !== mine) return;
          timer = null;
          release(mine);
        });
        return;
      }
      waiting.shift();
      waitedMs += Math.max(0, Math.max(slot, t) - lane.since);
      lastSlot = slot;
      inFlight += 1;
      lane.grant(slot);
    }
  }

  const rateAt = (t: number): number | null => {
    if (base === null) return null;
    if (source === 'headers') return base;
    const free = Math.min(freeRateAt(t, base), sentCap(t, base));
    return !probe && ceiling !== null ? Math.min(free, ceiling) : free;
  };

  /**
   * The creep goes no further than SENT_CAP times what this process sent lately (over a second,
   * or 8 intervals of the base at a low pace), never below the base or the pace a cut climbs back
   * to: a pace the lanes never used measures nothing. Without it, lanes that and not the pace
   * limited the sending (16 lanes at 500 ms send 32 req/s whatever the pace) met too few refusals
   * in a row to cut, and a rough bound's creep took the pace to hundreds of times the bank's rate,
   * which lanes added later (spare lanes) would then have sent at. With a shared budget this
   * process sends only its share of the client's requests: no cap.
   */
  function sentCap(t: number, base: number): number {
    if (options.shared) return Infinity;
    const window = recentWindow(base);
    return Math.max(base, threshold, (SENT_CAP * sentIn(t - window, t) * 1000) / window);
  }

  /** What "lately" spans at a pace: a second, or RECENT_SENDS intervals when longer (a low pace). */
  function recentWindow(rate: number): number {
    return Math.max(FIRST_WINDOW_MS, (RECENT_SENDS * 1000) / rate);
  }

  function freeRateAt(t: number, base: number): number {
    // Creep fast while the bound is rough; once it is tight, barely (each probe past the
    // limit costs a refusal).
    const gentle = 1 + confirmed;
    const creep = uncertainty > ROUGH ? uncertainty : CREEP_PER_S / gentle;
    // The longer without a refusal, the faster it creeps: a bound measured while the lanes
    // sent less than the bank allowed is low, and only a probe past it shows that.
    const s = Math.max(0, t - baseAt) / 1000;
    const slow =
      Math.max(base, threshold) *
      Math.exp(Math.min(creep * s, MAX_GROWTH)) *
      Math.min(MAX_CREEP, Math.exp((ACCELERATION_PER_S2 * s * s) / (2 * gentle * gentle)));
    // Below the pace last refused (less its cut), back up to it fast.
    return base < threshold ? Math.min(slow, base * Math.exp(Math.min(UNKNOWN_CREEP_PER_S * s, MAX_GROWTH))) : slow;
  }

  const forget = (t: number) => {
    const cut = t - memoryMs;
    while ((accepted[0] ?? Infinity) < cut) accepted.shift();
    while ((sends[0] ?? Infinity) < cut) sends.shift();
    while ((readings[0]?.at ?? Infinity) < cut) readings.shift();
    // The last pace set before the memory is kept: it was in force at its start.
    while ((paces[1]?.at ?? Infinity) < cut) paces.shift();
    while ((refusals[0]?.at ?? Infinity) < cut) refusals.shift();
  };

  /** Accepted sends in (from, to]: `accepted` is kept sorted. */
  const acceptedIn = (from: number, to: number): number => countUpTo(accepted, to) - countUpTo(accepted, from);
  /** Settled sends, accepted or refused, in (from, to]. */
  const sentIn = (from: number, to: number): number => countUpTo(sends, to) - countUpTo(sends, from);

  /**
   * The requests accepted between the refusals `a` and `t`: this process's own, or with a shared
   * budget the client's. The budget's counts are read when each refusal is answered, so they
   * span (answer of a, answer of t]: as long as (a, t], and `t`'s own slot and 429 cancel. Slots
   * taken before a pacer knows a rate are not counted, which only lowers the bound.
   */
  const acceptedBetween = (a: Refusal, t: Refusal): number =>
    a.client && t.client
      ? t.client.sent - a.client.sent - (t.client.refused - a.client.refused)
      : acceptedIn(a.at, t.at);

  /**
   * The share of (a, t] in which the client was not seen sending at `rate` or more (0 to 1): a
   * bound over a span with idle stretches (lanes waiting out a `Retry-After`, the slow start) may
   * lie below the bank's rate by that much, since its bucket filled meanwhile. Idle: this pacer's
   * pace below the rate (all of it), stretches between this process's readings of the client's
   * counts with fewer sends than the rate (less two), or gaps between this process's own sends
   * longer than two intervals.
   */
  function idleShare(a: Refusal, t: Refusal, rate: number): number {
    const span = t.at - a.at;
    if (span <= 0 || minPace(a.at, t.at) < rate * (1 - CUT)) return 1;
    let idleMs = 0;
    if (a.client && t.client) {
      // Between readings only: a refusal's own counts are read when it is answered, later
      // than it was sent.
      const within = readings.slice(
        partitionPoint(readings, (r) => r.at <= a.at),
        partitionPoint(readings, (r) => r.at <= t.at),
      );
      within.forEach((r, i) => {
        const last = within[i - 1];
        if (last === undefined) return;
        const missing = (rate * (r.at - last.at)) / 1000 - 2 - (r.sent - last.sent);
        if (missing > 0) idleMs += (missing * 1000) / rate;
      });
    } else {
      const maxGap = 2000 / rate;
      let last = a.at;
      for (const at of sends.slice(countUpTo(sends, a.at), countUpTo(sends, t.at))) {
        idleMs += Math.max(0, at - last - maxGap);
        last = at;
      }
      idleMs += Math.max(0, t.at - last - maxGap);
    }
    return Math.min(1, idleMs / span);
  }

  function learnFromRefusal(refusal: Refusal): void {
    const t = refusal.at;
    let best: { rate: number; count: number; idle: number; a: Refusal } | null = null;
    for (const a of refusals.slice(-MAX_ANCHORS)) {
      // Another worker's refusal is known only to have come after this process's reading before
      // it: as an anchor, its earliest moment (the bound then only errs low).
      const from = a.earliest ?? a.at;
      if (t - from < MIN_SPAN_MS) continue;
      const count = acceptedBetween(a, refusal);
      if (count < MIN_COUNT) continue;
      const rate = ((count - 1) * 1000) / (t - from);
      if (!best || rate > best.rate) best = { rate, count, idle: 1, a };
    }
    if (best) best.idle = idleShare(best.a, refusal, best.rate);
    // How far the bank's rate may lie above the bound: its count's own uncertainty, or the share
    // of its span the client was idle; past ROUGH, a bound that only creeps up fast.
    const tight = best !== null && best.idle <= ROUGH;
    const spread =
      best && tight ? Math.max(1 / best.count, best.idle) : Math.max(ROUGH * 1.01, best ? 1 / best.count : 0);
    if (best && tight) {
      // The bank's rate lies at this bound or up to its spread above it: refusals begin there. A
      // bound over few requests (a spread over 5%) is taken at its top, else at itself (a short
      // run held under it meets no refusal). Without `probe` a bound only lowers the ceiling (a
      // nightly never finds a raised limit).
      const bound = best.rate * (1 + PROBE) * (spread > ROUGH ? 1 + spread : 1);
      ceiling = probe || ceiling === null ? bound : Math.min(ceiling, bound);
    } else if (best && probe) {
      // A bound with idle stretches lies low, but the bank allows it all the same.
      ceiling = Math.max(ceiling ?? 0, best.rate * (1 + PROBE));
    }
    const current = rateAt(t);
    if (base !== null && current !== null) {
      const certified = best ? best.rate * (1 + PROBE) : 0;
      if (!probe) {
        learnInShortRun(t, current, best && { certified, count: best.count });
        return;
      }
      if (t < loweredAt + holdoffMs()) {
        // Sent before the last cut could act (in flight, or a slot reserved at the old pace):
        // it says nothing of the new rate. A bound above the rate still raises it.
        if (best && certified > current) raiseTo(t, certified, spread);
        return;
      }
      const previous = refusals.at(-1)?.at;
      // At a low pace a second holds few sends: isolated means some sends apart, not only a second.
      const isolated =
        !starting &&
        (previous === undefined || t - previous > Math.max(ISOLATED_MS, ISOLATED_SENDS * (1000 / current)));
      if (best && isolated) {
        // A refusal after a quiet spell whose bound agrees with the last one confirms the rate.
        confirmed = Math.abs(certified - base) <= base * CONFIRM ? Math.min(MAX_CONFIRMED, confirmed + 1) : 0;
      } else confirmed = 0;
      if (isolated) {
        // One refusal after a quiet spell is a clump of sends (a stalled event loop, a burst of
        // lanes), not a rate far above the bank's: trim a little, never below the bound.
        setBase(t, Math.max(MIN_RATE, Math.min(current, Math.max(certified, current) * (1 - TRIM))));
        uncertainty = Math.min(uncertainty, spread);
        threshold = 0;
      } else if (starting && best && !refusal.client) {
        // The end of the slow start, with a bound from the first refusals: the bank's bucket was
        // empty then and is empty now, so the requests accepted between are its rate over the
        // span, less only what it lost while full (the slow start sent less than the rate for a
        // while, its idle share). The pace goes to the bound, and creeps from there at its spread.
        setBase(t, Math.max(MIN_RATE, Math.min(current, certified)));
        uncertainty = spread;
        threshold = 0;
        starting = false;
      } else {
        // Refusals in a row, or the end of the slow start: this pace is above the bank's. Cut
        // it, to no more than a tight bound's spread above that bound, and to a little above
        // what the bank accepted over the last second (the lanes may have sent far less than
        // the pace allowed): from there back to the cut pace fast, then creep.
        const paced = Math.min(current * (1 - CUT), tight && !starting ? certified * (1 + spread) : Infinity);
        // Over a second, or over as many sends as make a rate at a low pace; in the slow start of
        // a run from nothing, since its first refusal when that is shorter and holds at least
        // EMPTY_COUNT accepted requests (the second before it held the bank's burst: at 10 req/s
        // with a burst of 20, three times its rate; on fewer, a cut could go to MIN_RATE).
        const sinceEmpty =
          starting &&
          !refusal.client &&
          emptySince !== null &&
          t - emptySince >= MIN_SPAN_MS &&
          t - emptySince < recentWindow(current) &&
          acceptedIn(emptySince, t) >= EMPTY_COUNT
            ? t - emptySince
            : null;
        const window = sinceEmpty ?? recentWindow(current);
        const recent = refusal.client ? clientAcceptedSince(t - window, refusal.client) : acceptedIn(t - window, t);
        // Since the bucket ran empty, a count of a few: taken at its top (one more), not below.
        const counted = recent === null ? null : sinceEmpty === null ? recent : recent + 1;
        const acceptedRate = counted === null ? Infinity : ((counted * 1000) / window) * (1 + ROUGH);
        const accepted = starting || acceptedRate < current * FAR_BELOW ? acceptedRate : Infinity;
        const cutTo = Math.max(MIN_RATE, Math.min(current, Math.max(certified, Math.min(paced, accepted))));
        setBase(t, cutTo);
        // A cut of about 10% after the slow start: the pace is near the bank's and the creep that
        // brought it there was too fast (a rough bound's), so the creep halves, each such cut again.
        // Without it a bank with a small burst refused the pace every second or two, the creep
        // taking back each cut. A deeper cut keeps its bound's creep, to climb back.
        const near = !starting && cutTo >= current * (1 - CUT) * 0.95;
        uncertainty = near ? Math.min(spread, uncertainty / 2) : spread;
        // A cut to what the bank accepted since its bucket ran empty is a cut to its rate: no
        // climb back to the pace cut from, only the creep.
        threshold = sinceEmpty !== null ? Math.max(certified, cutTo) : Math.max(certified, paced);
        starting = false;
      }
      loweredAt = t;
      return;
    }
    if (best) {
      // The first rate from a bound (another worker's refusals): the slow start from it.
      setBase(t, best.rate * (1 + PROBE));
    } else {
      // The first refusal: the last second's accepted rate (it may include the bank's burst);
      // later refusals measure the true rate against this one. A client that sent only a few
      // requests in that second was not refused for its own rate: `Retry-After` answers it.
      // With a shared budget, the client's (from the counts of this process's slots).
      // A full second of counts is needed: the first 429s only start the counting.
      const recent = refusal.client
        ? clientAcceptedSince(t - FIRST_WINDOW_MS, refusal.client)
        : acceptedIn(t - FIRST_WINDOW_MS, t);
      if (recent === null) return;
      if (recent < MIN_COUNT) {
        // Few accepted, but many refused in the same second: the client sends above a bank whose
        // limit is below MIN_COUNT a second, and its lanes waiting out `Retry-After` together
        // would meet the empty bucket again each second. The first rate is what was accepted.
        const refused = refusal.client
          ? clientRefusedSince(t - FIRST_WINDOW_MS, refusal.client)
          : sentIn(t - FIRST_WINDOW_MS, t) - recent;
        if (refused === null || refused < MIN_COUNT) return;
      }
      setBase(t, Math.max(MIN_RATE, (recent * 1000) / FIRST_WINDOW_MS));
      emptySince = t;
    }
    confirmed = 0;
    uncertainty = UNKNOWN_CREEP_PER_S;
    source = 'refusals';
    loweredAt = t;
  }

  /**
   * A refusal in a short run, which paces at a stored rate and never above the ceiling: a clump
   * of sends, or a limit the bank lowered. Requests sent before the last cut was made answer the
   * old pace and are passed over (the lanes still waiting take their slots at the new pace).
   * With a bound (a rate the bank allows: idle stretches only make it low) the pace and the
   * ceiling go to it: refusals began at or below the pace refused, and the bank allows the bound.
   * Without one (no earlier refusal to measure from) the pace halves, each refusal again,
   * and climbs back fast to a little under the refused pace: a lowered limit costs a few refusals
   * before a bound measures it, a clump a second at a lower pace.
   */
  function learnInShortRun(t: number, current: number, bound: { certified: number; count: number } | null): void {
    if (t < cutAt) return;
    if (bound) {
      // Between two refusals the bank's bucket was empty at both ends, so its rate lies between
      // (count − 1) and (count + 1) a span: the certified bound is the bottom of that. Over the
      // few requests of the short spans a lowered limit leaves (the pace halved, then back up
      // fast), the bottom lies far under the limit (8 requests: 12%), and a short run never
      // creeps above it: the pace takes the middle of the lower half. Not a rate the bank certainly
      // allows (up to 0.5 / (count − 1) above its rate at worst): a refusal there lowers it again.
      const rate = (bound.certified * (bound.count - 0.5)) / (bound.count - 1);
      setBase(t, Math.max(MIN_RATE, Math.min(current, rate)));
      ceiling = Math.min(ceiling ?? Infinity, Math.max(MIN_RATE, rate));
      threshold = 0;
    } else {
      // Refusals began at or below the pace refused.
      ceiling = Math.min(ceiling ?? Infinity, current);
      setBase(t, Math.max(MIN_RATE, current / 2));
      threshold = current * (1 - CUT);
    }
    uncertainty = STORED_SPREAD;
    loweredAt = t;
    cutAt = nowMs(options.now);
  }

  /** A certified bound above the current rate: the rate starts again from it. */
  function raiseTo(t: number, rate: number, spread: number): void {
    setBase(t, rate);
    if (!starting) uncertainty = spread;
    confirmed = 0;
  }

  /** How long after a cut refusals are still answers to the old pace. */
  const holdoffMs = () => Math.max(HOLDOFF_MS, 2 * (latencyMs ?? 0));

  /**
   * Another worker's 429s, seen in the counts a reservation returned: learnt as one refusal sent
   * a latency before now (the counts then span the same time as its bound's, as for this
   * process's own refusals, whose counts are read when they are answered).
   */
  function learnFromOthers(client: BudgetCounts): void {
    if (counting > 0) return; // this process's own 429 may be among them: it is learnt when counted
    if (client.refused <= knownRefused) return;
    knownRefused = client.refused;
    const at = nowMs(options.now) - (latencyMs ?? 0);
    const earliest = Math.min(at, readings.at(-2)?.at ?? at);
    const refusal = { at, earliest, client: { sent: client.sent, refused: client.refused } };
    if (source !== 'headers') learnFrom(refusal);
    refusals.push(refusal);
  }

  /** The counts the last slot at or before `from` returned (undefined before the first). */
  const readingAt = (from: number) => readings[partitionPoint(readings, (r) => r.at <= from) - 1];

  /** The client's requests accepted since `from`, by the counts this process's slots returned. */
  function clientAcceptedSince(from: number, now: BudgetCounts): number | null {
    const since = readingAt(from);
    return since !== undefined ? now.sent - since.sent - (now.refused - since.refused) : null;
  }

  /** The client's 429s since `from`, by the counts this process's slots returned. */
  function clientRefusedSince(from: number, now: BudgetCounts): number | null {
    const since = readingAt(from);
    return since !== undefined ? now.refused - since.refused : null;
  }

  /** A slot from the shared budget: every send of the client is counted, paced once a rate is known. */
  async function acquireShared(shared: SharedBudget): Promise<number> {
    await learning;
    if (budgetFailure) {
      const { error } = budgetFailure;
      budgetFailure = null;
      throw error;
    }
    const rate = rateAt(nowMs(options.now));
    if (rate === null && !limited) return nowMs(options.now);
    const slot = await shared.reserve(rate === null ? 0 : 1000 / rate);
    readings.push({ at: nowMs(options.now), sent: slot.sent - 1, refused: slot.refused });
    learnFromOthers(slot);
    const wait = Math.max(0, slot.waitMs);
    if (wait > 0) {
      waitedMs += wait;
      await options.sleep(wait);
    }
    return nowMs(options.now);
  }

  function learnFromHeaders(headers: Readonly<Record<string, string | string[] | undefined>>): void {
    const rate = rateFromHeaders(headers);
    if (rate === null) return;
    base = rate;
    baseAt = nowMs(options.now);
    source = 'headers';
  }

  return {
    async acquire() {
      if (options.shared) return acquireShared(options.shared);
      const since = nowMs(options.now);
      if (waiting.length === 0 && rateAt(since) === null && inFlight < flight) {
        lastSlot = since;
        inFlight += 1;
        return since;
      }
      return new Promise<number>((grant) => {
        waiting.push({ since, grant });
        release();
      });
    },
    settle(sentAt, answer) {
      if (!options.shared) inFlight = Math.max(0, inFlight - 1);
      if (answer.headers) learnFromHeaders(answer.headers);
      const t = nowMs(options.now);
      // A clock stepped back (an NTP step, a VM resumed) measures no negative round trip.
      const roundTrip = Math.max(0, t - sentAt);
      latencyMs = latencyMs === null ? roundTrip : latencyMs * 0.9 + roundTrip * 0.1;
      // One more each round trip, or each FLIGHT_GROWTH_MS when round trips are quicker; at least
      // one each 1 / MIN_FLIGHT_SHARE round trips (a round trip the clock cannot see: a frozen or
      // coarse clock, an answer within its millisecond).
      if (answer.status !== 429 && base === null)
        flight += Math.min(1, Math.max(MIN_FLIGHT_SHARE, latencyMs / FLIGHT_GROWTH_MS)) / Math.floor(flight);
      forget(t);
      sends.splice(countUpTo(sends, sentAt), 0, sentAt);
      if (answer.status === 429) {
        refusedTotal += 1;
        refusedThisRun += 1;
        const learn = (client: BudgetCounts | null) => {
          const refusal = { at: sentAt, client };
          if (source !== 'headers') learnFrom(refusal);
          refusals.push(refusal);
        };
        const { shared } = options;
        if (shared) {
          limited = true;
          counting += 1;
          learning = learning
            .then(() => shared.refuse())
            .then(
              (client) => {
                knownRefused = Math.max(knownRefused, client.refused);
                learn(client);
              },
              (error: unknown) => {
                budgetFailure = { error };
              },
            )
            .finally(() => {
              counting -= 1;
            });
        } else learn(null);
      } else {
        acceptedTotal += 1;
        accepted.splice(countUpTo(accepted, sentAt), 0, sentAt);
      }
      release();
    },
    resume(stored, opts) {
      if (source === 'headers') return;
      const t = nowMs(options.now);
      // A new run: what an earlier run of this pacer saw (a client that lives on, the scheduler's)
      // measures nothing of it, since its spans would cross the idle time between the runs.
      accepted.length = 0;
      sends.length = 0;
      refusals.length = 0;
      readings.length = 0;
      paces.length = 0;
      refusedThisRun = 0;
      probe = opts.probe;
      ceiling = stored.ceiling;
      setBase(t, stored.ceiling === null ? stored.rate : Math.min(stored.rate, stored.ceiling));
      source = 'stored';
      confirmed = 0;
      threshold = 0;
      loweredAt = -Infinity;
      // A long run probes above the stored rate by a gentle slow start (its first refusal cuts as
      // the slow start's does); a short one holds the stored rate, creeping at most to the ceiling.
      starting = opts.probe;
      // Not a run from nothing: its slow start has no refusal that emptied the bucket.
      emptySince = null;
      uncertainty = opts.probe ? PROBE_GROWTH_PER_S : STORED_SPREAD;
      release();
    },
    forget() {
      if (source === 'headers') return;
      accepted.length = 0;
      sends.length = 0;
      refusals.length = 0;
      readings.length = 0;
      paces.length = 0;
      refusedThisRun = 0;
      base = null;
      baseAt = 0;
      source = 'none';
      ceiling = null;
      probe = true;
      starting = true;
      emptySince = null;
      confirmed = 0;
      threshold = 0;
      uncertainty = 0.2;
      loweredAt = -Infinity;
      cutAt = -Infinity;
      flight = FIRST_FLIGHT;
      release();
    },
    abandon() {
      if (options.shared) return;
      inFlight = Math.max(0, inFlight - 1);
      release();
    },
    learned() {
      const t = nowMs(options.now);
      const rate = rateAt(t);
      if (rate === null) return null;
      if (probe && source !== 'headers') {
        // The requests accepted since a refusal are a rate the bank allows, though none refused
        // them since: a long run that probed past the ceiling unrefused raises it so far.
        for (const a of refusals.slice(-MAX_ANCHORS)) {
          const count = acceptedIn(a.at, t);
          if (a.client === null && t - a.at >= MIN_SPAN_MS && count >= MIN_COUNT)
            ceiling = Math.max(ceiling ?? 0, ((count - 1) * 1000) / (t - a.at));
        }
      }
      if (source === 'headers') return { rate, ceiling: rate };
      // A run that was refused but measured no tight bound: refusals began at most where it ran.
      const known = ceiling ?? (refusedThisRun > 0 ? rate : null);
      return { rate: known === null ? rate : Math.min(rate, known), ceiling: known };
    },
    state() {
      return {
        rate: rateAt(nowMs(options.now)),
        ceiling,
        source,
        accepted: acceptedTotal,
        refused: refusedTotal,
        waitedMs,
        latencyMs,
      };
    },
  };
}

/** A 429: when its request was sent; with a shared budget, the client's counts when it was answered. */
interface Refusal {
  at: number;
  /** Another worker's refusal: the earliest it can have been sent (this process's reading before it). */
  earliest?: number;
  client: BudgetCounts | null;
}

function header(headers: Readonly<Record<string, string | string[] | undefined>>, name: string): string | null {
  const value = headers[name];
  if (value === undefined) return null;
  return Array.isArray(value) ? (value[0] ?? null) : value;
}

/**
 * The rate a bank states in standard headers, requests per second, or null:
 * `RateLimit-Policy: 50;w=1` or `"default";q=50;w=1` (the IETF draft's policy), else
 * `RateLimit-Limit` / `X-RateLimit-Limit` with `X-RateLimit-Window` or a `w=` parameter.
 */
export function rateFromHeaders(headers: Readonly<Record<string, string | string[] | undefined>>): number | null {
  const policy = header(headers, 'ratelimit-policy');
  if (policy) {
    const [first = ''] = policy.split(',');
    const quota = /(?:^|;)\s*q=(\d+(?:\.\d+)?)/.exec(first)?.[1] ?? /^\s*(\d+(?:\.\d+)?)\s*(?:;|$)/.exec(first)?.[1];
    const window = /(?:^|;)\s*w=(\d+(?:\.\d+)?)/.exec(first)?.[1];
    if (quota && window && Number(window) > 0) return Number(quota) / Number(window);
  }
  const limit = header(headers, 'ratelimit-limit') ?? header(headers, 'x-ratelimit-limit');
  if (limit) {
    const quota = /^\s*(\d+(?:\.\d+)?)/.exec(limit)?.[1];
    const window = /;\s*w=(\d+(?:\.\d+)?)/.exec(limit)?.[1] ?? header(headers, 'x-ratelimit-window');
    if (quota && window && Number(window) > 0) return Number(quota) / Number(window);
  }
  return null;
}

/** How many of the ascending instants `xs` are at or before `x` (where `x` would be inserted after its equals). */
function countUpTo(xs: readonly number[], x: number): number {
  return partitionPoint(xs, (v) => v <= x);
}
