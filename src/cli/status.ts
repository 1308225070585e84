/**
 * `bankdata status`: the last runs, what failed, rejects waiting, and consents that ended or
 * near expiry. Reads the database only; no request is sent.
 */
import type { Command } from 'commander';
import { listReconciliationIssues, type ReconciliationIssues } from '../payments';
import type { ConsentViewRow, LatestRun, RejectCount, Store } from '../store';
import { createCliContext, globalsOf } from './command-context';
import { ExitCode } from './exit-codes';
import { wholeNumber } from './flags';
import { terminalSafe } from '@bankdata/core/terminal-text';
import { commandNamed } from './command-needs';
import { withExamples } from './command-help';
import { notPaths } from './path-roles';
import { expiryWords } from './consents-view';
import { consentEnded, consentStanding, type ConsentStanding } from '../store/consent-state';
import { formatTable, nzTimeText } from './table';
import { printData, printText } from './stdout';

export interface StatusReport {
  database: string;
  /** Newest first; `job` null for a sync started from the command line, `outcome` null while it runs. */
  runs: LatestRun[];
  consents: ConsentViewRow[];
  nearExpiry: ConsentViewRow[];
  /** Ended (`ended`: the status or code that ended it, src/store/consent-state.ts), or Authorised past its expiration date (`ended` null). */
  needsReconsent: (ConsentViewRow & { ended: string | null })[];
  rejects: RejectCount[];
  /** Settled payments with no single bank transaction carrying them, and ambiguous ones. */
  payments: ReconciliationIssues;
  /** Rows of v_continuity (the latest check's breaks); filled by the command. */
  continuityBreaks?: number;
}

export async function readStatus(store: Store, expiryWarningDays: number, runs = 5): Promise<StatusReport> {
  const consents = await store.reports.consents();
  return {
    database: store.path,
    // Each with its job, and a run with no end whose holder is gone as interrupted (reports.ts
    // latestRunRows: the one rule the report follows too).
    runs: await store.reports.latestRuns(runs),
    consents,
    // One rule with consents list, alerts and the expiry check (src/store/consent-state.ts
    // `consentStanding`; a code such as BDT409 ends a consent whose status stays Authorised).
    nearExpiry: consents.filter((c) => standingOf(c, expiryWarningDays).kind === 'expiring'),
    // Ended, or Authorised past its expiration date (the bank may not have moved it to Consumed yet).
    needsReconsent: consents
      .map((c) => ({ ...c, ended: endedOf(c) }))
      .filter((c) => ['ended', 'expired'].includes(standingOf(c, expiryWarningDays).kind)),
    rejects: await store.reports.rejectCounts(),
    payments: await listReconciliationIssues(store),
  };
}

export function formatStatus(report: StatusReport, expiryWarningDays: number): string {
  const lines = [`database ${report.database}`, '', 'last runs (NZ time):'];
  if (report.runs.length === 0) lines.push('  (none yet: bankdata sync)');
  else {
    // One table: a run's row, its error summary under it, and its workers' rows when there are several.
    const header = ['STARTED', 'JOB', 'OUTCOME', 'CONSENTS', 'REQUESTS', 'ROWS', 'FAILED UNITS'];
    const rows: string[][] = [];
    const notes = new Map<number, string[]>();
    for (const r of report.runs) {
      rows.push([
        nzTimeText(r.started_at),
        terminalSafe(r.job ?? 'sync'),
        r.outcome ?? 'running',
        String(r.consents ?? '-'),
        String(r.requests ?? '-'),
        String(r.rows_written ?? '-'),
        String(r.failed_units ?? '-'),
      ]);
      if (r.error_summary) notes.set(rows.length, [`      ${terminalSafe(r.error_summary.slice(0, 300))}`]);
      if (r.workers.length > 1) {
        for (const w of r.workers)
          rows.push([
            `  worker ${w.worker_id}`,
            '',
            w.outcome ?? (w.left_at ? '-' : 'working'),
            String(w.consents),
            String(w.requests),
            String(w.rows_written),
            String(w.failed_units),
          ]);
      }
    }
    formatTable(header, rows, '  ').forEach((line, i) => {
      lines.push(line);
      lines.push(...(notes.get(i) ?? []));
    });
  }
  lines.push('', 'consents:');
  if (report.consents.length === 0) lines.push('  (none registered: bankdata consents add ID)');
  else
    lines.push(
      ...formatTable(
        ['CONSENT', 'BANK', 'STATUS', 'EXPIRY', 'LAST SYNC (NZ)'],
        report.consents.map((c) => [
          c.consent_id,
          c.bank ?? '?',
          c.status ?? 'unread',
          // Never read: the expiry is unknown, not absent.
          c.status === null ? 'not read yet' : c.days_to_expiry === null ? 'no expiry' : expiryWords(c.days_to_expiry),
          `${c.last_outcome ?? '-'}${c.last_synced_at ? ` ${nzTimeText(c.last_synced_at)}` : ''}`,
        ]),
        '  ',
      ),
    );
  if (report.nearExpiry.length > 0) {
    lines.push('', `expiring within ${expiryWarningDays} days (ask the customer to re-consent):`);
    for (const c of report.nearExpiry)
      lines.push(`  ${c.consent_id} ${c.bank}: ${c.days_to_expiry === null ? '' : expiryWords(c.days_to_expiry)}`);
  }
  if (report.needsReconsent.length > 0) {
    lines.push('', 'ended (a new consent is needed):');
    // Why: the status or code that ended it (BDT409 leaves the status Authorised), else how long ago it expired.
    for (const c of report.needsReconsent)
      lines.push(
        `  ${c.consent_id}${c.bank ? ` ${c.bank}` : ''}: ${c.ended ?? (c.days_to_expiry === null ? c.status : expiryWords(c.days_to_expiry))}`,
      );
  }
  if (report.rejects.length > 0) {
    lines.push('', 'rejected records kept aside (table rejects):');
    for (const r of report.rejects) lines.push(`  ${r.resource}: ${r.count}`);
  }
  if (report.continuityBreaks !== undefined && report.continuityBreaks > 0) {
    lines.push(
      '',
      `continuity: ${report.continuityBreaks} break(s) between balances and transactions (bankdata check)`,
    );
  }
  const { unmatched, ambiguous } = report.payments;
  if (unmatched.length > 0) {
    lines.push('', 'settled payments without a matching bank transaction (bankdata export payments):');
    for (const p of unmatched)
      lines.push(
        `  ${p.payment_id} ${p.amount} ${p.currency} ${[p.particulars, p.code, p.reference].filter(Boolean).join('/')}`,
      );
  }
  if (ambiguous.length > 0) {
    lines.push('', 'payments with more than one possible bank transaction:');
    for (const p of ambiguous) {
      lines.push(
        `  ${p.payment_id} ${p.amount} ${p.currency} (${p.reason}): ${p.candidates.map((c) => `${c.bank}/${c.account_id}/${c.transaction_id}`).join(', ')}`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

export function registerStatusCommand(program: Command): void {
  program
    .command('status')
    .description('last runs, failures, consents near expiry or ended; reads the database only')
    .option('--json', 'print as JSON')
    .option('--runs <n>', 'how many runs to show (1 to 1000)', '5')
    .action(async (flags: { json?: boolean; runs: string }, command: Command) => {
      const runs = wholeNumber(flags.runs, '--runs', 1, 1000);
      const ctx = createCliContext(globalsOf(command));
      try {
        const store = await ctx.readStore();
        const report: StatusReport = {
          ...(await readStatus(store, ctx.config.expiryWarningDays, runs)),
          continuityBreaks: await store.continuity.countFindings(),
        };
        if (flags.json) printData(`${JSON.stringify(report, null, 2)}\n`);
        else printText(formatStatus(report, ctx.config.expiryWarningDays));
        process.exitCode = ExitCode.Ok;
      } finally {
        await ctx.close();
      }
    });
  withExamples(commandNamed(program, 'status'), [
    { line: 'bankdata status', says: 'last runs, failures, consents near expiry' },
    { line: 'bankdata status --runs 5 --json', says: 'the same as JSON, five runs' },
  ]);
  // The values that are not paths (src/cli/path-roles.ts); the paths are made in output-paths.ts.
  notPaths(commandNamed(program, 'status'), ['--runs']);
}

/** Why a consent row of v_consents has ended, or null (src/store/consent-state.ts). */
function endedOf(c: ConsentViewRow): string | null {
  return consentEnded({ endedReason: c.ended_reason, status: c.status });
}

function standingOf(c: ConsentViewRow, warnDays: number): ConsentStanding {
  return consentStanding({ endedReason: c.ended_reason, status: c.status, daysToExpiry: c.days_to_expiry }, warnDays);
}
