/**
 * The `bankdata` program. Each command is one entry of COMMANDS: its name, the line
 * `bankdata --help` shows, and a loader that imports the command's module only when that
 * command runs. `--help` and `--version` therefore load commander alone (no SQLite, no HTTP
 * client, no emulator), and `sync` never loads the emulator's code.
 *
 * How it runs: the first parse sees a light stub per command. The stub that commander picks
 * loads its module, which registers the real command (options, arguments, action) on a fresh
 * program, and that program parses the same argv again. Errors end in one top-level handler
 * that turns them into a message with a hint and an exit code.
 *
 * Adding a command (docs/packaging.md "Commands load when they run"): write src/cli/NAME.ts exporting
 * `registerNameCommand(program: Command)`, as the files below do, then add one entry here with
 * its description copied from the module (test/cli/program.test.ts checks they match).
 */
import { Command, CommanderError, Help, type Option } from 'commander';
import { version } from '../../package.json';
import { commanderErrorLines, errorFormat, type ErrorFormat } from './error-output';
import { addGlobalOptions } from './globals';

export interface CommandEntry {
  name: string;
  /** The command's description, as its module registers it (shown by `bankdata --help`). */
  description: string;
  /** Its arguments and options as `bankdata --help` lists them, e.g. '[options] <dataset>'. */
  usage: string;
  /** Imports the module and returns its register function; runs only when the command does. */
  load: () => Promise<(program: Command) => unknown>;
}

export const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'demo',
    description: 'run the whole pipeline against the built-in emulator: sync, exports, an incremental sync',
    usage: '[options]',
    load: async () => (await import('./demo')).registerDemoCommand,
  },
  {
    name: 'sync',
    description: 'one sync run: every registered consent (or --consent ones) into the database',
    usage: '[options]',
    load: async () => (await import('./sync')).registerSyncCommand,
  },
  {
    name: 'status',
    description: 'last runs, failures, consents near expiry or ended; reads the database only',
    usage: '[options]',
    load: async () => (await import('./status')).registerStatusCommand,
  },
  {
    name: 'check',
    description:
      'balance continuity: booked balances against booked transactions, and running balances; exit 1 on a break',
    usage: '[options]',
    load: async () => (await import('./check')).registerCheckCommand,
  },
  {
    name: 'categorise',
    description:
      'decide every transaction again: category and payee from the rules file, the MCC, the bank code; print what moved',
    usage: '[options]',
    load: async () => (await import('./categorise')).registerCategoriseCommand,
  },
  {
    name: 'transfers',
    description: 'link own-account transfers (pairs between accounts of one owner) again and list them',
    usage: '[options]',
    load: async () => (await import('./transfers')).registerTransfersCommand,
  },
  {
    name: 'report',
    description: 'one self-contained HTML report: balances, money in and out, consents, runs, continuity, payments',
    usage: '[options]',
    load: async () => (await import('./report')).registerReportCommand,
  },
  {
    name: 'changes',
    description: 'the transactions added, modified and removed since a cursor, and the next cursor (a change feed)',
    usage: '[options]',
    load: async () => (await import('./changes')).registerChangesCommand,
  },
  {
    name: 'emulator',
    description: 'serve the Data API emulator in the foreground (one JSON line on stdout, request logs on stderr)',
    usage: '[options]',
    load: async () => (await import('./emulator')).registerEmulatorCommand,
  },
  {
    name: 'export',
    description: 'export a dataset of the views as CSV, JSON, NDJSON or OFX (dates are NZ dates, inclusive)',
    usage: '[options] <dataset>',
    load: async () => (await import('./export')).registerExportCommand,
  },
  {
    name: 'payments',
    description: 'make payments through the Payments API, track them and match them to bank transactions',
    usage: '',
    load: async () => (await import('./payments')).registerPaymentsCommand,
  },
  {
    name: 'consents',
    description: 'register, create, list, show and revoke consents',
    usage: '',
    load: async () => (await import('./consents')).registerConsentsCommand,
  },
  {
    name: 'meta',
    description: "fetch and show each bank's features (GET /v1/meta)",
    usage: '[options]',
    load: async () => (await import('./meta')).registerMetaCommand,
  },
  {
    name: 'pacing',
    description: "the bank's rate limit as the pacer stored it per bank API and client; `reset` forgets it",
    usage: '[options]',
    load: async () => (await import('./pacing')).registerPacingCommand,
  },
  {
    name: 'alerts',
    description: 'the alert outbox (pending, delivered, failed); `test` sends a sample event',
    usage: '[options]',
    load: async () => (await import('./alerts')).registerAlertsCommand,
  },
  {
    name: 'schedule',
    description:
      'run the scheduled jobs in the foreground (nightly sync, expiry check, meta refresh; Pacific/Auckland)',
    usage: '',
    load: async () => (await import('./schedule')).registerScheduleCommand,
  },
  {
    name: 'db',
    description: 'the database itself: online backup, schema migration, copy between SQLite and PostgreSQL',
    usage: '',
    load: async () => (await import('./db')).registerDbCommand,
  },
  {
    name: 'completion',
    description: 'print a shell completion script: bankdata completion bash|zsh|fish',
    usage: '<shell>',
    load: async () => (await import('./completion')).registerCompletionCommand,
  },
];

/**
 * The first parse's stand-ins (buildProgram), and its `help` command: no preflight, no alerts; the
 * real command a stand-in loads passes the preflight.
 */
const stubs = new WeakSet<Command>();

/**
 * The command whose action started (past the preflight) and has not ended well: its postAction
 * hook clears it. When the action throws, commander runs no postAction hook, and main()'s catch
 * judges the alerts for it instead (a failed sync must still deliver `run.failed`).
 */
let actionInFlight: Command | null = null;

/**
 * The root program with the global options and no command yet. `format`: that of the final error
 * (src/cli/error-output.ts `errorFormat`), for the usage errors commander reports.
 */
function rootProgram(format: ErrorFormat): Command {
  const program = new Command('bankdata')
    .description('Open-banking data pipeline: sync a NZ bank Data API into SQLite, export CSV/JSON/OFX')
    .version(version)
    .exitOverride()
    // One error line and one hint line, or one JSON line, like every other failure (README "Exit
    // codes", "Output"); an option's value it echoes redacted.
    .configureOutput({ outputError: (text, write) => write(commanderErrorLines(text, format)) })
    .showHelpAfterError(false)
    .showSuggestionAfterError(true)
    // Before any action: the required options, then the configuration, the credentials the command
    // declared and every output path it declared (src/cli/preflight.ts), so a refused command has
    // created nothing.
    .hook('preAction', async (_root, action) => {
      if (stubs.has(action)) return;
      checkDeferredMandatory(action);
      (await import('./preflight')).preflight(action);
      actionInFlight = action;
    })
    // After a command that can change alertable state (declared with `raisesAlerts`, not run with
    // --offline or --dry-run): the alerts judged and the outbox delivered (docs/alerts.md "When
    // alerts are judged"). Here when the action ended well; main()'s catch when it threw; and
    // after each scheduled job.
    .hook('postAction', async (_root, action) => {
      if (stubs.has(action)) return;
      actionInFlight = null;
      await alertsAfter(action);
    });
  addGlobalOptions(program);
  return program;
}

/** Options whose "required option … not specified" waits for the unknown-option check (below). */
const deferredMandatory = new WeakSet<Option>();

/**
 * Commander checks required options before unknown ones, so `--fromat csv` would be reported as
 * "required option '--format <format>' not specified". Every command's required options are
 * taken out of commander's early check and checked in the preAction hook, which runs after the
 * unknown-option check: a typo is named as the unknown option it is, with a suggestion.
 */
function deferMandatoryOptions(command: Command): void {
  for (const option of command.options) {
    if (!option.mandatory) continue;
    option.makeOptionMandatory(false);
    deferredMandatory.add(option);
  }
  for (const sub of command.commands) deferMandatoryOptions(sub);
}

function checkDeferredMandatory(action: Command): void {
  for (let cmd: Command | null = action; cmd; cmd = cmd.parent) {
    for (const option of cmd.options) {
      if (deferredMandatory.has(option) && cmd.getOptionValue(option.attributeName()) === undefined)
        cmd.error(`error: required option '${option.flags}' not specified`, {
          code: 'commander.missingMandatoryOptionValue',
          exitCode: 1,
        });
    }
  }
}

/** The `help` command's description, as commander describes its own (the completion shows it too). */
export const HELP_DESCRIPTION = 'display help for command';

/**
 * The program of the first parse: one stub per command, which takes any options and arguments,
 * loads its module and hands the whole argv to the real command; and the `help` command.
 */
export function buildProgram(argv: readonly string[], format: ErrorFormat = errorFormat(argv.slice(2))): Command {
  const program = rootProgram(format);
  const usageOf = new Map(COMMANDS.map((c) => [c.name, c.usage]));
  const help = new Help();
  program.configureHelp({
    subcommandTerm: (cmd) => {
      const usage = usageOf.get(cmd.name());
      return usage === undefined ? help.subcommandTerm(cmd) : [cmd.name(), usage].filter(Boolean).join(' ');
    },
  });
  for (const entry of COMMANDS) {
    const stub = program.command(entry.name);
    stubs.add(stub);
    stub
      .description(entry.description)
      .helpOption(false)
      .allowUnknownOption()
      .allowExcessArguments()
      .action(async () => {
        const real = rootProgram(format);
        (await entry.load())(real);
        deferMandatoryOptions(real);
        await real.parseAsync(argv);
      });
  }
  // `bankdata help X Y` is `bankdata X Y --help`: the same page, exit 0, sub-commands included.
  // Commander's own help command would show the stub's page (no options), one level deep only.
  // It is listed as commander lists its own (`help [command]`, last). An X that is no command is
  // refused as `bankdata X` is: one line, the suggestion as the hint, exit 2.
  const helpCommand = program
    .command('help')
    .argument('[command]')
    .description(HELP_DESCRIPTION)
    .helpOption(false)
    .allowUnknownOption()
    .allowExcessArguments()
    .action(async (_name: unknown, _options: unknown, command: Command) => {
      const [name, ...rest] = command.args;
      if (name === undefined || name === 'help') return program.help();
      const again = [...argv.slice(0, 2), ...(usageOf.has(name) ? [name, ...rest, '--help'] : [name])];
      await buildProgram(again, format).parseAsync(again);
    });
  stubs.add(helpCommand);
  return program;
}

/** Every command registered for real (loads every module): for `completion` and tests. */
export async function buildFullProgram(): Promise<Command> {
  const program = rootProgram(errorFormat());
  for (const entry of COMMANDS) (await entry.load())(program);
  return program;
}

/** Judges the alerts after `action` if it raises them (src/cli/command-needs.ts); never throws. */
async function alertsAfter(action: Command): Promise<void> {
  if (!(await import('./command-needs')).raisesAlertsOf(action)) return;
  await (await import('./alerts')).alertsAfterCommand(action);
}

export async function main(argv: string[]): Promise<number> {
  actionInFlight = null;
  try {
    await buildProgram(argv).parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    const failed = actionInFlight;
    actionInFlight = null;
    // --help and --version end with 0; anything else commander rejects is usage (2), its lines
    // written already (outputError above).
    const usage = error instanceof CommanderError ? (error.exitCode === 0 ? 0 : 2) : null;
    if (failed === null && usage !== null) return usage;
    // The action ran and threw: its alerts are judged as after one that ended well (a failed sync
    // delivers `run.failed`). The error is classified and its lines made first, before the alerts
    // open the database again, and written last: it stays the command's last word and its exit
    // code whatever the alerts do (they never throw; a failure of theirs is a warning before it).
    // Not when the database is what failed (exit 6): they could not open it either.
    let lines = '';
    const code =
      usage ?? (await import('./handle-error')).handleCliError(error, (s) => (lines += s), errorFormat(argv.slice(2)));
    const { ExitCode } = await import('./exit-codes');
    if (failed !== null && code !== ExitCode.Database) await alertsAfter(failed).catch(() => undefined);
    process.stderr.write(lines);
    return code;
  }
}
