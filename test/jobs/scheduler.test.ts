/**
 * The scheduler with a moved clock: node-cron itself, in Pacific/Auckland, driven by vitest fake
 * timers (node-cron arms setTimeout from `new Date()`, both faked). The nightly job fires at
 * 02:00 NZ once per day across both DST changes; an overlapping trigger is skipped; a timer that
 * comes late (the event loop busy, `vi.setSystemTime` moving the clock on with no timer run)
 * still runs its slot's job, and one too late is a `skipped` line, never silence.
 */
import { schedule } from 'node-cron';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { formatNz } from '@bankdata/core/nz-time';
import {
  LATE_TOLERANCE_MS,
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

describe('a timer that comes late (busy event loop, GC pause, suspended VM, NTP step)', () => {
  /**
   * A job of `expression` started 2 s before its slot `slot`; the event loop blocked for `busyMs`
   * as the slot came, then `forMs` of timers run. What ran (the slots) and the lines.
   */
  async function busyAtSlot(name: string, expression: string, slot: string, busyMs: number, forMs: number) {
    vi.setSystemTime(new Date(Date.parse(slot) - 2_000));
    const ran: string[] = [];
    const lines: JobLine[] = [];
    const job: Job = {
      name,
      expression,
      run: async (_signal, firedFor) => {
        ran.push(firedFor.toISOString());
        return { outcome: 'ok', runId: null };
      },
    };
    scheduler = createScheduler([job], { engine: nodeCronEngine(), emit: (l) => lines.push(l) });
    scheduler.start();
    await vi.advanceTimersByTimeAsync(1_500);
    vi.setSystemTime(new Date(Date.now() + busyMs)); // busyMs in which no timer can run
    await vi.advanceTimersByTimeAsync(forMs);
    return { ran, lines };
  }
  /** A "0 8 * * *" job, 08:00 NZDT the slot, a day of timers after. */
  const expiryCheckBusyAt0800 = (busyMs: number) =>
    busyAtSlot('expiry-check', '0 8 * * *', '2026-01-10T19:00:00.000Z', busyMs, 23 * 60 * 60 * 1000);

  it('runs the 08:00 NZ job when the event loop was busy for 3 s as 08:00 came: once, for its slot, its line saying how late', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const { ran, lines } = await expiryCheckBusyAt0800(3_000);
      expect({ ran, lines: lines.length }).toEqual({ ran: ['2026-01-10T19:00:00.000Z'], lines: 1 });
      expect(lines[0]).toMatchObject({
        job: 'expiry-check',
        event: 'finished',
        outcome: 'ok',
        fired_for: '2026-01-10T19:00:00.000Z',
        late_ms: 3_000,
      });
      // node-cron's own "missed execution" console warning is not printed beside the line.
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });

  it('a slot the timer reaches past the tolerance (a VM suspended 2 h) is a skipped line with the reason; the next day runs', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const { ran, lines } = await expiryCheckBusyAt0800(2 * 60 * 60 * 1000);
      expect(ran).toEqual(['2026-01-11T19:00:00.000Z']);
      expect(lines).toEqual([
        {
          job: 'expiry-check',
          event: 'skipped',
          reason: expect.stringMatching(/^missed: the timer came 7200 s late, past the 3600 s a late run is allowed$/),
          fired_for: '2026-01-10T19:00:00.000Z',
          late_ms: 7_200_000,
        },
        expect.objectContaining({ event: 'finished', fired_for: '2026-01-11T19:00:00.000Z' }),
      ]);
      expect(lines[1]).not.toHaveProperty('late_ms');
      expect(warn).not.toHaveBeenCalled();
      expect(LATE_TOLERANCE_MS).toBe(60 * 60 * 1000);
    } finally {
      warn.mockRestore();
    }
  });

  it('keeps the overlap guard: a late trigger while the job still runs is skipped, and a slot overtaken by the next is said', async () => {
    vi.setSystemTime(new Date('2026-01-10T00:00:30Z'));
    const lines: JobLine[] = [];
    const started: string[] = [];
    let release: () => void = () => undefined;
    const job: Job = {
      name: 'nightly-sync',
      expression: '* * * * *',
      run: async (signal, firedFor) => {
        started.push(firedFor.toISOString());
        await new Promise<void>((resolve) => {
          release = resolve;
          signal.addEventListener('abort', () => resolve()); // the stop of afterEach, should a check fail
        });
        return { outcome: 'ok', runId: 'r' };
      },
    };
    scheduler = createScheduler([job], { engine: nodeCronEngine(), emit: (l) => lines.push(l) });
    scheduler.start();
    await vi.advanceTimersByTimeAsync(30_000); // 00:01: the first run starts
    await vi.advanceTimersByTimeAsync(59_000);
    vi.setSystemTime(new Date(Date.now() + 5_000)); // busy as 00:02 came
    await vi.advanceTimersByTimeAsync(1_000); // the 00:02 trigger, 5 s late, while the run goes on
    expect(started).toEqual(['2026-01-10T00:01:00.000Z']);
    expect(lines).toEqual([
      {
        job: 'nightly-sync',
        event: 'skipped',
        reason: 'still running',
        fired_for: '2026-01-10T00:02:00.000Z',
        late_ms: 5_000,
      },
    ]);
    release();
    await vi.advanceTimersByTimeAsync(1_000);
    lines.length = 0;
    // Busy for 90 s from 00:02:59: 00:03 is overtaken by 00:04, which runs (late); 00:03 is said.
    await vi.advanceTimersByTimeAsync(53_000);
    vi.setSystemTime(new Date(Date.now() + 90_000));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(started).toEqual(['2026-01-10T00:01:00.000Z', '2026-01-10T00:04:00.000Z']);
    expect(lines).toEqual([
      {
        job: 'nightly-sync',
        event: 'skipped',
        reason: expect.stringMatching(/^missed: .*after the next time the job was due$/),
        fired_for: '2026-01-10T00:03:00.000Z',
        late_ms: 90_000,
      },
    ]);
    release();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(lines[1]).toMatchObject({ event: 'finished', fired_for: '2026-01-10T00:04:00.000Z', late_ms: 30_000 });
  });

  it('on the day clocks go forward, a late 03:00 companion still runs the 02:00 job once', async () => {
    // 2025-09-28 02:00 NZST does not exist; the companion's 03:00 NZDT is 14:00Z on the 27th.
    const { ran, lines } = await busyAtSlot(
      'nightly-sync',
      '0 2 * * *',
      '2025-09-27T14:00:00.000Z',
      4_000,
      12 * 60 * 60 * 1000,
    );
    expect(ran).toEqual(['2025-09-27T14:00:00.000Z']);
    expect(lines).toEqual([expect.objectContaining({ event: 'finished', late_ms: 4_000 })]);
  });
});
