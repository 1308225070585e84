/**
 * The run's lease renewal (docs/configuration.md "Sync rules": one run at a time per database): a
 * renewal that fails is tried again while the lease still holds, and the run stops after the unit
 * in flight only when the lease would lapse before the next try (or a renewal never answers); a
 * lease taken over stops it at once. The emulator answers after 20 ms, so each run lasts many
 * renewals of 20 ms.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RunWork } from '../../src/store';
import { createLogger } from '../../src/log';
import { SETTINGS, startHarness, type Harness } from '../fixtures/sync-harness';

describe('lease renewal', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ latencyMs: 20 });
  });
  afterAll(async () => {
    await h.close();
  });

  /** A sync whose run's renewals are `renew`, with the lease's TTL and renewal interval given; its log lines. */
  async function syncWith(renew: RunWork['renew'], lease: { leaseTtlMs: number; leaseRenewMs: number }) {
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger({ level: 'warn', format: 'json', sink: (line) => lines.push(JSON.parse(line)) });
    const begin = h.store.runs.begin;
    let leaseTtlMs = 0;
    const spy = vi.spyOn(h.store.runs, 'begin').mockImplementation(async (input) => {
      leaseTtlMs = input.leaseTtlMs;
      const begun = await begin(input);
      if (begun.ok) begun.work.renew = renew;
      return begun;
    });
    try {
      const summary = await h.sync({ settings: { ...SETTINGS, ...lease }, logger, full: true });
      expect(leaseTtlMs).toBe(lease.leaseTtlMs);
      return { summary, messages: lines.map((l) => String(l.msg)) };
    } finally {
      spy.mockRestore();
    }
  }

  it('a renewal that keeps failing stops the run before the lease lapses: partial, interrupted, lease released', async () => {
    // The run's renewal of its lease fails (as a full or failing disk would make it).
    const renew = vi.fn().mockRejectedValue(new Error('disk I/O error'));
    // The lease holds 400 ms from the run's start: the renewals every 20 ms are tried again until
    // the next one would come after it lapsed (a run of this world lasts seconds).
    const { summary, messages } = await syncWith(renew, { leaseTtlMs: 400, leaseRenewMs: 20 });
    expect(renew.mock.calls.length).toBeGreaterThanOrEqual(2);
    expect(summary.interrupted).toBe(true);
    expect(summary.outcome).toBe('partial');
    expect(messages).toContain('lease renewal failed: trying again at the next renewal');
    expect(messages.at(-1)).toBe('lease renewal failed: stopping after the unit in flight');
    // It stopped early: not every consent was synced whole (on a busy machine every consent may
    // have started before it stopped; those in flight end partial, never ok).
    expect(summary.consents.filter((c) => c.outcome === 'ok').length).toBeLessThan(h.emu.consentIds.length);
    expect(h.store.sqlite.prepare('SELECT count(*) AS n FROM lease').get()).toEqual({ n: 0 });
  });

  it('renewals that fail twice, then succeed: the run goes on to its end, ok', async () => {
    const renew = vi
      .fn<RunWork['renew']>()
      .mockRejectedValueOnce(new Error('database is locked'))
      .mockRejectedValueOnce(new Error('database is locked'))
      .mockResolvedValue(true);
    const { summary, messages } = await syncWith(renew, { leaseTtlMs: 2_000, leaseRenewMs: 20 });
    expect(renew.mock.calls.length).toBeGreaterThanOrEqual(3);
    expect(summary.interrupted).toBe(false);
    expect(summary.outcome).toBe('ok');
    expect(messages.filter((m) => m === 'lease renewal failed: trying again at the next renewal')).toHaveLength(2);
    expect(messages).not.toContain('lease renewal failed: stopping after the unit in flight');
  });

  it('stopping, the run renews on: the database answering again keeps the lease held until the run records its end', async () => {
    // Slow answers: the request in flight when the run decides to stop (at 500 ms) is answered
    // after 1.5 s, far past the lease's 600 ms from the start.
    h.emu.updateSettings({ latencyMs: 1_500 });
    const real = h.store.runs.begin;
    let atLeave: { expiresAt: number; leftAt: number } | null = null;
    let calls = 0;
    const spy = vi.spyOn(h.store.runs, 'begin').mockImplementation(async (input) => {
      const begun = await real(input);
      if (begun.ok) {
        const work = begun.work;
        const renew = work.renew.bind(work);
        const leave = work.leave.bind(work);
        // Busy for the first five renewals (the fifth, at 500 ms, is the last before the lease
        // lapses: it decides the stop), then answering.
        work.renew = (now) => (++calls <= 5 ? Promise.reject(new Error('database is locked')) : renew(now));
        work.leave = async (...args: Parameters<RunWork['leave']>) => {
          const row = h.store.sqlite.prepare('SELECT expires_at FROM lease').get() as { expires_at: string };
          atLeave = { expiresAt: Date.parse(row.expires_at), leftAt: Date.now() };
          return leave(...args);
        };
      }
      return begun;
    });
    try {
      const summary = await h.sync({ settings: { ...SETTINGS, leaseTtlMs: 600, leaseRenewMs: 100 }, full: true });
      expect(summary.interrupted).toBe(true);
      // No closing steps without a lease it could renew in time.
      expect(summary.continuity).toBeNull();
      expect(calls).toBeGreaterThan(5);
      expect(atLeave).not.toBeNull();
      expect(atLeave!.expiresAt).toBeGreaterThan(atLeave!.leftAt);
    } finally {
      spy.mockRestore();
      h.emu.updateSettings({ latencyMs: 20 });
    }
  });

  it('a renewal that never answers stops the run once the lease has lapsed without it', async () => {
    const renew = vi.fn<RunWork['renew']>().mockReturnValue(new Promise<boolean>(() => undefined));
    const { summary, messages } = await syncWith(renew, { leaseTtlMs: 400, leaseRenewMs: 20 });
    expect(renew).toHaveBeenCalledTimes(1);
    expect(summary.interrupted).toBe(true);
    expect(summary.outcome).toBe('partial');
    expect(messages.at(-1)).toBe('lease renewal failed: stopping after the unit in flight');
  });

  it('a lease taken over stops the run at once', async () => {
    const renew = vi.fn<RunWork['renew']>().mockResolvedValue(false);
    const { summary } = await syncWith(renew, { leaseTtlMs: 2_000, leaseRenewMs: 20 });
    expect(renew).toHaveBeenCalledTimes(1);
    expect(summary.interrupted).toBe(true);
  });
});
