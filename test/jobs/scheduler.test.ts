/**
 * The scheduler with a moved clock: node-cron itself, in Pacific/Auckland, driven by vitest fake
 * timers (node-cron arms setTimeout from `new Date()`, both faked). The nightly job fires at
 * 02:00 NZ once per day across both DST changes; an overlapping trigger is skipped.
 */
import { schedule } from 'node-cron';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { formatNz } from '@bankdata/core/nz-time';
import {
  createScheduler,
  dstGapCompanion,
  fellInDstGap,
  nodeCronEngine,
  type Job,
  type JobLine,
  type Scheduler,
} from '../../src/jobs';

const DAY_MS = 24 * 60 * 60 * 1000;

let scheduler: Scheduler | null = null;
beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(async () => {
  await scheduler?.stop();
  scheduler = null;
  vi.useRealTimers();
});

/** Runs a "0 2 * * *" job from `from` for `days`; returns the NZ instants it ran at. */
async function nightlyRuns(from: string, days: number): Promise<string[]> {
  vi.setSystemTime(new Date(from));
  const ran: string[] = [];
  const job: Job = {
    name: 'nightly-sync',
    expression: '0 2 * * *',
    run: async () => {
      ran.push(formatNz(new Date()));
      return { outcome: 'ok', runId: null };
    },
  };
  scheduler = createScheduler([job], { engine: nodeCronEngine(), emit: () => undefined });
  scheduler.start();
  await vi.advanceTimersByTimeAsync(days * DAY_MS);
  return ran;
}

describe('nightly job at 02:00 Pacific/Auckland across DST', () => {
  it('fires once on the day clocks go forward (02:00 does not exist): at 03:00 NZDT, the instant 02:00 NZST would be', async () => {
    // NZ DST starts Sunday 2025-09-28 at 02:00 NZST (14:00Z on the 27th) → 03:00 NZDT.
    const ran = await nightlyRuns('2025-09-26T00:00:00Z', 4);
    expect(ran).toEqual([
      '2025-09-27T02:00:00+12:00',
      '2025-09-28T03:00:00+13:00',
      '2025-09-29T02:00:00+13:00',
      '2025-09-30T02:00:00+13:00',
    ]);
  });

  it('node-cron alone skips the 02:00 that does not exist (why the scheduler adds the 03:00 companion)', async () => {
    vi.setSystemTime(new Date('2025-09-26T00:00:00Z'));
    const fired: string[] = [];
    const task = schedule('0 2 * * *', () => void fired.push(formatNz(new Date())), { timezone: 'Pacific/Auckland' });
    await vi.advanceTimersByTimeAsync(4 * DAY_MS);
    await task.destroy();
    expect(fired).toEqual(['2025-09-27T02:00:00+12:00', '2025-09-29T02:00:00+13:00', '2025-09-30T02:00:00+13:00']);
  });

  it('fires once on the day clocks go back (02:00–02:59 happens twice): node-cron takes the 02:00 NZST one', async () => {
    // NZ DST ends Sunday 2026-04-05 at 03:00 NZDT (14:00Z on the 4th) → 02:00 NZST.
    const ran = await nightlyRuns('2026-04-02T00:00:00Z', 5);
    expect(ran).toEqual([
      '2026-04-03T02:00:00+13:00',
      '2026-04-04T02:00:00+13:00',
      '2026-04-05T02:00:00+12:00',
      '2026-04-06T02:00:00+12:00',
      '2026-04-07T02:00:00+12:00',
    ]);
  });

  it('a job at 03:00 needs no companion and runs once on the gap day', async () => {
    expect(dstGapCompanion('0 3 * * *')).toBeNull();
    expect(dstGapCompanion('30 2 * * 1-5')).toBe('30 3 * * 1-5');
    expect(dstGapCompanion('0 0 2 * * *')).toBe('0 0 3 * * *');
    expect(dstGapCompanion('0 2,3 * * *')).toBeNull();
    expect(fellInDstGap(new Date('2025-09-27T14:00:00Z'))).toBe(true);
    expect(fellInDstGap(new Date('2025-09-28T14:00:00Z'))).toBe(false);
  });
});

describe('no overlap', () => {
  it('skips a trigger while the previous run of the job still runs, and runs again once it finished', async () => {
    vi.setSystemTime(new Date('2026-01-10T00:00:30Z'));
    const lines: JobLine[] = [];
    const started: string[] = [];
    let release: () => void = () => undefined;
    const job: Job = {
      name: 'nightly-sync',
      expression: '* * * * *',
      run: async () => {
        started.push(new Date().toISOString());
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        return { outcome: 'ok', runId: 'r' };
      },
    };
    scheduler = createScheduler([job], { engine: nodeCronEngine(), emit: (l) => lines.push(l) });
    scheduler.start();
    await vi.advanceTimersByTimeAsync(30_000); // 00:01: first run starts
    await vi.advanceTimersByTimeAsync(60_000); // 00:02: still running → skipped
    expect(started).toEqual(['2026-01-10T00:01:00.000Z']);
    expect(lines).toEqual([
      expect.objectContaining({
        job: 'nightly-sync',
        event: 'skipped',
        reason: 'still running',
        fired_for: '2026-01-10T00:02:00.000Z',
      }),
    ]);
    release();
    await vi.advanceTimersByTimeAsync(60_000); // 00:03: runs again
    expect(started).toEqual(['2026-01-10T00:01:00.000Z', '2026-01-10T00:03:00.000Z']);
    expect(lines.filter((l) => l.event === 'finished')).toHaveLength(1);
    expect(scheduler.running()).toEqual(['nightly-sync']);
    release();
  });

  it('stop() aborts the run in flight and waits for it; no trigger fires after', async () => {
    vi.setSystemTime(new Date('2026-01-10T00:00:30Z'));
    let aborted = false;
    let runs = 0;
    const job: Job = {
      name: 'nightly-sync',
      expression: '* * * * *',
      run: (signal) => {
        runs += 1;
        return new Promise((resolve) => {
          signal.addEventListener('abort', () => {
            aborted = true;
            resolve({ outcome: 'partial', runId: 'r' });
          });
        });
      },
    };
    const lines: JobLine[] = [];
    scheduler = createScheduler([job], { engine: nodeCronEngine(), emit: (l) => lines.push(l) });
    scheduler.start();
    await vi.advanceTimersByTimeAsync(30_000);
    await scheduler.stop();
    expect(aborted).toBe(true);
    expect(lines).toEqual([expect.objectContaining({ event: 'finished', outcome: 'partial' })]);
    await vi.advanceTimersByTimeAsync(5 * 60_000);
    expect(runs).toBe(1);
  });
});
