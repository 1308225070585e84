/** The meta refresh job: GET /v1/meta, each bank's features stored (the sync gates on them). */
import type { JobContext } from './job-context';
import { runRecorded } from './recorded-run';
import type { Job, JobReport } from './scheduler';

export const META_REFRESH = 'meta-refresh';

export function metaRefreshJob(ctx: JobContext, expression: string): Job {
  return {
    name: META_REFRESH,
    expression,
    run: (_signal, firedFor): Promise<JobReport> =>
      runRecorded(ctx, META_REFRESH, firedFor, async () => {
        const meta = await ctx.client.getMeta();
        for (const bank of meta) await ctx.store.meta.save(bank, { now: ctx.now() });
        return {
          outcome: 'ok',
          consents: 0,
          rowsWritten: meta.length,
          failedUnits: 0,
          errorSummary: null,
          details: { banks: meta.map((b) => b.name) },
        };
      }),
  };
}
