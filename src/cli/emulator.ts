/**
 * `bankdata emulator`: serves the Data API emulator in the foreground. Prints ONE JSON line
 * `{base_url, client_id, client_secret, consent_ids, payments_…}` on stdout, then one JSON log
 * line per request on stderr; serves until SIGINT or SIGTERM, then closes cleanly. The flags,
 * their checks and the serving are the emulator package's own (`bankdata-emulator` is the same
 * command line): packages/emulator/src/cli.ts.
 *
 * `--env-file F` (bankdata's alone): before the JSON line, F is written (mode 0600) with the
 * `BANKDATA_*` settings that point a sync at this emulator, for another shell to load with
 * `. F`; each client secret goes to its own 0600 file beside F (`F.client-secret`,
 * `F.payments-client-secret`), which F names through `BANKDATA_CLIENT_SECRET_FILE` and
 * `BANKDATA_PAYMENTS_CLIENT_SECRET_FILE`: F itself holds no secret. The three files are
 * removed when the emulator stops on a signal. docs/emulator.md walks through it.
 */
import type { Command } from 'commander';
import { rm } from 'node:fs/promises';
import { DEFAULT_REDIRECT_WHITELIST, type EmulatorOptions } from '@bankdata/emulator';
import {
  EMULATOR_FLAGS,
  EmulatorUsageError,
  emulatorOptionsFromFlags as optionsFromFlags,
  serve,
  type EmulatorFlags,
} from '@bankdata/emulator/cli';
import { openAtomicFile } from '../fs/atomic-file';
import { checkOutputPath, toLocalFileError } from '../fs/output-path';
import { createLogger } from '../log';
import { UsageError } from './exit-codes';
import { outputPathOption } from './output-paths';
import { declarePathRole } from './path-roles';
import { printsOnStdout, readsNoConfig } from './command-needs';
import { Option } from 'commander';
import { commandNamed } from './command-needs';
import { withExamples } from './command-help';
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

/** The files `--env-file F` writes: F and the two secret files beside it. */
export function envFilePaths(envFile: string): { env: string; clientSecret: string; paymentsClientSecret: string } {
  return {
    env: envFile,
    clientSecret: `${envFile}.client-secret`,
    paymentsClientSecret: `${envFile}.payments-client-secret`,
  };
}

/** A word for a POSIX shell: single-quoted, a quote inside closed, escaped and reopened. */
function shellWord(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** The text of F: `export NAME='value'` lines a POSIX shell runs with `. F`. */
export function envFileText(
  ready: Record<string, unknown>,
  options: EmulatorOptions,
  paths: ReturnType<typeof envFilePaths>,
): string {
  const text = (key: string) => {
    const value = ready[key];
    if (typeof value !== 'string') throw new Error(`the emulator's ready line has no ${key}`);
    return value;
  };
  const consentIds = Array.isArray(ready.consent_ids) ? ready.consent_ids.map(String) : [];
  const settings: [string, string][] = [
    ['BANKDATA_ENVIRONMENT', options.environment ?? 'sandbox'],
    ['BANKDATA_DATA_BASE_URL', text('base_url')],
    ['BANKDATA_CLIENT_ID', text('client_id')],
    ['BANKDATA_CLIENT_SECRET_FILE', paths.clientSecret],
    ['BANKDATA_PAYMENTS_BASE_URL', text('payments_base_url')],
    ['BANKDATA_PAYMENTS_CLIENT_ID', text('payments_client_id')],
    ['BANKDATA_PAYMENTS_CLIENT_SECRET_FILE', paths.paymentsClientSecret],
    ['BANKDATA_REDIRECT_WHITELIST', (options.redirectWhitelist ?? DEFAULT_REDIRECT_WHITELIST).join(',')],
    // Not configuration: the seeded consents' ids, for `bankdata consents add $BANKDATA_EMULATOR_CONSENT_IDS`.
    ['BANKDATA_EMULATOR_CONSENT_IDS', consentIds.join(' ')],
  ];
  return [
    `# Written by \`bankdata emulator\` (pid ${process.pid}) for the emulator at ${text('base_url')}.`,
    '# Load it in another shell with `. FILE` (docs/emulator.md); it is removed when the emulator stops.',
    '# The client secrets are in the files named by the *_SECRET_FILE variables, not here.',
    // A secret given directly as well as through its file is refused (docs/configuration.md).
    'unset BANKDATA_CLIENT_SECRET BANKDATA_PAYMENTS_CLIENT_SECRET',
    ...settings.map(([name, value]) => `export ${name}=${shellWord(value)}`),
    '',
  ].join('\n');
}

/** Writes one owner-only file atomically (src/fs/atomic-file.ts); the directory must exist. */
async function writeOwnerOnly(path: string, text: string): Promise<void> {
  try {
    const file = await openAtomicFile(path, { createDirectories: false, hiddenTemp: true });
    try {
      file.stream.write(text);
      await file.commit();
    } catch (error) {
      await file.abort();
      throw error;
    }
  } catch (error) {
    throw toLocalFileError(path, error);
  }
}

/** Writes the secret files, then F (so that F never names a missing file); returns how to remove them. */
async function writeEnvFiles(
  ready: Record<string, unknown>,
  options: EmulatorOptions,
  paths: ReturnType<typeof envFilePaths>,
): Promise<void> {
  const secret = (key: string) => {
    const value = ready[key];
    if (typeof value !== 'string') throw new Error(`the emulator's ready line has no ${key}`);
    return `${value}\n`;
  };
  await writeOwnerOnly(paths.clientSecret, secret('client_secret'));
  await writeOwnerOnly(paths.paymentsClientSecret, secret('payments_client_secret'));
  await writeOwnerOnly(paths.env, envFileText(ready, options, paths));
}

export function registerEmulatorCommand(program: Command): void {
  const command = program
    .command('emulator')
    .description('serve the Data API emulator in the foreground (one JSON line on stdout, request logs on stderr)');
  // The emulator reads no bankdata configuration: a broken config/local.json does not stop it.
  readsNoConfig(command);
  printsOnStdout(command, 'service');
  for (const flag of EMULATOR_FLAGS)
    command.addOption(
      declarePathRole(new Option(`--${flag.name} <${flag.value}>`, flag.description).default(flag.default), 'none'),
    );
  command.addOption(
    outputPathOption(
      '--env-file <file>',
      'also write the BANKDATA_* settings for this emulator to this file (mode 0600), for `. FILE` in another shell; ' +
        'the client secrets go to FILE.client-secret and FILE.payments-client-secret',
    ),
  );
  command.action(async (flags: EmulatorFlags & { envFile?: string }) => {
    const options = emulatorOptionsFromFlags(flags);
    const envFile = flags.envFile;
    const paths = envFile === undefined ? null : envFilePaths(envFile);
    // The secret files beside F pass the same guard as F (checked before the action).
    if (paths)
      for (const path of [paths.clientSecret, paths.paymentsClientSecret]) checkOutputPath(path, {}, '--env-file');
    // A server's request log: at info level unless a level is given; text or JSON as every command's.
    const global = globalsOf(command);
    const logger = createLogger({
      level: global.logLevel ?? 'info',
      format: global.logFormat ?? 'text',
      fields: { component: 'emulator' },
    });
    await serve(options, logger, process.stdout, {
      ...(paths ? { beforeReady: (ready) => writeEnvFiles(ready, options, paths) } : {}),
      ...(paths
        ? {
            afterStop: async () => {
              for (const path of [paths.env, paths.clientSecret, paths.paymentsClientSecret])
                await rm(path, { force: true });
            },
          }
        : {}),
    });
  });
  withExamples(commandNamed(program, 'emulator'), [
    {
      line: 'bankdata emulator --seed 7 --env-file emulator.env',
      says: 'serve, and write the settings a second shell loads with `. emulator.env`',
    },
    {
      line: 'bankdata emulator --faults light --latency-ms 200',
      says: 'an emulator that fails now and then and answers slowly',
    },
  ]);
}
