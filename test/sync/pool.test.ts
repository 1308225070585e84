import { afterEach, describe, expect, it, vi } from 'vitest';
import { drainQueue, mapPool, mapSpare, runLanes } from '../../src/sync/pool';
import { sparesWhileUnrefused } from '../../src/sync/run';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('mapPool', () => {
  it('runs every item with at most `limit` in flight', async () => {
    let inFlight = 0;
    let peak = 0;
    const done: number[] = [];
    await mapPool([1, 2, 3, 4, 5], 2, async (n) => {
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setImmediate(r));
      done.push(n);
      inFlight -= 1;
    });
    expect(done.sort()).toEqual([1, 2, 3, 4, 5]);
    expect(peak).toBe(2);
  });

  it('after a failure starts nothing new and rethrows only once the items in flight have finished (no lane outlives the run lease)', async () => {
    const slow = deferred();
    const started: number[] = [];
    let slowFinished = false;
    let settled = false;
    const pool = mapPool([1, 2, 3, 4], 2, async (n) => {
      started.push(n);
      if (n === 1) throw new Error('unit 1 broke');
      if (n === 2) {
        await slow.promise;
        slowFinished = true;
      }
    }).finally(() => {
      settled = true;
    });
    const outcome = pool.then(
      () => null,
      (error: unknown) => error,
    );
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    slow.resolve();
    const error = await outcome;
    expect(slowFinished).toBe(true);
    expect((error as Error).message).toBe('unit 1 broke');
    expect(started).toEqual([1, 2]);
  });
});

const tick = () => new Promise((r) => setImmediate(r));

describe("the run's lanes and mapSpare (spare lanes help the items still running)", () => {
  it('runLanes gives out at most its total, and a release given twice frees one lane', () => {
    const lanes = runLanes(2);
    const a = lanes.take();
    const b = lanes.take();
    expect(a).not.toBeNull();
    expect(b).not.toBeNull();
    expect(lanes.take()).toBeNull();
    a!();
    a!();
    const c = lanes.take();
    expect(c).not.toBeNull();
    expect(lanes.take()).toBeNull();
  });

  it('without a spare lane mapSpare runs the items one after another, in order', async () => {
    const lanes = runLanes(1);
    const release = lanes.take();
    expect(release).not.toBeNull();
    let inFlight = 0;
    let peak = 0;
    const order: number[] = [];
    await mapSpare([1, 2, 3], lanes, async (n) => {
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      order.push(n);
      await tick();
      inFlight -= 1;
    });
    expect(order).toEqual([1, 2, 3]);
    expect(peak).toBe(1);
    // Without lanes at all: the same.
    peak = 0;
    await mapSpare([1, 2, 3], undefined, async () => {
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      await tick();
      inFlight -= 1;
    });
    expect(peak).toBe(1);
  });

  it('spare lanes run the items side by side, never more than the lanes free, and are given back', async () => {
    const lanes = runLanes(4);
    const mine = lanes.take(); // the calling lane's own
    expect(mine).not.toBeNull();
    let inFlight = 0;
    let peak = 0;
    const done: number[] = [];
    await mapSpare([1, 2, 3, 4, 5, 6, 7], lanes, async (n) => {
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      await tick();
      await tick();
      done.push(n);
      inFlight -= 1;
    });
    expect(done.sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
    // The caller's lane and the three spare ones.
    expect(peak).toBe(4);
    // Every spare lane was given back: three can be taken again, not four.
    const again = [lanes.take(), lanes.take(), lanes.take()];
    expect(again.every((r) => r !== null)).toBe(true);
    expect(lanes.take()).toBeNull();
  });

  it('lanes given back while items run are taken at the next item (a nested map shares them)', async () => {
    const lanes = runLanes(3);
    const caller = lanes.take();
    const busy = [lanes.take(), lanes.take()];
    let inFlight = 0;
    let peak = 0;
    await mapSpare([1, 2, 3, 4, 5, 6], lanes, async (n) => {
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      // The other two lanes come free while item 1 runs.
      if (n === 1) for (const release of busy) release?.();
      await tick();
      await tick();
      inFlight -= 1;
    });
    expect(caller).not.toBeNull();
    expect(peak).toBe(3);
  });

  it('a lane given back while an item runs starts the next item at once, not at the next item boundary', async () => {
    const lanes = runLanes(2);
    lanes.take(); // the caller's
    const other = lanes.take(); // another consent's, busy
    const first = deferred();
    const started: number[] = [];
    const run = mapSpare([1, 2], lanes, async (n) => {
      started.push(n);
      if (n === 1) await first.promise;
    });
    await tick();
    expect(started).toEqual([1]);
    other!();
    // Item 1 still runs: the freed lane took item 2.
    expect(started).toEqual([1, 2]);
    first.resolve();
    await run;
    // Its helper gave the lane back.
    expect(lanes.take()).not.toBeNull();
  });

  it('while spare lanes are closed none is taken, and a helper gives its lane back at its next item', async () => {
    let open = true;
    const lanes = runLanes(3, () => open);
    lanes.take(); // the caller's
    const started: number[] = [];
    const gates = [deferred(), deferred(), deferred(), deferred()];
    let inFlight = 0;
    let peakAfterClose = 0;
    const run = mapSpare([0, 1, 2, 3], lanes, async (n) => {
      started.push(n);
      inFlight += 1;
      if (!open) peakAfterClose = Math.max(peakAfterClose, inFlight);
      await gates[n]!.promise;
      inFlight -= 1;
    });
    await tick();
    // Open: the caller's item 0 and two helpers' items 1 and 2.
    expect(started).toEqual([0, 1, 2]);
    open = false;
    expect(lanes.spare()).toBeNull();
    gates[1]!.resolve();
    await tick();
    // Its helper gave the lane back instead of taking item 3 (the draining queue may take it: take()).
    expect(started).toEqual([0, 1, 2]);
    const queueLane = lanes.take();
    expect(queueLane).not.toBeNull();
    gates[0]!.resolve();
    await tick();
    // The calling lane goes on with item 3.
    expect(started).toEqual([0, 1, 2, 3]);
    gates[2]!.resolve();
    gates[3]!.resolve();
    await run;
    expect(peakAfterClose).toBeLessThanOrEqual(2);
  });

  it('after a failure mapSpare starts nothing new and rethrows once the items in flight have finished', async () => {
    const lanes = runLanes(2);
    lanes.take();
    const slow = deferred();
    const started: number[] = [];
    let slowFinished = false;
    let settled = false;
    const run = mapSpare([1, 2, 3, 4], lanes, async (n) => {
      started.push(n);
      if (n === 2) {
        await slow.promise;
        slowFinished = true;
      }
      if (n === 1) {
        await tick();
        throw new Error('account 1 broke');
      }
    }).finally(() => (settled = true));
    const outcome = run.then(
      () => null,
      (error: unknown) => error,
    );
    for (let i = 0; i < 5; i++) await tick();
    expect(settled).toBe(false);
    slow.resolve();
    expect(((await outcome) as Error).message).toBe('account 1 broke');
    expect(slowFinished).toBe(true);
    expect(started).toEqual([1, 2]);
  });

  it('drainQueue holds a lane per running item and gives it back when its queue is empty: the last item gets the spares', async () => {
    const lanes = runLanes(3);
    const queue = ['long', 'short-1', 'short-2'];
    let takenWhileAllRun: (() => void) | null | undefined;
    let inFlight = 0;
    let peak = 0;
    await drainQueue(
      async () => queue.shift() ?? null,
      3,
      async (item) => {
        if (item !== 'long') {
          await tick();
          return;
        }
        // While the two short items run, every lane is taken.
        takenWhileAllRun = lanes.take();
        for (let i = 0; i < 5; i++) await tick();
        // They are done: their lanes are spare, and the long item's parts run on them.
        await mapSpare([1, 2, 3, 4, 5, 6], lanes, async () => {
          inFlight += 1;
          peak = Math.max(peak, inFlight);
          await tick();
          await tick();
          inFlight -= 1;
        });
      },
      lanes,
    );
    expect(takenWhileAllRun).toBeNull();
    expect(peak).toBe(3);
    // Every lane is given back when the queue is done.
    expect([lanes.take(), lanes.take(), lanes.take()].every((r) => r !== null)).toBe(true);
  });
});

describe('spare lanes that open again, and the 429 gate', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a map waiting while spares are closed takes them once they open, without a lane given back or an item boundary', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let open = false;
    const lanes = runLanes(3, () => open, 100);
    lanes.take(); // the caller's
    const started: number[] = [];
    const gates = [deferred(), deferred(), deferred()];
    const run = mapSpare([0, 1, 2], lanes, async (n) => {
      started.push(n);
      await gates[n]!.promise;
    });
    await tick();
    expect(started).toEqual([0]);
    open = true;
    await vi.advanceTimersByTimeAsync(100);
    // The recheck woke the map: both free lanes took the items left while item 0 still runs.
    expect(started).toEqual([0, 1, 2]);
    for (const g of gates) g.resolve();
    await run;
  });

  it('sparesWhileUnrefused: 429s of an earlier run do not close them; a new one does until a rate is known and 2 s pass', () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    const pacing = { refused: 5, rate: null as number | null };
    const client = { stats: () => ({ requests: 0, byKind: {}, retries: 0, pacing: { ...pacing } }) } as never;
    const open = sparesWhileUnrefused(client);
    expect(open()).toBe(true);
    pacing.refused = 6;
    expect(open()).toBe(false);
    vi.advanceTimersByTime(5000);
    // No rate known yet: still closed.
    expect(open()).toBe(false);
    pacing.rate = 10;
    expect(open()).toBe(true);
    pacing.refused = 7;
    expect(open()).toBe(false);
    vi.advanceTimersByTime(1999);
    expect(open()).toBe(false);
    vi.advanceTimersByTime(1);
    expect(open()).toBe(true);
  });
});
