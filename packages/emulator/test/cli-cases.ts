/**
 * The emulator's flags as a test gives them: the defaults, and each refused value with the exact
 * message (packages/emulator/test/cli.test.ts checks the package's error, test/cli/emulator-command.test.ts
 * that bankdata turns each into its usage error with the same message).
 */
import type { EmulatorFlags } from '../src/cli';

export const DEFAULTS: EmulatorFlags = { port: '0', seed: '1', faults: 'none', environment: 'sandbox', latencyMs: '0' };

export const REFUSALS: Array<[Partial<EmulatorFlags>, string]> = [
  [{ port: '70000' }, '--port must be an integer from 0 to 65535: 70000'],
  [{ seed: '-1' }, '--seed must be an integer from 0 to 4294967295: -1'],
  [{ faults: 'some' }, '--faults must be none, light or heavy: some'],
  [{ environment: 'prod' }, '--environment must be sandbox or production: prod'],
  [{ start: 'yesterday' }, '--start must be an ISO 8601 instant: yesterday'],
  [{ start: '2999-01-01T00:00:00Z' }, '--start must not be in the future (the data clock never passes real time)'],
  [{ latencyMs: '1.5' }, '--latency-ms must be an integer from 0 to 60000: 1.5'],
];
