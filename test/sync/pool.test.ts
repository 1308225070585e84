import { describe, expect, it } from 'vitest';
import { mapPool } from '../../src/sync/pool';

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
