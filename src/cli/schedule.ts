/**
 * `bankdata schedule`: runs the jobs of src/jobs/ in the foreground (node-cron, Pacific/Auckland):
 * nightly sync, consent-expiry check, meta refresh, on the config's `schedule.*`. Prints one
 * JSON line per job run on stdout (diagnostic logs stay on stderr). SIGTERM, SIGINT or SIGHUP: no
 * new run starts, the run in flight finishes its current unit and releases the lease, then exit 0;
 * stdout's reader gone (`bankdata schedule | head`): the same stop, then exit 141 (stop-signals.ts).
 */
import type { Command } from 'commander';
import { buildJobs, createScheduler, nodeCronEngine, type JobLine } from '../jobs';
import { NZ_ZONE } from '@bankdata/core/nz-time';
import { redactedJsonLine } from '../log';
import { paymentsPass } from '../payments/sync-pass';
import { raiseAndReport } from './alerts';
import { createCliContext, globalsOf } from './command-context';
import { ExitCode } from './exit-codes';
import { onStop, signalExitCode, type StopSignal } from './stop-signals';
import { systemClock } from '@bankdata/core/clock';
import { commandNamed, needsCredentials, printsOnStdout } from './command-needs';
import { withExamples } from './command-help';
import { printData } from './stdout';

export function registerScheduleCommand(program: Command): void {
  program
    .command('schedule')
    .description(
      'run the scheduled jobs in the foreground (nightly sync, expiry check, meta refresh; Pacific/Auckland)',
    )
    .action(async (_flags: unknown, command: Command) => {
      const ctx = createCliContext(globalsOf(command));
      const print = (line: Record<string, unknown>) =>
        printData(`${redactedJsonLine({ time: new Date().toISOString(), ...line })}\n`);
      try {
        const store = await ctx.store();
        const client = ctx.client();
        const jobs = buildJobs(
          {
            store,
            client,
            dataDir: ctx.config.dataDir,
            sync: ctx.config.sync,
            transfers: ctx.config.transfers,
            categoriesRulesFile: ctx.config.categories.rulesFile,
            expiryWarningDays: ctx.config.expiryWarningDays,
            payments: () => paymentsPass(ctx.config, store, ctx.logger),
            logger: ctx.logger,
            now: systemClock,
          },
          ctx.config.schedule,
        );
        // Each job ends with the alerts judged and the outbox delivered (docs/alerts.md), as a command does.
        const alerting = jobs.map((job) => ({
          ...job,
          run: async (signal: AbortSignal, firedFor: Date) => {
            try {
              return await job.run(signal, firedFor);
            } finally {
              await raiseAndReport(ctx.config, store, ctx.logger);
            }
          },
        }));
        const scheduler = createScheduler(alerting, {
          engine: nodeCronEngine(NZ_ZONE, { logger: ctx.logger }),
          emit: (line: JobLine) => print(line),
        });
        let stopListening = () => {};
        const signal = await new Promise<StopSignal>((resolve) => {
          stopListening = onStop(resolve);
          scheduler.start();
          print({
            event: 'started',
            pid: process.pid,
            timezone: NZ_ZONE,
            jobs: alerting.map((j) => ({ job: j.name, schedule: j.expression })),
          });
        });
        // A second signal ends the process at once (nothing listens any more).
        stopListening();
        const running = scheduler.running();
        print({ event: 'stopping', signal, running });
        await scheduler.stop();
        print({ event: 'stopped', signal });
        // Asked to stop (SIGTERM, SIGINT, SIGHUP): a clean end, exit 0. Stdout's reader gone: 141.
        process.exitCode = signal === 'SIGPIPE' ? signalExitCode('SIGPIPE') : ExitCode.Ok;
      } finally {
        await ctx.close();
      }
    });
  printsOnStdout(needsCredentials(commandNamed(program, 'schedule'), 'data'), 'service');
  withExamples(commandNamed(program, 'schedule'), [
    { line: 'bankdata schedule', says: 'nightly sync, expiry check and meta refresh in the foreground' },
    { line: 'bankdata --log-level info schedule', says: 'the same, with each job logged' },
  ]);
}
