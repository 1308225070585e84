/**
 * `bankdata report [--out FILE] [--from DATE] [--to DATE] [--account ID]`: one self-contained
 * HTML file (src/report). Reads the database only. The report's modules (ECharts among them)
 * are loaded when the command runs, so other commands never pay for them.
 */
import { join } from 'node:path';
import type { Command } from 'commander';
import { nzDateFlag } from '../export/filters';
import { outputStream } from '../fs/output-path';
import { createCliContext, globalsOf } from './command-context';
import { ExitCode, UsageError } from './exit-codes';
import { outputPathOption } from './output-paths';
import { commandNamed } from './command-needs';
import { withExamples } from './command-help';
import { notPaths } from './path-roles';
import { printData, printText } from './stdout';

interface ReportFlags {
  /** Checked and absolute (src/cli/output-paths.ts), the default filled in. */
  out: string;
  from?: string;
  to?: string;
  account?: string;
  json?: boolean;
}

/** Read as every command reads an NZ date (src/export/filters.ts `nzDateFlag`). */
function nzDate(flag: string, value: string | undefined): string | null {
  return value === undefined ? null : nzDateFlag(flag, value);
}

export function registerReportCommand(program: Command): void {
  program
    .command('report')
    .description('one self-contained HTML report: balances, money in and out, consents, runs, continuity, payments')
    .addOption(
      outputPathOption('--out <file>', 'where to write it (default: <data dir>/report.html)', {
        defaultPath: (dataDir) => join(dataDir, 'report.html'),
        streams: true,
      }),
    )
    .option('--from <date>', 'first NZ date of the period (YYYY-MM-DD)')
    .option('--to <date>', 'last NZ date of the period (YYYY-MM-DD)')
    .option('--account <id>', 'only this account')
    .option('--json', 'print the outcome as one JSON document: {path, accounts, charts}')
    .action(async (flags: ReportFlags, command: Command) => {
      // A report sent to this process's stdout (--out /dev/stdout, a stream written straight
      // through: docs/exports.md "Output") leaves stdout to the HTML: the outcome goes to stderr,
      // and a JSON outcome, which belongs on stdout, cannot be had with it.
      const onStdout = outputStream(flags.out)?.fd === 1;
      if (onStdout && flags.json) throw new UsageError('--json prints on stdout, where --out sends the report');
      const from = nzDate('--from', flags.from);
      const to = nzDate('--to', flags.to);
      if (from && to && from > to) throw new UsageError(`--from ${from} is after --to ${to}`);
      const ctx = createCliContext(globalsOf(command));
      try {
        // The report only reads: a database this user cannot write is reported all the same.
        const store = await ctx.readStore();
        if (
          flags.account !== undefined &&
          (await store.reportData.accounts({ accountId: flags.account })).length === 0
        ) {
          throw new UsageError(`--account ${flags.account}: no such account in the database`);
        }
        const { writeReport } = await import('../report/write-report');
        const written = await writeReport(store, flags.out, { from, to, accountId: flags.account });
        const summary = `report written: ${written.path} (${written.accounts} account(s), ${written.charts} chart(s))`;
        // The report on stdout: its summary is a diagnostic, through the logger (-q leaves it out,
        // --log-format json makes it a JSON line; README "Output"); else the command's result.
        if (onStdout) ctx.logger.notice(summary);
        else if (flags.json)
          printData(`${JSON.stringify({ path: written.path, accounts: written.accounts, charts: written.charts })}\n`);
        else printText(`${summary}\n`);
        process.exitCode = ExitCode.Ok;
      } finally {
        await ctx.close();
      }
    });
  withExamples(commandNamed(program, 'report'), [
    { line: 'bankdata report --out report.html', says: 'the HTML report of everything stored' },
    {
      line: 'bankdata report --from 2026-01-01 --to 2026-03-31 --account ACCOUNT_ID',
      says: 'one account over one quarter (NZ dates)',
    },
  ]);
  // The values that are not paths (src/cli/path-roles.ts); the paths are made in output-paths.ts.
  notPaths(commandNamed(program, 'report'), ['--from', '--to', '--account']);
}
