/**
 * `bankdata emulator`: serves the Data API emulator in the foreground. Prints ONE JSON line
 * `{base_url, client_id, client_secret, consent_ids}` on stdout, then one JSON log line per
 * request on stderr; serves until SIGINT or SIGTERM, then closes cleanly.
 */
import type { Command } from 'commander';
import { DateTime } from 'luxon';
import { startEmulator, type EmulatorOptions, type StartedEmulator } from '@bankdata/emulator';
import { createLogger } from '../log';
import { UsageError } from './exit-codes';

interface EmulatorFlags {
  port: string;
  seed: string;
  start?: string;
  faults: string;
  redirectWhitelist?: string;
  environment: string;
  latencyMs: string;
}

function integer(value: string, flag: string, min: number, max: number): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max)
    throw new UsageError(`${flag} must be an integer from ${min} to ${max}: ${value}`);
  return n;
}

/** Flags → options, every value checked (usage error, exit 2). */
export function emulatorOptionsFromFlags(flags: EmulatorFlags): EmulatorOptions {
  const faults = flags.faults;
  if (faults !== 'none' && faults !== 'light' && faults !== 'heavy') {
    throw new UsageError(`--faults must be none, light or heavy: ${faults}`);
  }
  const environment = flags.environment;
  if (environment !== 'sandbox' && environment !== 'production') {
    throw new UsageError(`--environment must be sandbox or production: ${environment}`);
  }
  if (flags.start !== undefined) {
    const start = DateTime.fromISO(flags.start, { setZone: true });
    if (!start.isValid) throw new UsageError(`--start must be an ISO 8601 instant: ${flags.start}`);
    if (start > DateTime.utc())
      throw new UsageError('--start must not be in the future (the data clock never passes real time)');
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

/** Resolves on the first SIGINT or SIGTERM. */
function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve(signal);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

export function registerEmulatorCommand(program: Command): void {
  program
    .command('emulator')
    .description('serve the Data API emulator in the foreground (one JSON line on stdout, request logs on stderr)')
    .option('--port <n>', 'port on 127.0.0.1 (0: a free port)', '0')
    .option('--seed <n>', 'data seed', '1')
    .option('--start <instant>', 'ISO instant where the data clock starts (default: now minus 3 days)')
    .option('--faults <profile>', 'none | light | heavy', 'none')
    .option('--redirect-whitelist <list>', 'comma-separated redirect URI whitelist')
    .option('--environment <env>', 'sandbox | production', 'sandbox')
    .option('--latency-ms <n>', 'delay before every answer', '0')
    .action(async (flags: EmulatorFlags) => {
      const options = emulatorOptionsFromFlags(flags);
      const logger = createLogger({ fields: { component: 'emulator' } });
      const signal = untilSignal();
      const emulator: StartedEmulator = await startEmulator({ ...options, logger });
      process.stdout.write(
        JSON.stringify({
          base_url: emulator.baseUrl,
          client_id: emulator.clientId,
          client_secret: emulator.clientSecret,
          consent_ids: emulator.consentIds,
          payments_base_url: emulator.paymentsBaseUrl,
          payments_client_id: emulator.paymentsClientId,
          payments_client_secret: emulator.paymentsClientSecret,
          payment_consent_ids: emulator.paymentConsentIds,
          payment_consents: emulator.paymentConsents,
        }) + '\n',
      );
      const received = await signal;
      logger.info('stopping', { signal: received });
      await emulator.close();
    });
}
