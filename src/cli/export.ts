/**
 * `bankdata export DATASET --format csv|json|ndjson|ofx|xero|myob [--out PATH|-] [filters…]`: one
 * dataset of the public views, streamed to a file (written atomically) or to stdout (the default).
 * Warnings (an export partial by construction) go to stderr, with the summary line.
 */
import { setFlagsFromString } from 'node:v8';
import type { Command } from 'commander';
import { DATASETS, FORMATS, OFX_DIALECTS, STATUSES, STDOUT, exportDataset, validateExportRequest } from '../export';
import { createCliContext, globalsOf } from './command-context';
import { outputPathOption } from './output-paths';
import { commandNamed, printsOnStdout } from './command-needs';
import { withExamples } from './command-help';
import { notPaths } from './path-roles';
import type { Logger } from '../log';

interface ExportFlags {
  format: string;
  out: string;
  from?: string;
  to?: string;
  consent?: string;
  account: string[];
  bank?: string;
  status: string;
  excludeTransfers?: boolean;
  excel?: boolean;
  lf?: boolean;
  neutralise: boolean;
  ofxDialect?: string;
  excludeDuplicates?: boolean;
}

const repeatable = (value: string, previous: string[]) => [...previous, value];

/**
 * Keeps V8's young generation at the size it has when the export starts (a few megabytes) rather
 * than letting it grow to its 32 MB maximum: an export makes short-lived strings for every cell,
 * and V8 grows the young generation with the bytes that survive its collections, however few, so
 * a long export would reach the maximum and hold it for no gain (docs/benchmarks.md "Export": the
 * peak memory the export is held to). V8 reads the factor each time it would grow, so this applies
 * from here on, to this process only; it ends with the command.
 */
function keepYoungGenerationSmall(): void {
  // The flag is in the V8 of Node 20 to 24; a V8 without it would print a warning where an
  // `--out -` export writes its data, so it is set only where it is known to exist.
  const major = Number(process.versions.node.split('.')[0]);
  if (major >= 20 && major <= 24) setFlagsFromString('--semi-space-growth-factor=1');
}

export function registerExportCommand(program: Command): void {
  program
    .command('export')
    .description('export a dataset of the views as CSV, JSON, NDJSON or OFX (dates are NZ dates, inclusive)')
    .argument('<dataset>', DATASETS.join(' | '))
    .requiredOption('--format <format>', FORMATS.join(' | '))
    // Checked before the action (src/cli/output-paths.ts): never the database, a statement file, a directory.
    // A FIFO, a device or /dev/stdout is written straight through, never replaced (streams).
    .addOption(outputPathOption('--out <path>', 'output file, or - for stdout', { stdout: true, streams: true }))
    .option(
      '--from <date>',
      'first NZ date, YYYY-MM-DD (transactions: booking_date; balances: date_time; statements: period overlap; runs: started_at)',
    )
    .option('--to <date>', 'last NZ date, YYYY-MM-DD, inclusive')
    .option('--consent <id>', 'only rows of this consent')
    .option(
      '--account <id>',
      'only rows of this account; repeat for several (ofx: one statement each; xero, myob: exactly one)',
      repeatable,
      [],
    )
    .option('--bank <bank>', 'only rows of this bank')
    .option('--status <status>', `transactions: ${STATUSES.join(' | ')}`, 'all')
    .option(
      '--exclude-transfers',
      'transactions as csv, json, ndjson: leave out own-account transfers (either side of a v_transfers pair)',
    )
    .option(
      '--exclude-duplicates',
      'transactions: leave out the rows bankdata check suspects the bank served twice (v_transactions.suspected_duplicate)',
    )
    .option('--excel', 'CSV: add a UTF-8 BOM so Excel reads the file as UTF-8')
    .option('--lf', 'CSV: LF line endings instead of CRLF')
    .option(
      '--no-neutralise',
      'CSV, xero, myob: write text cells exactly, no leading quote before = + - @ (for programs, not spreadsheets)',
    )
    .option(
      '--ofx-dialect <dialect>',
      `OFX: ${OFX_DIALECTS.join(' | ')} (default sgml: OFX 1.6, UTF-8, read by libofx, ofxparse, ledger-autosync)`,
    )
    .action(async (dataset: string, flags: ExportFlags, command: Command) => {
      const filters = {
        from: flags.from,
        to: flags.to,
        consentId: flags.consent,
        accountId: flags.account.length > 0 ? flags.account : undefined,
        bank: flags.bank,
        status: flags.status,
        excludeTransfers: flags.excludeTransfers ?? false,
        excludeDuplicates: flags.excludeDuplicates,
      };
      // Judge the request before touching the database: a bad filter is exit 2 either way.
      validateExportRequest(dataset, flags.format, filters);
      keepYoungGenerationSmall();
      // The global --db over BANKDATA_DB over config files over data/bankdata.sqlite (src/config).
      const context = createCliContext(globalsOf(command));
      // Read-only: never created, written or migrated (exit 6 with a hint otherwise).
      const store = await context.readStore();
      try {
        const result = await exportDataset(store, {
          dataset,
          format: flags.format,
          out: flags.out,
          filters,
          excel: flags.excel ?? false,
          lineEnding: flags.lf ? 'lf' : 'crlf',
          neutralise: flags.neutralise,
          accountCodes: context.config.categories.accountCodes,
          ...(flags.ofxDialect !== undefined ? { ofxDialect: flags.ofxDialect } : {}),
        });
        reportExportWarnings(context.logger, result.warnings);
        if (result.path !== STDOUT) {
          const partial =
            result.warnings.length > 0 ? `; partial by construction: ${result.warnings.length} warning(s) above` : '';
          // Through the logger: -q leaves it out, --log-format json makes it a JSON line (README "Output").
          context.logger.notice(
            `exported ${result.rows} ${dataset} rows to ${result.path} (${result.bytes} bytes)${partial}`,
          );
        }
      } finally {
        await context.close();
      }
    });
  printsOnStdout(commandNamed(program, 'export'), 'product');
  withExamples(commandNamed(program, 'export'), [
    { line: 'bankdata export transactions --format csv --out transactions.csv', says: 'every transaction as CSV' },
    {
      line: 'bankdata export transactions --format ofx --account ACCOUNT_ID --from 2026-01-01 --out jan.ofx',
      says: 'one account from an NZ date as OFX',
    },
    { line: 'bankdata export accounts --format json', says: 'the accounts as JSON on stdout' },
  ]);
  // The values that are not paths (src/cli/path-roles.ts); the paths are made in output-paths.ts.
  notPaths(commandNamed(program, 'export'), [
    '--format',
    '--from',
    '--to',
    '--consent',
    '--account',
    '--bank',
    '--status',
    '--ofx-dialect',
    '<dataset>',
  ]);
}

/**
 * The warnings of an export partial by construction, through the logger (so `-q` and
 * `--log-level` rule them): one is shown as it is; several become one warning with their count,
 * each of them shown at info level (`-v`).
 */
export function reportExportWarnings(logger: Logger, warnings: readonly string[]): void {
  const [only, ...more] = warnings;
  if (only === undefined) return;
  if (more.length === 0) {
    logger.warn(only);
    return;
  }
  logger.warn(
    `the export is partial by construction in ${warnings.length} ways (a consent that does not cover the dates asked for, or grants credits or debits only)`,
    logger.enabled('info') ? {} : { hint: 'add -v to list each' },
  );
  for (const warning of warnings) logger.info(warning);
}
