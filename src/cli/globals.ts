/**
 * The options every command accepts (the config's flags layer) and how a sub-command reads
 * them. Imports nothing but commander and path-roles.ts: `bankdata --help` loads it.
 */
import { Option, type Command } from 'commander';
import type { LogLevel } from '../log';
import { declarePathRole } from './path-roles';

export interface GlobalOptions {
  db?: string;
  dataDir?: string;
  logLevel?: LogLevel;
}

/** Registers the options every command accepts (they are the config's flags layer). */
export function addGlobalOptions(program: Command): Command {
  return program
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
        new Option('--log-level <level>', 'logs go to stderr as JSON lines')
          .choices(['debug', 'info', 'warn', 'error', 'silent'])
          .default('warn'),
        'none',
      ),
    );
}

/** The global options of the root program, from any sub-command. */
export function globalsOf(command: Command): GlobalOptions {
  let root = command;
  while (root.parent) root = root.parent;
  return root.opts<GlobalOptions>();
}
