/**
 * When jobs fire: node-cron in Pacific/Auckland, behind a small interface so the scheduler can
 * be driven by a test (vitest fake timers move node-cron's clock, see test/jobs).
 *
 * DST gap: node-cron skips a local time that does not exist. In New Zealand 02:00–02:59 does
 * not exist on the last Sunday of September (clocks go 02:00 NZST → 03:00 NZDT), so a
 * "0 2 * * *" nightly sync would silently not run that night. For an expression whose hours
 * include 2 but not 3, a companion trigger at 03:MM fires only on a day where the original
 * 02:MM fell in a gap: the job runs once that day, at the instant 02:MM NZST would have been.
 * On the day clocks go back (02:00–02:59 happens twice) node-cron fires once, at the second
 * one (02:00 NZST).
 */
import { DateTime } from 'luxon';
import { parse, schedule } from 'node-cron';
import { NZ_ZONE } from '@bankdata/core/nz-time';

export interface CronTrigger {
  stop(): void;
}

/** `onTick` gets the cron instant it fired for. */
export interface CronEngine {
  schedule(expression: string, onTick: (firedFor: Date) => void): CronTrigger;
}

/** The companion expression for the DST gap, or null when the expression needs none. */
export function dstGapCompanion(expression: string): string | null {
  const fields = expression.trim().split(/\s+/);
  const { hour } = parse(expression);
  if (!hour.includes(2) || hour.includes(3)) return null;
  fields[fields.length === 6 ? 2 : 1] = '3';
  return fields.join(' ');
}

/** True when hour 2 at this instant's minute did not exist on its local day (a DST gap). */
export function fellInDstGap(instant: Date, zone: string = NZ_ZONE): boolean {
  const local = DateTime.fromJSDate(instant, { zone });
  const wanted = DateTime.fromObject(
    { year: local.year, month: local.month, day: local.day, hour: 2, minute: local.minute, second: local.second },
    { zone },
  );
  // luxon moves a time inside a gap forward; a time that exists keeps its hour.
  return wanted.hour !== 2;
}

export function nodeCronEngine(zone: string = NZ_ZONE): CronEngine {
  return {
    schedule(expression, onTick) {
      const tasks = [schedule(expression, (ctx) => onTick(ctx.date), { timezone: zone })];
      const companion = dstGapCompanion(expression);
      if (companion) {
        tasks.push(
          schedule(
            companion,
            (ctx) => {
              if (fellInDstGap(ctx.date, zone)) onTick(ctx.date);
            },
            { timezone: zone },
          ),
        );
      }
      return {
        stop() {
          for (const task of tasks) void task.destroy();
        },
      };
    },
  };
}
