import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LEASE_RENEW_MS } from '../../src/store';
import { startHarness, type Harness } from '../fixtures/sync-harness';

describe('lease renewal', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    vi.useRealTimers();
    await h.close();
  });

  it('a renewal that fails stops the run after the unit in flight: partial, interrupted, lease released', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    // The run's renewal of its lease fails (as a full or failing disk would make it).
    const renew = vi.fn().mockRejectedValue(new Error('disk I/O error'));
    const begin = h.store.runs.begin;
    const spy = vi.spyOn(h.store.runs, 'begin').mockImplementation(async (input) => {
      const begun = await begin(input);
      if (begun.ok) begun.work.renew = renew;
      return begun;
    });
    const running = h.sync();
    // The run takes the lease (asynchronously) before it starts renewing it.
    for (let i = 0; i < 1000 && vi.getTimerCount() === 0; i++) await new Promise((r) => setImmediate(r));
    vi.advanceTimersByTime(LEASE_RENEW_MS);
    expect(renew).toHaveBeenCalledTimes(1);
    const summary = await running;
    spy.mockRestore();
    expect(summary.interrupted).toBe(true);
    expect(summary.outcome).toBe('partial');
    // It stopped early: far fewer windows than a whole backfill.
    expect(summary.consents.length).toBeLessThan(h.emu.consentIds.length);
    expect(h.store.sqlite.prepare('SELECT count(*) AS n FROM lease').get()).toEqual({ n: 0 });
  });
});
