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
 *
 * Late timers: node-cron runs a slot only when its timer comes within `missedExecutionTolerance`
 * of it (its default, 1 s), and otherwise prints a console warning and never runs it. A busy event
 * loop (a long synchronous SQLite statement in the nightly sync, a GC pause), a suspended VM or an
 * NTP step makes a timer that late, and the day's run was lost. Here a tick up to
 * LATE_TOLERANCE_MS after its slot runs the job, late, once (`lateMs` says how late); a slot
 * later than that, or overtaken by the next slot, reaches `onMissed`, so the scheduler logs it.
 * node-cron's own warning is off, and its logger goes to the project's.
 */
import { DateTime } from 'luxon';
import { parse, schedule, type Logger as CronLogger, type ScheduledTask, type TaskContext } from 'node-cron';
import { NZ_ZONE } from '@bankdata/core/nz-time';
import { createLogger, type Logger } from '../log';

/** How late a timer may come and still run its slot's job (later: the slot is missed). */
export const LATE_TOLERANCE_MS = 60 * 60 * 1000;

export interface CronTrigger {
  stop(): void;
}

export interface CronEngine {
  /**
   * `onTick` gets the cron instant it fired for and how many ms after that instant the timer
   * came (a few when on time). `onMissed` gets a slot whose job will not run: its timer came
   * more than the engine's tolerance late, or after the next slot (which runs instead), and why.
   */
  schedule(
    expression: string,
    onTick: (firedFor: Date, lateMs: number) => void,
    onMissed: (firedFor: Date, lateMs: number, reason: string) => void,
  ): CronTrigger;
}

export interface NodeCronEngineOptions {
  /** LATE_TOLERANCE_MS unless given. */
  toleranceMs?: number;
  /** Where node-cron's own messages go (never the console directly); warnings on stderr unless given. */
  logger?: Logger;
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

export function nodeCronEngine(zone: string = NZ_ZONE, options: NodeCronEngineOptions = {}): CronEngine {
  const toleranceMs = options.toleranceMs ?? LATE_TOLERANCE_MS;
  const logger = options.logger ?? createLogger({ level: 'warn', format: 'text' });
  const cronLogger = nodeCronLogger(logger);
  const taskOptions = {
    timezone: zone,
    missedExecutionTolerance: toleranceMs,
    suppressMissedWarning: true,
    logger: cronLogger,
  };
  const lateBy = (ctx: TaskContext) => Math.max(0, ctx.triggeredAt.getTime() - ctx.date.getTime());
  // node-cron logs what a task function throws through its logger and goes on; the scheduler's
  // trigger catches its own errors, so this is a last resort that still names the slot.
  const guarded = (what: string, body: (ctx: TaskContext) => void) => (ctx: TaskContext) => {
    try {
      body(ctx);
    } catch (error) {
      logger.error(`cron ${what} failed`, { fired_for: ctx.date.toISOString(), error });
    }
  };
  const missedReason = (lateMs: number) =>
    lateMs > toleranceMs
      ? `missed: the timer came ${Math.round(lateMs / 1000)} s late, past the ${Math.round(toleranceMs / 1000)} s a late run is allowed`
      : `missed: the timer came ${Math.round(lateMs / 1000)} s late, after the next time the job was due`;
  return {
    schedule(expression, onTick, onMissed) {
      const tasks: ScheduledTask[] = [];
      /** A node-cron task whose slots are the job's when `isJobs` says so. */
      const add = (cron: string, isJobs: (slot: Date) => boolean) => {
        const task = schedule(
          cron,
          guarded('tick', (ctx) => {
            if (isJobs(ctx.date)) onTick(ctx.date, lateBy(ctx));
          }),
          taskOptions,
        );
        // A listener also keeps node-cron from printing its own "missed execution" warning.
        task.on(
          'execution:missed',
          guarded('missed slot', (ctx) => {
            const late = lateBy(ctx);
            if (isJobs(ctx.date)) onMissed(ctx.date, late, missedReason(late));
          }),
        );
        tasks.push(task);
      };
      add(expression, () => true);
      const companion = dstGapCompanion(expression);
      // The companion's slots are the job's only where they stand in for a 02:MM in a gap.
      if (companion) add(companion, (slot) => fellInDstGap(slot, zone));
      return {
        stop() {
          for (const task of tasks) void task.destroy();
        },
      };
    },
  };
}

/** node-cron's logger interface over the project's logger (its debug and info are debug here). */
function nodeCronLogger(logger: Logger): CronLogger {
  const fields = (err?: Error) => (err === undefined ? {} : { error: err });
  const text = (message: string | Error) => (message instanceof Error ? message.message : message);
  return {
    debug: (message, err) => logger.debug(`node-cron: ${text(message)}`, fields(err)),
    info: (message) => logger.debug(`node-cron: ${message}`),
    warn: (message) => logger.warn(`node-cron: ${message}`),
    error: (message, err) =>
      logger.error(`node-cron: ${text(message)}`, fields(err ?? (message instanceof Error ? message : undefined))),
  };
}
