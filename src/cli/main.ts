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
import { Command, CommanderError, Help } from 'commander';
import { version } from '../../package.json';
import { terminalSafe } from '@bankdata/core/terminal-text';
import { addGlobalOptions } from './globals';
import { declaredOutputs } from './path-roles';

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
    name: 'report',
    description: 'one self-contained HTML report: balances, money in and out, consents, runs, continuity, payments',
    usage: '[options]',
    load: async () => (await import('./report')).registerReportCommand,
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
    description: 'print a shell completion script: bankdata completion bash|zsh',
    usage: '<shell>',
    load: async () => (await import('./completion')).registerCompletionCommand,
  },
];

/** The root program with the global options and no command yet. */
function rootProgram(): Command {
  const program = new Command('bankdata')
    .description('Open-banking data pipeline: sync a NZ bank Data API into SQLite, export CSV/JSON/OFX')
    .version(version)
    .exitOverride()
    // One error line and one hint line, like every other failure (README "Exit codes").
    .configureOutput({
      outputError: (text, write) => write(`bankdata: ${terminalSafe(text.replace(/^error: /, '').trim())}\n`),
    })
    .showHelpAfterError('hint: add --help to see the usage')
    // Every output path a command declares (src/cli/output-paths.ts) is checked before its action runs.
    .hook('preAction', async (_root, action) => {
      if (declaredOutputs(action).length > 0) (await import('./output-paths')).checkDeclaredOutputs(action);
    });
  addGlobalOptions(program);
  return program;
}

/**
 * The program of the first parse: one stub per command, which takes any options and arguments,
 * loads its module and hands the whole argv to the real command.
 */
export function buildProgram(argv: readonly string[]): Command {
  const program = rootProgram();
  const usageOf = new Map(COMMANDS.map((c) => [c.name, c.usage]));
  const help = new Help();
  program.configureHelp({
    subcommandTerm: (cmd) => {
      const usage = usageOf.get(cmd.name());
      return usage === undefined ? help.subcommandTerm(cmd) : [cmd.name(), usage].filter(Boolean).join(' ');
    },
  });
  for (const entry of COMMANDS) {
    program
      .command(entry.name)
      .description(entry.description)
      .helpOption(false)
      .allowUnknownOption()
      .allowExcessArguments()
      .action(async () => {
        const real = rootProgram();
        (await entry.load())(real);
        await real.parseAsync(argv);
      });
  }
  return program;
}

/** Every command registered for real (loads every module): for `completion` and tests. */
export async function buildFullProgram(): Promise<Command> {
  const program = rootProgram();
  for (const entry of COMMANDS) (await entry.load())(program);
  return program;
}

export async function main(argv: string[]): Promise<number> {
  try {
    await buildProgram(argv).parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end with code 0; anything else commander rejects is usage (2).
      return error.exitCode === 0 ? 0 : 2;
    }
    const { handleCliError } = await import('./handle-error');
    return handleCliError(error);
  }
}
