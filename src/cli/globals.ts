/**
 * The options every command accepts (the config's flags layer) and how a sub-command reads
 * them. Imports nothing but commander and path-roles.ts: `bankdata --help` loads it.
 *
 * Diagnostics (README "Output"): stdout carries a command's result only; warnings, notes and
 * errors go to stderr through the one logger (src/log.ts), as text lines by default or JSON lines
 * (`--log-format json`, `BANKDATA_LOG_FORMAT=json`). `-q/--quiet` and `-v/--verbose` set the same
 * value as `--log-level` (error and info): of the three, the last one on the command line wins.
 */
import { Option, type Command } from 'commander';
import type { LogFormat, LogLevel } from '../log';
import { declarePathRole } from './path-roles';

export interface GlobalOptions {
  db?: string;
  dataDir?: string;
  logLevel?: LogLevel;
  logFormat?: LogFormat;
}

/** The level when no --log-level, -q or -v is given. */
export const DEFAULT_LOG_LEVEL: LogLevel = 'warn';

/** Registers the options every command accepts (they are the config's flags layer). */
export function addGlobalOptions(program: Command): Command {
  program
    .addOption(
      declarePathRole(
        new Option('--db <path>', 'SQLite database file (default: BANKDATA_DB or data/bankdata.sqlite)'),
        'data',
      ),
    )
    .addOption(
      declarePathRole(
        new Option('--data-dir <dir>', 'data directory for statement files and exports (default: data)'),
        'data',
      ),
    )
    .addOption(
      declarePathRole(
        new Option('--log-level <level>', 'which diagnostics reach stderr (default: warn)').choices([
          'debug',
          'info',
          'warn',
          'error',
          'silent',
        ]),
        'none',
      ),
    )
    .addOption(new Option('-q, --quiet', 'errors only on stderr (--log-level error)'))
    .addOption(new Option('-v, --verbose', 'progress and retries on stderr too (--log-level info)'))
    .addOption(
      declarePathRole(
        new Option('--log-format <format>', 'diagnostics on stderr as text lines or JSON lines')
          .choices(['text', 'json'])
          .env('BANKDATA_LOG_FORMAT')
          .default('text'),
        'none',
      ),
    );
  // -q and -v write the value --log-level writes, when they are parsed: the last one given wins.
  program.on('option:quiet', () => program.setOptionValueWithSource('logLevel', 'error', 'cli'));
  program.on('option:verbose', () => program.setOptionValueWithSource('logLevel', 'info', 'cli'));
  return program;
}

/** The global options of the root program, from any sub-command. */
export function globalsOf(command: Command): GlobalOptions {
  let root = command;
  while (root.parent) root = root.parent;
  return root.opts<GlobalOptions>();
}

/** The logger's level and format for these global options. */
export function logOptionsOf(global: GlobalOptions): { level: LogLevel; format: LogFormat } {
  return { level: global.logLevel ?? DEFAULT_LOG_LEVEL, format: global.logFormat ?? 'text' };
}
