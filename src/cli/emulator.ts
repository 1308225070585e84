/**
 * `bankdata emulator`: serves the Data API emulator in the foreground. Prints ONE JSON line
 * `{base_url, client_id, client_secret, consent_ids, payments_…}` on stdout, then one JSON log
 * line per request on stderr; serves until SIGINT or SIGTERM, then closes cleanly. The flags,
 * their checks and the serving are the emulator package's own (`bankdata-emulator` is the same
 * command line): packages/emulator/src/cli.ts.
 */
import type { Command } from 'commander';
import type { EmulatorOptions } from '@bankdata/emulator';
import {
  EMULATOR_FLAGS,
  EmulatorUsageError,
  emulatorOptionsFromFlags as optionsFromFlags,
  serve,
  type EmulatorFlags,
} from '@bankdata/emulator/cli';
import { createLogger } from '../log';
import { UsageError } from './exit-codes';
import { globalsOf } from './globals';

/** Flags → options, every value checked: a refused one is a usage error (exit 2), same message. */
export function emulatorOptionsFromFlags(flags: EmulatorFlags): EmulatorOptions {
  try {
    return optionsFromFlags(flags);
  } catch (error) {
    if (error instanceof EmulatorUsageError) throw new UsageError(error.message);
    throw error;
  }
}

export function registerEmulatorCommand(program: Command): void {
  const command = program
    .command('emulator')
    .description('serve the Data API emulator in the foreground (one JSON line on stdout, request logs on stderr)');
  for (const flag of EMULATOR_FLAGS) command.option(`--${flag.name} <${flag.value}>`, flag.description, flag.default);
  command.action(async (flags: EmulatorFlags) => {
    const options = emulatorOptionsFromFlags(flags);
    // A server's request log: at info level unless a level is given; text or JSON as every command's.
    const global = globalsOf(command);
    const logger = createLogger({
      level: global.logLevel ?? 'info',
      format: global.logFormat ?? 'text',
      fields: { component: 'emulator' },
    });
    await serve(options, logger);
  });
}
