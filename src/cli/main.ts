/**
 * The `bankdata` program: one commander program, one file per command, and one top-level
 * handler that turns every error into a message with a hint and an exit code.
 */
import { Command, CommanderError } from 'commander';
import { registerExportCommand } from './export';
import { registerPaymentsCommand } from './payments';
import { registerEmulatorCommand } from './emulator';
import { registerConsentsCommand } from './consents';
import { registerMetaCommand } from './meta';
import { registerScheduleCommand } from './schedule';
import { addGlobalOptions } from './context';
import { registerCheckCommand } from './check';
import { registerDemoCommand } from './demo';
import { handleCliError } from './handle-error';
import { registerReportCommand } from './report';
import { terminalSafe } from '../terminal-text';
import { registerStatusCommand } from './status';
import { registerSyncCommand } from './sync';
import { registerDbCommand } from './db';

export function buildProgram(): Command {
  const program = new Command('bankdata')
    .description('Open-banking data pipeline: sync a NZ bank Data API into SQLite, export CSV/JSON/OFX')
    .version('0.1.0')
    .exitOverride()
    // One error line and one hint line, like every other failure (README "Exit codes").
    .configureOutput({ outputError: (text, write) => write(`bankdata: ${terminalSafe(text.replace(/^error: /, '').trim())}\n`) })
    .showHelpAfterError('hint: add --help to see the usage');
  addGlobalOptions(program);
  registerDemoCommand(program);
  registerSyncCommand(program);
  registerStatusCommand(program);
  registerCheckCommand(program);
  registerReportCommand(program);
  registerEmulatorCommand(program);
  registerExportCommand(program);
  registerPaymentsCommand(program);
  registerConsentsCommand(program);
  registerMetaCommand(program);
  registerScheduleCommand(program);
  registerDbCommand(program);
  return program;
}

export async function main(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end with code 0; anything else commander rejects is usage (2).
      return error.exitCode === 0 ? 0 : 2;
    }
    return handleCliError(error);
  }
}

const code = await main(process.argv);
process.exitCode = code;
