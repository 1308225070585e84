/**
 * `bankdata sync [--consent ID…] [--since DATE] [--full] [--dry-run] [--json] [--workers N]`:
 * one run, a progress line on a TTY, a summary at the end, and the exit codes of README.md. With
 * `--workers N` (PostgreSQL) it starts N worker processes that share the run (sync-workers.ts).
 */
import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { nzDateFlag } from '../export/filters';
import { ConsentIdSchema, type ConsentId } from '@bankdata/core/schemas';
import type { Config } from '../config';
import type { Logger } from '../log';
import { displayLocation, isPostgresUrl, type RunWork, type Store } from '../store';
import { AuthenticationError, UnavailableError, type DataApiClient } from '../api';
import { paymentsPass, type PaymentsPassResult } from '../payments/sync-pass';
import { planDryRun, type DryRunPlan } from '../sync/dry-run';
import { NOTHING_TO_SYNC, runSync, type SyncSummary } from '../sync/run';
import { migrateWithBackup } from '../store/sqlite/backup';
import { createCliContext, globalsOf } from './command-context';
import { CliError, ExitCode, UsageError } from './exit-codes';
import { handleCliError, writeFinalError } from './handle-error';
import { wholeNumber } from './flags';
import { createProgress } from './progress';
import { runWorkers, SHARED_RUN_ENV } from './sync-workers';
import { onStop, signalExitCode, type StopSignal } from './stop-signals';
import { commandNamed, needsCredentials, raisesAlerts } from './command-needs';
import { withExamples } from './command-help';
import { notPaths } from './path-roles';
import { stdoutWriter, type StdoutWriter } from './stdout';

interface SyncFlags {
  consent?: string[];
  since?: string;
  full?: boolean;
  dryRun?: boolean;
  json?: boolean;
  workers?: string;
}

export function registerSyncCommand(program: Command): void {
  program
    .command('sync')
    .description('one sync run: every registered consent (or --consent ones) into the database')
    .option('--consent <id...>', 'only these registered consents')
    .option('--since <date>', 'also re-fetch from this NZ date (YYYY-MM-DD), clamped to the floor')
    .option('--full', 're-fetch every window from the floor')
    .option('--dry-run', 'plan and print the requests it would make; sends only meta and consent reads, writes nothing')
    .option('--json', 'print the summary as JSON on stdout')
    .option('--workers <n>', 'PostgreSQL only: start N worker processes that share the run (1 to 64)', '1')
    .action(async (flags: SyncFlags, command: Command) => {
      const workers = wholeNumber(flags.workers ?? '1', '--workers', 1, 64);
      // Every flag judged before the database is opened or migrated: a command refused for its
      // arguments touches nothing.
      const { consentIds } = parseFlags(flags);
      const ctx = createCliContext(globalsOf(command));
      if (workers > 1) {
        if (!isPostgresUrl(ctx.config.db)) {
          throw new UsageError(
            '--workers needs a PostgreSQL database: on SQLite one process syncs a run',
            'point --db or BANKDATA_DB at a postgres:// URL (docs/postgres.md)',
          );
        }
        if (flags.dryRun) throw new UsageError('--workers and --dry-run exclude each other');
        process.exitCode = await runWorkers(workers, flags.json ?? false);
        return;
      }
      // A SQLite file that does not exist has no consent to sync: said so (exit 2), not made empty.
      if (!flags.dryRun && !isPostgresUrl(ctx.config.db) && !existsSync(ctx.config.db))
        await refuseNothingToSync(consentIds, { registered: async () => false, any: async () => false });
      try {
        // An older SQLite database is migrated by sync itself, after an online backup (every row
        // kept); PostgreSQL migrates on open, under an advisory lock (src/store/pg/open.ts).
        if (!flags.dryRun && !isPostgresUrl(ctx.config.db)) {
          const migrated = await migrateWithBackup(ctx.config.db);
          if (migrated.applied > 0)
            ctx.logger.warn('database migrated', {
              applied: migrated.applied,
              backup: migrated.backup,
              removed: migrated.removed,
            });
        }
        // A dry run writes nothing: the database opened read-only, never created or migrated (a
        // missing or older one is refused, exit 6, as by the other read-only commands).
        const store = flags.dryRun ? await ctx.readStore() : await ctx.store();
        process.exitCode = await syncCommand(ctx.config, store, ctx.client(), ctx.logger, flags);
      } finally {
        await ctx.close();
      }
    });
  // --dry-run sends meta and consent reads too; --workers' workers each need them.
  raisesAlerts(needsCredentials(commandNamed(program, 'sync'), 'data'));
  withExamples(commandNamed(program, 'sync'), [
    { line: 'bankdata sync', says: 'one run over every registered consent' },
    { line: 'bankdata sync --consent ID --since 2026-01-01', says: 'one consent, fetched again from an NZ date' },
    { line: 'bankdata sync --dry-run --json', says: 'the requests a run would make, as JSON; nothing written' },
  ]);
  // The values that are not paths (src/cli/path-roles.ts); the paths are made in output-paths.ts.
  notPaths(commandNamed(program, 'sync'), ['--consent', '--since', '--workers']);
}

function parseFlags(flags: SyncFlags): { consentIds: ConsentId[]; since: string | null } {
  const consentIds = (flags.consent ?? []).map((id) => {
    const parsed = ConsentIdSchema.safeParse(id);
    if (!parsed.success) throw new UsageError(`--consent ${id}: not a consent id (a lowercase UUID)`);
    return parsed.data;
  });
  // Read as every command reads an NZ date (src/export/filters.ts `nzDateFlag`).
  if (flags.since !== undefined) nzDateFlag('--since', flags.since);
  if (flags.since !== undefined && flags.full) throw new UsageError('--since and --full exclude each other');
  return { consentIds, since: flags.since ?? null };
}

/**
 * A run with nothing to sync is a set-up not finished, not a run that did its work (README "Exit
 * codes": 2): a `--consent` not registered, or no consent registered at all. A SQLite database
 * that does not exist registers none: it is refused so, and not made empty.
 */
async function refuseNothingToSync(
  consentIds: readonly ConsentId[],
  registry: { registered(id: ConsentId): Promise<boolean>; any(): Promise<boolean> },
): Promise<void> {
  for (const id of consentIds) {
    if (!(await registry.registered(id)))
      throw new UsageError(`consent ${id} is not registered`, `bankdata consents add ${id}`);
  }
  if (consentIds.length === 0 && !(await registry.any()))
    throw new UsageError(NOTHING_TO_SYNC.message, NOTHING_TO_SYNC.hint);
}

/** Runs the command; returns the exit code. Reused by `demo` and the scheduled job. */
export async function syncCommand(
  config: Config,
  store: Store,
  client: DataApiClient,
  logger: Logger,
  flags: SyncFlags,
  out: StdoutWriter = stdoutWriter,
): Promise<number> {
  const { consentIds, since } = parseFlags(flags);
  await refuseNothingToSync(consentIds, {
    registered: async (id) => (await store.consents.get(id)) !== null,
    any: async () => (await store.consents.list()).length > 0,
  });
  if (flags.dryRun) {
    const plan = await planDryRun({ store, client, settings: config.sync, consentIds, since, full: flags.full });
    if (flags.json) out.data(`${JSON.stringify(plan, null, 2)}\n`);
    else out.text(formatDryRun(plan));
    return ExitCode.Ok;
  }
  const progress = createProgress(process.stderr, logger);
  const controller = new AbortController();
  // SIGTERM / SIGINT / SIGHUP, or stdout's reader gone (SIGPIPE): the unit in flight finishes if it
  // can within `sync.stopGraceMs`, else it is abandoned whole (each unit is one transaction:
  // nothing half-written); either way the lease is released, the run is recorded as interrupted,
  // and the exit code is 128 + the signal's number. A second signal stops at once.
  let received: StopSignal | null = null;
  let work: RunWork | null = null;
  const hardStop = async (signal: StopSignal) => {
    progress.done();
    try {
      // SQLite: the run lease released; PostgreSQL: this worker's consents back in the queue.
      await work?.abandon();
    } catch {
      // The lease (or the consents' leases) then expire by themselves; status shows the run as interrupted.
    }
    // A closed pipe ends quietly, as a program killed by SIGPIPE does. Otherwise the command's last
    // word, as a failure's: through the error handler (--log-format json; shown with -q too).
    const code = signalExitCode(signal);
    if (signal !== 'SIGPIPE')
      writeFinalError({
        message: `stopped by ${signal}; the unit in flight was abandoned whole and the lease released`,
        exitCode: code,
      });
    process.exit(code);
  };
  const stop = (signal: StopSignal) => {
    if (received) void hardStop(signal);
    received = signal;
    controller.abort();
    setTimeout(() => void hardStop(signal), config.sync.stopGraceMs).unref();
  };
  const stopListening = onStop(stop);
  let summary: SyncSummary;
  let fatalError: AuthenticationError | UnavailableError | null = null;
  try {
    summary = await runSync({
      store,
      client,
      onFatal: (error) => (fatalError = error),
      onRun: (begun) => {
        work = begun;
      },
      dataDir: config.dataDir,
      settings: config.sync,
      transfers: config.transfers,
      consentIds,
      since,
      full: flags.full ?? false,
      logger,
      ...sharedRunId(),
      categoriesRulesFile: config.categories.rulesFile,
      signal: controller.signal,
      onProgress: (p) => progress.update(p),
    });
  } finally {
    stopListening();
    progress.done();
  }
  // Payments not yet terminal are polled with the run, when the Payments API is configured.
  const payments = summary.fatal || summary.interrupted || received ? null : await paymentsPass(config, store, logger);
  if (flags.json) out.data(`${JSON.stringify({ ...summary, payments }, null, 2)}\n`);
  else out.text(formatSummary(summary, config) + formatPayments(payments));
  if (received) return signalExitCode(received);
  const code = exitCodeOf(summary);
  // A run that ended fatally (exit 3 or 5) says so on stderr as well, as every failing command
  // does: the error's line and hint, written by the top-level handler (text, or JSON under
  // --log-format json), the summary above kept on stdout.
  // A fatal end no request threw (a scope missing for everything, every consent unreachable): an
  // error of its kind with the summary's message.
  if (summary.fatal)
    handleCliError(
      fatalError ??
        new (summary.fatal.kind === 'authentication' ? AuthenticationError : UnavailableError)(summary.fatal.message, {
          status: null,
          code: null,
          path: '',
          requestId: null,
        }),
    );
  if (payments?.authenticationError) {
    if (!summary.fatal)
      handleCliError(
        new CliError(
          `payments not tracked: ${payments.authenticationError}`,
          ExitCode.Auth,
          'check BANKDATA_PAYMENTS_CLIENT_ID / BANKDATA_PAYMENTS_CLIENT_SECRET (or _FILE) and BANKDATA_ENVIRONMENT',
        ),
      );
    return Math.max(code, ExitCode.Auth);
  }
  // An invalid or unreadable rules file: the run's data is stored, no row decided; a configuration
  // error, exit 2, above a partial run's 1 (docs/categories.md "The rules file").
  const categories = summary.categories;
  if (categories && 'error' in categories && categories.configError && code <= ExitCode.Partial)
    throw new UsageError(`categories not decided: ${categories.error}`, categories.hint);
  return code === ExitCode.Ok && payments && payments.failures.length > 0 ? ExitCode.Partial : code;
}

/**
 * The run id `sync --workers N` gives its workers (sync-workers.ts), so that they share one run
 * whatever their flags; a value that is not a UUID is ignored.
 */
function sharedRunId(): { runId?: string } {
  const id = process.env[SHARED_RUN_ENV];
  return id && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(id) ? { runId: id } : {};
}

function formatPayments(p: PaymentsPassResult | null): string {
  if (!p) return '';
  if (p.authenticationError) return `  payments   not tracked: ${p.authenticationError}\n`;
  const lines = [
    `  payments   ${p.tracked} tracked, ${p.open} still in flight, ${p.failures.length} could not be read`,
  ];
  if (p.unmatched + p.ambiguous > 0)
    lines.push(`  reconcile  ${p.unmatched} settled payment(s) unmatched, ${p.ambiguous} ambiguous (bankdata status)`);
  return `${lines.join('\n')}\n`;
}

export function exitCodeOf(summary: SyncSummary): number {
  if (summary.fatal?.kind === 'authentication') return ExitCode.Auth;
  if (summary.fatal?.kind === 'unavailable') return ExitCode.Unavailable;
  return summary.outcome === 'ok' ? ExitCode.Ok : ExitCode.Partial;
}

export function formatSummary(s: SyncSummary, config: Pick<Config, 'db'>): string {
  const c = s.counters;
  const by = (outcome: string) => s.consents.filter((r) => r.outcome === outcome).length;
  const lines = [
    `sync ${s.outcome}${s.interrupted ? ' (interrupted)' : ''}: run ${s.runId}`,
    `  consents   ${s.consents.length}: ${by('ok')} ok, ${by('partial')} partial, ${by('skipped')} skipped, ${by('ended')} ended, ${by('failed')} failed`,
    `  requests   ${s.requests}`,
    `  rows       ${c.rowsAdded} added, ${c.rowsUpdated} updated, ${c.rowsRemoved} removed`,
    `  windows    ${c.windows} (${c.splits} split on BDT263); ${c.filesWritten} statement file(s) written`,
    `  rejects    ${c.rejects} record(s) quarantined${c.rejects > 0 ? ' (see the rejects table)' : ''}`,
  ];
  if (s.continuity && 'error' in s.continuity) lines.push(`  continuity not checked: ${s.continuity.error}`);
  else if (s.continuity) {
    // Only the accounts judged: a skipped one (credits-only or debits-only) is neither clean nor broken.
    const { breaks, checked, skipped } = s.continuity;
    lines.push(
      breaks > 0
        ? `  continuity ${breaks} break(s) between balances and transactions in ${checked} account(s) checked${skipped > 0 ? `, ${skipped} not checked` : ''} (bankdata check)`
        : `  continuity no break in ${checked} account(s)${skipped > 0 ? ` (${skipped} not checked)` : ''}`,
    );
  }
  // docs/categories.md "When rows are decided".
  if (s.categories && 'error' in s.categories) lines.push(`  categories not decided: ${s.categories.error}`);
  else if (s.categories && (s.categories.decided > 0 || s.categories.stopped)) {
    const by = s.categories.bySource;
    lines.push(
      `  categories ${s.categories.decided} row(s) decided: ${by.rule ?? 0} by rule, ${by.mcc ?? 0} by MCC, ${by.code ?? 0} by bank code, ${by.none ?? 0} none; ${s.categories.written} new or changed${s.categories.stopped ? '; stopped, the rest next run' : ''}`,
    );
  }
  if (s.transfers && 'error' in s.transfers) lines.push(`  transfers  not matched: ${s.transfers.error}`);
  else if (s.transfers && s.transfers.pairs + s.transfers.ambiguous > 0)
    lines.push(
      `  transfers  ${s.transfers.pairs} own-account pair(s) linked, ${s.transfers.ambiguous} ambiguous (bankdata transfers)`,
    );
  if (s.fatal) lines.push(`  error      ${s.fatal.message}`);
  if (c.failedUnits.length > 0) {
    lines.push(`  failed     ${c.failedUnits.length} unit(s), retried next run:`);
    for (const f of c.failedUnits.slice(0, 10)) lines.push(`               ${f.consentId} ${f.unit}: ${f.reason}`);
    if (c.failedUnits.length > 10)
      lines.push(`               … and ${c.failedUnits.length - 10} more (bankdata status)`);
  }
  for (const r of s.consents.filter((x) => x.outcome === 'skipped'))
    lines.push(`  skipped    ${r.consentId}: ${r.reason ?? ''}`);
  // Resources a consent may not read, or its bank does not offer: never requested, reason kept.
  const reasons = new Map<string, number>();
  for (const k of c.skipped)
    reasons.set(`${k.resource}: ${k.reason}`, (reasons.get(`${k.resource}: ${k.reason}`) ?? 0) + 1);
  for (const [reason, n] of reasons) lines.push(`  not asked  ${reason}${n > 1 ? ` (${n} consents)` : ''}`);
  if (s.needsReconsent.length > 0) {
    lines.push(`  re-consent ${s.needsReconsent.length} consent(s) ended and need a new consent:`);
    for (const r of s.consents.filter((x) => x.needsReconsent))
      lines.push(`               ${r.consentId} (${r.reason ?? r.status ?? 'ended'})`);
  }
  lines.push(`  database   ${displayLocation(config.db)}`);
  return `${lines.join('\n')}\n`;
}

function formatDryRun(plan: DryRunPlan): string {
  const lines = [`dry run: ${plan.requestsSent} request(s) sent (meta, token, consent reads); nothing written`];
  for (const c of plan.consents) {
    lines.push(`consent ${c.consentId} ${c.bank ?? ''} ${c.status}${c.note ? `: ${c.note}` : ''}`);
    for (const r of c.requests) lines.push(`  ${r}`);
    for (const s of c.skipped) lines.push(`  skip ${s.resource}: ${s.reason}`);
  }
  return `${lines.join('\n')}\n`;
}
