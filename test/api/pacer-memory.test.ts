/**
 * The pacer resumed from what an earlier run learned (docs/client.md "Pacing"), against the
 * simulated bank of pacer-sim.ts on a fake clock: a short run starts at the stored rate and never
 * paces above the ceiling; a lowered limit is learnt within 5 s and 5 refusals; only a long run
 * probes above the ceiling and finds a raised limit.
 */
import { describe, expect, it } from 'vitest';
import type { LearnedPacing } from '../../src/api/pacer';
import { simulate } from './pacer-sim';

const BANK = { burst: 20, latencyMs: 20, lanes: 16, warmupMs: 0 };

/** What a first run of 60 s against a bank of `rate` req/s learns. */
async function learnt(rate: number): Promise<LearnedPacing> {
  const first = await simulate({ ...BANK, rate, untilMs: 60_000 });
  const stored = first.pacer.learned();
  expect(stored).not.toBeNull();
  return stored!;
}

describe('a pacer resumed from a stored rate', () => {
  it('a first run stores a rate at the limit and the ceiling where refusals began', async () => {
    const stored = await learnt(50);
    expect(stored.ceiling!).toBeGreaterThan(50 * 0.98);
    expect(stored.ceiling!).toBeLessThan(50 * 1.02);
    expect(stored.rate).toBeLessThanOrEqual(stored.ceiling!);
    expect(stored.rate).toBeGreaterThan(50 * 0.97);
  });

  it('a short run starts at the stored rate: no refusal, throughput at the limit', async () => {
    const stored = await learnt(50);
    const again = await simulate({
      ...BANK,
      rate: 50,
      untilMs: 60_000,
      setup: (p) => p.resume(stored, { probe: false }),
    });
    expect(again.refused).toBe(0);
    expect(again.lateRate).toBeGreaterThanOrEqual(50 * 0.97);
    expect(again.perSecond[1]).toBeGreaterThanOrEqual(48);
  });

  it.each([40, 20, 10])(
    'a limit the bank lowered (50 → %i/s) is learnt by a short run within 5 s and 5 refusals',
    async (lowered) => {
      const stored = await learnt(50);
      const r = await simulate({
        ...BANK,
        rate: lowered,
        untilMs: 60_000,
        setup: (p) => p.resume(stored, { probe: false }),
      });
      expect(r.refused).toBeLessThanOrEqual(5);
      expect(r.refusedAt.at(-1)! - r.refusedAt[0]!).toBeLessThanOrEqual(5000);
      // From the 6th second on, at the new limit (the bucket is the judge: never above it).
      expect(Math.min(...r.perSecond.slice(6))).toBeGreaterThanOrEqual(lowered * 0.85);
      const learned = r.pacer.learned()!;
      expect(learned.ceiling!).toBeLessThanOrEqual(lowered * 1.02);
      expect(learned.ceiling!).toBeGreaterThan(lowered * 0.85);
    },
  );

  it('a short run never paces above the ceiling, though the bank raised its limit (50 → 100/s)', async () => {
    const stored = await learnt(50);
    const r = await simulate({
      ...BANK,
      rate: 100,
      untilMs: 120_000,
      setup: (p) => p.resume(stored, { probe: false }),
    });
    expect(r.refused).toBe(0);
    expect(Math.max(...r.perSecond.slice(1))).toBeLessThanOrEqual(Math.ceil(stored.ceiling!));
    expect(r.pacer.learned()).toEqual({ rate: stored.ceiling, ceiling: stored.ceiling });
  });

  it('a long run probes above the ceiling and finds the raised limit (50 → 100/s), refusals under 0.5%', async () => {
    const stored = await learnt(50);
    const r = await simulate({
      ...BANK,
      rate: 100,
      untilMs: 60_000,
      setup: (p) => p.resume(stored, { probe: true }),
    });
    expect(r.pacer.learned()!.ceiling!).toBeGreaterThan(100 * 0.97);
    expect(r.lateRate).toBeGreaterThanOrEqual(100 * 0.97);
    expect(r.refused / r.sent).toBeLessThan(0.005);
  });

  it('a long run at an unchanged limit probes gently: refusals under 0.5%, throughput at the limit', async () => {
    const stored = await learnt(50);
    const r = await simulate({
      ...BANK,
      rate: 50,
      untilMs: 60_000,
      setup: (p) => p.resume(stored, { probe: true }),
    });
    expect(r.refused / r.sent).toBeLessThan(0.005);
    expect(r.lateRate).toBeGreaterThanOrEqual(50 * 0.97);
    expect(r.pacer.learned()!.ceiling!).toBeGreaterThan(50 * 0.98);
  });
});

describe('a backfill from nothing (no stored rate)', () => {
  it.each([
    { rate: 50, burst: 20, latencyMs: 20, requests: 3149, wall: 1.08, refused: 0.5 },
    { rate: 200, burst: 40, latencyMs: 20, requests: 3400, wall: 1.15, refused: 0.65 },
  ])(
    '$requests requests at $rate/s (burst $burst): the slow start ends at its bound, 429s under $refused%, wall within $wall× the rate bound',
    async (bank) => {
      // Before the slow start ended at the bound of its first refusals: 41 (1.29%) and 30 (0.87%)
      // refusals, a dozen of them in a row after the slow start. Then 22 (0.69%) and 25 (0.73%):
      // the lanes' first round trip met the bank's empty bucket together (about 15 refusals at
      // once), until the requests in flight were held to a window before any rate is known.
      const r = await simulate({ ...bank, lanes: 16, untilMs: 600_000, warmupMs: 0 });
      const boundMs = ((bank.requests - bank.burst) / bank.rate) * 1000 + 2 * bank.latencyMs;
      expect(r.refused / r.sent).toBeLessThan(bank.refused / 100);
      expect(r.doneAtMs! / boundMs).toBeLessThanOrEqual(bank.wall);
    },
  );
});
