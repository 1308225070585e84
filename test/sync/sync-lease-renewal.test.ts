import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SETTINGS, startHarness, type Harness } from '../fixtures/sync-harness';

describe('lease renewal', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  it('a renewal that fails stops the run after the unit in flight: partial, interrupted, lease released', async () => {
    // The run's renewal of its lease fails (as a full or failing disk would make it).
    const renew = vi.fn().mockRejectedValue(new Error('disk I/O error'));
    const begin = h.store.runs.begin;
    let leaseTtlMs = 0;
    const spy = vi.spyOn(h.store.runs, 'begin').mockImplementation(async (input) => {
      leaseTtlMs = input.leaseTtlMs;
      const begun = await begin(input);
      if (begun.ok) begun.work.renew = renew;
      return begun;
    });
    // The lease's expiry and renewal are settings (sync.leaseTtlMs, sync.leaseRenewMs): the first renewal comes 20 ms in.
    const summary = await h.sync({ settings: { ...SETTINGS, leaseTtlMs: 1_000, leaseRenewMs: 20 } });
    expect(renew).toHaveBeenCalled();
    expect(leaseTtlMs).toBe(1_000);
    spy.mockRestore();
    expect(summary.interrupted).toBe(true);
    expect(summary.outcome).toBe('partial');
    // It stopped early: not every consent was synced whole (on a busy machine every consent may
    // have started before the first renewal; those in flight end partial, never ok).
    expect(summary.consents.filter((c) => c.outcome === 'ok').length).toBeLessThan(h.emu.consentIds.length);
    expect(h.store.sqlite.prepare('SELECT count(*) AS n FROM lease').get()).toEqual({ n: 0 });
  });
});
