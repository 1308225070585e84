/**
 * The emulator's command line, written once: the `bankdata-emulator` command of this package
 * (`main`, run by bin/bankdata-emulator.js from dist/cli.js) and bankdata's `bankdata emulator`
 * (src/cli/emulator.ts registers its commander options from EMULATOR_FLAGS and calls
 * emulatorOptionsFromFlags and serve). Both print ONE JSON line on stdout (the ready line: base
 * URLs, credentials, seeded consent ids), then one JSON log line per API request on stderr, and
 * serve until SIGINT or SIGTERM, then close cleanly (exit 0). docs/emulator.md.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { redact } from '@bankdata/core/secrets';
import { terminalSafe } from '@bankdata/core/terminal-text';
import { DateTime } from 'luxon';
import { startEmulator, type EmulatorOptions, type RequestLogger, type StartedEmulator } from './index';
import { createJsonLinesLogger } from './json-lines-logger';

/** The flags' values as typed (commander and parseArgs both give strings, keyed in camelCase). */
export interface EmulatorFlags {
  port: string;
  seed: string;
  start?: string;
  faults: string;
  redirectWhitelist?: string;
  environment: string;
  latencyMs: string;
}

export interface EmulatorFlag {
  /** As typed, without the dashes: `latency-ms` (its key in EmulatorFlags: `flagKey`). */
  name: string;
  /** The value's name in the usage text: `--latency-ms <n>`. */
  value: string;
  description: string;
  /** Applied when the flag is absent; none: the flag is optional. */
  default?: string;
}

/** A flag's key in EmulatorFlags: the camelCase of its name, as commander keys it (`latency-ms` → `latencyMs`). */
export function flagKey(name: string): keyof EmulatorFlags {
  return name.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase()) as keyof EmulatorFlags;
}

/** Every flag, in the order the usage texts list them. */
export const EMULATOR_FLAGS: readonly EmulatorFlag[] = [
  { name: 'port', value: 'n', description: 'port on 127.0.0.1 (0: a free port)', default: '0' },
  { name: 'seed', value: 'n', description: 'data seed', default: '1' },
  {
    name: 'start',
    value: 'instant',
    description: 'ISO instant where the data clock starts (default: now minus 3 days)',
  },
  { name: 'faults', value: 'profile', description: 'none | light | heavy', default: 'none' },
  {
    name: 'redirect-whitelist',
    value: 'list',
    description: 'comma-separated redirect URI whitelist',
  },
  { name: 'environment', value: 'env', description: 'sandbox | production', default: 'sandbox' },
  { name: 'latency-ms', value: 'n', description: 'delay before every answer', default: '0' },
];

/** A flag's value refused; bankdata turns it into its UsageError (exit 2), `bankdata-emulator` exits 2. */
export class EmulatorUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EmulatorUsageError';
  }
}

function integer(value: string, flag: string, min: number, max: number): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max)
    throw new EmulatorUsageError(`${flag} must be an integer from ${min} to ${max}: ${value}`);
  return n;
}

/** Flags → options, every value checked (EmulatorUsageError naming the flag); the clock runs. */
export function emulatorOptionsFromFlags(flags: EmulatorFlags): EmulatorOptions {
  const faults = flags.faults;
  if (faults !== 'none' && faults !== 'light' && faults !== 'heavy') {
    throw new EmulatorUsageError(`--faults must be none, light or heavy: ${faults}`);
  }
  const environment = flags.environment;
  if (environment !== 'sandbox' && environment !== 'production') {
    throw new EmulatorUsageError(`--environment must be sandbox or production: ${environment}`);
  }
  if (flags.start !== undefined) {
    const start = DateTime.fromISO(flags.start, { setZone: true });
    if (!start.isValid) throw new EmulatorUsageError(`--start must be an ISO 8601 instant: ${flags.start}`);
    if (start > DateTime.utc())
      throw new EmulatorUsageError('--start must not be in the future (the data clock never passes real time)');
  }
  const whitelist = flags.redirectWhitelist
    ?.split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  return {
    port: integer(flags.port, '--port', 0, 65535),
    seed: integer(flags.seed, '--seed', 0, 2 ** 32 - 1),
    ...(flags.start !== undefined ? { start: flags.start } : {}),
    faults,
    environment,
    latencyMs: integer(flags.latencyMs, '--latency-ms', 0, 60_000),
    ...(whitelist ? { redirectWhitelist: whitelist } : {}),
    clock: 'running',
  };
}

/** The ready line: what a client needs to talk to the emulator just started. */
export function readyLine(emulator: StartedEmulator): Record<string, unknown> {
  return {
    base_url: emulator.baseUrl,
    client_id: emulator.clientId,
    client_secret: emulator.clientSecret,
    consent_ids: emulator.consentIds,
    payments_base_url: emulator.paymentsBaseUrl,
    payments_client_id: emulator.paymentsClientId,
    payments_client_secret: emulator.paymentsClientSecret,
    payment_consent_ids: emulator.paymentConsentIds,
    payment_consents: emulator.paymentConsents,
  };
}

/** The first SIGINT or SIGTERM; `dispose` removes the handlers (a start that failed). */
function firstSignal(): { signal: Promise<NodeJS.Signals>; dispose(): void } {
  let dispose = () => {};
  const signal = new Promise<NodeJS.Signals>((resolve) => {
    const onSignal = (received: NodeJS.Signals) => {
      dispose();
      resolve(received);
    };
    dispose = () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
  return { signal, dispose };
}

/** What a caller of `serve` does around the ready line (bankdata's `--env-file`). */
export interface ServeHooks {
  /** Runs after the start and before the ready line; if it throws, the emulator closes and `serve` rejects. */
  beforeReady?: (ready: Record<string, unknown>) => Promise<void>;
  /** Runs after the emulator closed on a signal. */
  afterStop?: () => Promise<void>;
}

/**
 * Starts the emulator, writes the ready line (one JSON line) to `out`, serves until SIGINT or
 * SIGTERM, logs `stopping` and closes. `logger` receives one `request` line per API request.
 * Resolves with the signal once closed.
 */
export async function serve(
  options: EmulatorOptions,
  logger: RequestLogger,
  out: Pick<NodeJS.WritableStream, 'write'> = process.stdout,
  hooks: ServeHooks = {},
): Promise<NodeJS.Signals> {
  // Listening before the start: a signal while the world is being made still stops it cleanly.
  const { signal, dispose } = firstSignal();
  let emulator: StartedEmulator;
  try {
    emulator = await startEmulator({ ...options, logger });
  } catch (error) {
    dispose();
    throw error;
  }
  const ready = readyLine(emulator);
  if (hooks.beforeReady) {
    try {
      await hooks.beforeReady(ready);
    } catch (error) {
      dispose();
      await emulator.close();
      throw error;
    }
  }
  out.write(JSON.stringify(ready) + '\n');
  const received = await signal;
  logger.info('stopping', { signal: received });
  await emulator.close();
  await hooks.afterStop?.();
  return received;
}

const COMMAND = 'bankdata-emulator';

/** The usage text of `bankdata-emulator --help`: the flags of EMULATOR_FLAGS, then -V and -h. */
export function usage(): string {
  const rows: Array<[string, string]> = [
    ...EMULATOR_FLAGS.map((f): [string, string] => [
      `--${f.name} <${f.value}>`,
      f.default === undefined ? f.description : `${f.description} (default: ${f.default})`,
    ]),
    ['-V, --version', 'print the version and exit'],
    ['-h, --help', 'print this help and exit'],
  ];
  const width = Math.max(...rows.map(([flag]) => flag.length)) + 2;
  return [
    `Usage: ${COMMAND} [options]`,
    '',
    "Serves an emulator of a New Zealand bank's Data API and Payments API on 127.0.0.1 in the",
    'foreground, deterministic from --seed and --start. Prints one JSON line on stdout (base_url,',
    'client_id, client_secret, consent_ids, payments_base_url, payments_client_id,',
    'payments_client_secret, payment_consent_ids, payment_consents), then one JSON line per API',
    'request on stderr; SIGINT or SIGTERM closes it (exit 0). A bad flag exits 2.',
    '',
    'Options:',
    ...rows.map(([flag, text]) => `  ${flag.padEnd(width)}${text}`),
    '',
  ].join('\n');
}

/** This package's version, read from its package.json (one level above src/ and dist/). */
function version(): string {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return manifest.version;
}

export interface CliStreams {
  stdout: Pick<NodeJS.WritableStream, 'write'>;
  stderr: Pick<NodeJS.WritableStream, 'write'>;
}

/** One line whatever the error says (a line break in it shown escaped), with every registered secret hidden. */
const oneLine = (text: string) => redact(terminalSafe(text));

/**
 * `bankdata-emulator [options]` (argv without node and the script): the exit code. Serving
 * resolves after a signal closed the emulator (0); --help and --version print and return 0; a bad
 * flag prints one `bankdata-emulator: …` line on stderr (2); a failed start one line too (1).
 */
export async function main(argv: readonly string[], streams: CliStreams = process): Promise<number> {
  const fail = (code: number, message: string) => {
    streams.stderr.write(`${COMMAND}: ${oneLine(message)}\n`);
    return code;
  };
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        ...Object.fromEntries(EMULATOR_FLAGS.map((f) => [f.name, { type: 'string' as const }])),
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'V' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    const code = (error as { code?: string }).code;
    const unknown = /^Unknown option '([^']*)'/.exec(error instanceof Error ? error.message : '');
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && unknown)
      return fail(2, `unknown option ${unknown[1]} (${COMMAND} --help lists the options)`);
    return fail(2, error instanceof Error ? error.message : String(error));
  }
  if (values.help === true) {
    streams.stdout.write(usage());
    return 0;
  }
  if (values.version === true) {
    streams.stdout.write(version() + '\n');
    return 0;
  }
  // Each flag as given, else its default: every key EmulatorFlags requires has one.
  const flags = Object.fromEntries(
    EMULATOR_FLAGS.map((f) => {
      const given = values[f.name];
      return [flagKey(f.name), typeof given === 'string' ? given : f.default];
    }),
  ) as unknown as EmulatorFlags;
  let options: EmulatorOptions;
  try {
    options = emulatorOptionsFromFlags(flags);
  } catch (error) {
    if (error instanceof EmulatorUsageError) return fail(2, error.message);
    throw error;
  }
  const logger = createJsonLinesLogger((line) => streams.stderr.write(line + '\n'));
  try {
    await serve(options, logger, streams.stdout);
    return 0;
  } catch (error) {
    return fail(1, error instanceof Error ? error.message : String(error));
  }
}
