/**
 * The scheduler behind `bankdata schedule`: each job on its cron expression, never two runs of
 * one job at once (a trigger while it still runs is skipped and logged), and a stop that lets
 * the runs in flight finish their current unit (their AbortSignal is aborted) before it returns.
 * One JSON line per job run, and one per skipped trigger. A trigger whose timer came a second
 * or more after its slot (a busy event loop, a suspended VM) still runs the job, once, for that
 * slot, and its line carries `late_ms`; a slot the engine gave up on (too late, or overtaken by
 * the next slot) is a `skipped` line with the reason: never silence.
 */
import type { CronEngine, CronTrigger } from './cron-engine';
import { systemClock, type Clock } from '@bankdata/core/clock';

export interface JobReport {
  /** ok, partial, failed (as v_runs), or skipped when the job could not start (lock held). */
  outcome: 'ok' | 'partial' | 'failed' | 'skipped';
  /** The run recorded in v_runs, when one was. */
  runId: string | null;
  /** Anything else the job wants in its log line. */
  details?: Record<string, unknown>;
}

export interface Job {
  name: string;
  expression: string;
  run(signal: AbortSignal, firedFor: Date): Promise<JobReport>;
}

export type JobLine = Record<string, unknown> & { job: string; event: 'finished' | 'skipped' | 'failed' };

/** A trigger this many ms or more after its slot is late: its line says by how much (`late_ms`). */
export const LATE_AFTER_MS = 1000;

export interface SchedulerOptions {
  engine: CronEngine;
  /** Receives one object per job run or skipped trigger (the schedule command prints it as a JSON line). */
  emit: (line: JobLine) => void;
  now?: Clock;
}

export interface Scheduler {
  start(): void;
  /** Stops the triggers, aborts the runs in flight and waits for them to finish. */
  stop(): Promise<void>;
  /** Names of the jobs running now. */
  running(): string[];
}

export function createScheduler(jobs: readonly Job[], options: SchedulerOptions): Scheduler {
  const now = options.now ?? systemClock;
  const controller = new AbortController();
  const inFlight = new Map<string, Promise<void>>();
  let triggers: CronTrigger[] = [];
  let stopped = false;

  const fire = (job: Job, firedFor: Date, lateMs: number) => {
    if (stopped) return;
    const late = lateMs >= LATE_AFTER_MS ? { late_ms: lateMs } : {};
    if (inFlight.has(job.name)) {
      // No overlap: the run still going owns the job; this trigger is dropped, not queued.
      options.emit({
        job: job.name,
        event: 'skipped',
        reason: 'still running',
        fired_for: firedFor.toISOString(),
        ...late,
      });
      return;
    }
    const startedAt = now();
    const run = (async () => {
      try {
        const report = await job.run(controller.signal, firedFor);
        options.emit({
          job: job.name,
          event: report.outcome === 'skipped' ? 'skipped' : 'finished',
          outcome: report.outcome,
          run_id: report.runId,
          fired_for: firedFor.toISOString(),
          ...late,
          started_at: startedAt.toISOString(),
          duration_ms: now().getTime() - startedAt.getTime(),
          ...report.details,
        });
      } catch (error) {
        options.emit({
          job: job.name,
          event: 'failed',
          outcome: 'failed',
          fired_for: firedFor.toISOString(),
          ...late,
          started_at: startedAt.toISOString(),
          duration_ms: now().getTime() - startedAt.getTime(),
          error: error instanceof Error ? error.message : String(error),
        });
      } finally {
        inFlight.delete(job.name);
      }
    })();
    inFlight.set(job.name, run);
  };

  return {
    start() {
      if (triggers.length > 0 || stopped) return;
      triggers = jobs.map((job) =>
        options.engine.schedule(
          job.expression,
          (firedFor, lateMs) => fire(job, firedFor, lateMs),
          (firedFor, lateMs, reason) => {
            if (stopped) return;
            // The engine will not run this slot: said on a line of its own, as a skipped trigger.
            options.emit({
              job: job.name,
              event: 'skipped',
              reason,
              fired_for: firedFor.toISOString(),
              late_ms: lateMs,
            });
          },
        ),
      );
    },
    async stop() {
      stopped = true;
      for (const trigger of triggers) trigger.stop();
      triggers = [];
      controller.abort();
      await Promise.all(inFlight.values());
    },
    running: () => [...inFlight.keys()],
  };
}
