/** The meta refresh job: GET /v1/meta, each bank's features stored (the sync gates on them). */
import { recordJobRun } from '../src/store/job-runs';
import type { JobContext } from './context';
import { finishFailed } from './expiry-check';
import type { Job, JobReport } from './scheduler';

export const META_REFRESH = 'meta-refresh';

export function metaRefreshJob(ctx: JobContext, expression: string): Job {
  return {
    name: META_REFRESH,
    expression,
    async run(_signal, firedFor): Promise<JobReport> {
      const requestsBefore = ctx.client.stats().requests;
      const runId = ctx.store.runs.start({ now: ctx.now() });
      recordJobRun(ctx.store.db, runId, META_REFRESH, firedFor);
      try {
        const meta = await ctx.client.getMeta();
        for (const bank of meta) ctx.store.meta.save(bank, { now: ctx.now() });
        ctx.store.runs.finish(
          runId,
          {
            outcome: 'ok',
            consents: 0,
            requests: ctx.client.stats().requests - requestsBefore,
            rowsWritten: meta.length,
            failedUnits: 0,
            errorSummary: null,
          },
          ctx.now(),
        );
        return { outcome: 'ok', runId, details: { banks: meta.map((b) => b.name) } };
      } catch (error) {
        finishFailed(ctx, runId, requestsBefore, error);
        throw error;
      }
    },
  };
}
