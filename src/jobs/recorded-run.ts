/**
 * A job run recorded as a run (v_runs) and tagged with its job (job_runs), both in one
 * transaction: started before the work, finished with what the work reports, or finished as
 * `failed` when it throws. The nightly sync records its own run (runSync) and tags it as soon as it
 * is begun (runSync's onRun, src/jobs/nightly-sync.ts); the other jobs use this.
 */
import { countingRequests, type RequestCount } from '../api';
import type { RunOutcome } from '../store';
import { describeError } from '../sync/unit-outcome';
import type { JobContext } from './job-context';
import type { JobReport } from './scheduler';

export interface RecordedWork {
  outcome: RunOutcome;
  consents: number;
  rowsWritten: number;
  failedUnits: number;
  errorSummary: string | null;
  details: Record<string, unknown>;
}

export async function runRecorded(
  ctx: JobContext,
  job: string,
  firedFor: Date,
  work: () => Promise<RecordedWork>,
): Promise<JobReport> {
  // The scheduler's client serves the other jobs at the same time: this run's requests only.
  return countingRequests((sent) => runCounted(ctx, job, firedFor, work, sent));
}

async function runCounted(
  ctx: JobContext,
  job: string,
  firedFor: Date,
  work: () => Promise<RecordedWork>,
  sent: RequestCount,
): Promise<JobReport> {
  // The run and its job tag in one transaction: a run with no job is a sync from the command line
  // to status, the report and alerts, so a job's run is never left untagged. When it cannot be
  // written (a busy or lost database) the job fails with that error and nothing is recorded.
  const runId = await ctx.store.runs.start({ now: ctx.now(), job: { name: job, scheduledFor: firedFor } });
  const finish = (summary: Omit<RecordedWork, 'details'>) =>
    ctx.store.runs.finish(runId, { ...summary, requests: sent.requests }, ctx.now());
  try {
    const { details, ...summary } = await work();
    await finish(summary);
    return { outcome: summary.outcome, runId, details };
  } catch (error) {
    await finish({
      outcome: 'failed',
      consents: 0,
      rowsWritten: 0,
      failedUnits: 0,
      errorSummary: describeError(error).slice(0, 2000),
    });
    throw error;
  }
}
