/**
 * The data clock (docs/emulator.md "The data clock"): starts behind real time, moves forward only, never
 * past real time. Frozen, it moves only when told; running, it also follows real time.
 */
import { DateTime } from 'luxon';

export type ClockMode = 'running' | 'frozen';

export class DataClock {
  private offsetMs = 0;
  private readonly realStartMs: number;

  constructor(
    private readonly startMs: number,
    private readonly mode: ClockMode,
    private readonly realNow: () => number = Date.now,
  ) {
    this.realStartMs = realNow();
    if (startMs > this.realStartMs) throw new RangeError('the data clock cannot start after real time');
  }

  nowMs(): number {
    const elapsed = this.mode === 'running' ? this.realNow() - this.realStartMs : 0;
    return this.startMs + this.offsetMs + elapsed;
  }

  now(): DateTime {
    return DateTime.fromMillis(this.nowMs(), { zone: 'utc' });
  }

  /** Moves the clock forward by `ms`; throws when that would pass real time or go backwards. */
  advance(ms: number): DateTime {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError('the data clock only moves forward');
    if (this.nowMs() + ms > this.realNow()) throw new RangeError('the data clock cannot pass real time');
    this.offsetMs += ms;
    return this.now();
  }

  /** Moves the clock to an instant (not before now, not after real time). */
  advanceTo(target: DateTime): DateTime {
    return this.advance(target.toMillis() - this.nowMs());
  }
}
