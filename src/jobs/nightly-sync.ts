/**
 * The nightly sync job: one `runSync` with the scheduler's AbortSignal. The run takes the
 * database lease, so a `bankdata sync` started by cron at the same time exits 4 instead of
 * running beside it (and if that one holds the lease, this run is skipped). On SIGTERM the unit
 * in flight finishes and the lease is released before the scheduler exits. With no consent
 * registered it records a failed run (NOTHING_TO_SYNC) and sends nothing.
 */
import { NOTHING_TO_SYNC, RunLockedError, runSync } from '../sync/run';
import { runRecorded } from './recorded-run';
import { describeError } from '../sync/unit-outcome';
import type { JobContext } from './job-context';
import type { Job, JobReport } from './scheduler';
import { NIGHTLY_SYNC } from '../store/job-runs';

export { NIGHTLY_SYNC } from '../store/job-runs';

export function nightlySyncJob(ctx: JobContext, expression: string): Job {
  return {
    name: NIGHTLY_SYNC,
    expression,
    async run(signal, firedFor): Promise<JobReport> {
      // No consent registered (a service started before its set-up, or pointed at another
      // database): a failed run that status and alerts show, as `bankdata sync` exits 2 for it,
      // not an ok run of nothing every night.
      if ((await ctx.store.consents.list()).length === 0) {
        ctx.logger.error(NOTHING_TO_SYNC.message, { hint: NOTHING_TO_SYNC.hint });
        return runRecorded(ctx, NIGHTLY_SYNC, firedFor, () =>
          Promise.resolve({
            outcome: 'failed',
            consents: 0,
            rowsWritten: 0,
            failedUnits: 0,
            errorSummary: NOTHING_TO_SYNC.message,
            details: { error: NOTHING_TO_SYNC.message },
          }),
        );
      }
      // The run tagged with its job as soon as it is begun (runSync's onRun, before its work), so
      // that a run which then fails, recorded `failed` by runSync before it throws, is still the
      // nightly sync's: not a command-line sync to status, nor `job: null` in its run.failed alert.
      // A tag that cannot be written (a busy or lost database) is said, and neither turns the
      // sync's outcome into failed nor skips the payments pass (docs/consents-and-jobs.md "Jobs").
      const tag = (runId: string) =>
        ctx.store.runs.recordJob(runId, NIGHTLY_SYNC, firedFor).catch((error: unknown) =>
          ctx.logger.warn('the run was not tagged with its job', {
            run_id: runId,
            job: NIGHTLY_SYNC,
            error: describeError(error),
          }),
        );
      try {
        const summary = await runSync({
          store: ctx.store,
          client: ctx.client,
          dataDir: ctx.dataDir,
          settings: ctx.sync,
          ...(ctx.transfers ? { transfers: ctx.transfers } : {}),
          ...(ctx.categoriesRulesFile !== undefined ? { categoriesRulesFile: ctx.categoriesRulesFile } : {}),
          logger: ctx.logger,
          signal,
          now: ctx.now,
          onRun: (run) => tag(run.runId),
        });
        const payments = summary.fatal || summary.interrupted || !ctx.payments ? null : await ctx.payments();
        const c = summary.counters;
        // Payments that could not be read make the job partial, as they make `bankdata sync` exit 1.
        const paymentsFailed =
          payments !== null && (payments.failures.length > 0 || payments.authenticationError !== null);
        // A rules file that cannot be read decides no row (docs/categories.md "When rows are
        // decided"): the data is stored, the job is partial and says why, as `bankdata sync` exits 2.
        const categoriesError =
          summary.categories && 'error' in summary.categories && summary.categories.configError
            ? summary.categories.error
            : null;
        if (categoriesError !== null) ctx.logger.error('categories not decided', { reason: categoriesError });
        return {
          outcome:
            summary.outcome === 'ok' && (paymentsFailed || categoriesError !== null) ? 'partial' : summary.outcome,
          runId: summary.runId,
          details: {
            interrupted: summary.interrupted,
            consents: summary.consents.length,
            requests: summary.requests,
            rows_written: c.rowsAdded + c.rowsUpdated + c.rowsRemoved,
            failed_units: c.failedUnits.length,
            needs_reconsent: summary.needsReconsent,
            ...(payments ? { payments } : {}),
            ...(summary.categories && !('error' in summary.categories)
              ? { categories_decided: summary.categories.decided }
              : {}),
            ...(categoriesError !== null ? { categories_error: categoriesError } : {}),
            ...(summary.fatal ? { error: summary.fatal.message } : {}),
          },
        };
      } catch (error) {
        if (error instanceof RunLockedError) {
          return { outcome: 'skipped', runId: null, details: { reason: error.message } };
        }
        throw error;
      }
    },
  };
}
