/**
 * `bankdata emulator` (README.md): one JSON line on stdout, request logs on stderr, a
 * clean stop on SIGTERM. The flags and their checks are the emulator package's
 * (packages/emulator/src/cli.ts, tested in packages/emulator/test/cli.test.ts); here, that
 * bankdata registers them all and turns a refused value into its usage error (exit 2).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { EMULATOR_FLAGS, flagKey } from '@bankdata/emulator/cli';
import { emulatorOptionsFromFlags, registerEmulatorCommand } from '../../src/cli/emulator';
import { ExitCode, UsageError } from '../../src/cli/exit-codes';
import { DEFAULTS, REFUSALS } from '../../packages/emulator/test/cli-cases';
import { expectReadyAndServing } from '../../packages/emulator/test/helpers';
import { waitFor } from './cli-process';

describe('emulatorOptionsFromFlags', () => {
  it('maps the flags as the emulator package does, with a running clock', () => {
    expect(emulatorOptionsFromFlags({ ...DEFAULTS, seed: '9', redirectWhitelist: 'https://a.nz/x, ' })).toEqual({
      port: 0,
      seed: 9,
      faults: 'none',
      environment: 'sandbox',
      latencyMs: 0,
      redirectWhitelist: ['https://a.nz/x'],
      clock: 'running',
    });
  });

  it.each(REFUSALS)('refuses %j as a usage error (exit 2): %s', (flags, message) => {
    let caught: unknown;
    try {
      emulatorOptionsFromFlags({ ...DEFAULTS, ...flags });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(UsageError);
    expect((caught as UsageError).message).toBe(message);
    expect((caught as UsageError).exitCode).toBe(ExitCode.Usage);
  });

  it('registers every flag of the emulator package, with its value name, description and default', () => {
    const program = new Command();
    registerEmulatorCommand(program);
    const command = program.commands.find((c) => c.name() === 'emulator')!;
    expect(
      command.options
        // --env-file is bankdata's own (test/cli/emulator-env-file.test.ts).
        .filter((o) => o.long !== '--env-file')
        .map((o) => ({
          flags: o.flags,
          key: o.attributeName(),
          description: o.description,
          default: o.defaultValue as unknown,
        })),
    ).toEqual(
      EMULATOR_FLAGS.map((f) => ({
        flags: `--${f.name} <${f.value}>`,
        key: flagKey(f.name),
        description: f.description,
        default: f.default,
      })),
    );
  });
});

describe('bankdata emulator', () => {
  it('prints one JSON line, logs each request as JSON on stderr, and stops cleanly on SIGTERM', async () => {
    const child = spawn(
      process.execPath,
      ['bin/bankdata.js', 'emulator', '--log-format', 'json', '--seed', '3', '--start', '2026-03-10T10:00:00+13:00'],
      {
        cwd: process.cwd(),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const stderr: string[] = [];
    createInterface({ input: child.stderr }).on('line', (line) => stderr.push(line));
    const stdoutLines: string[] = [];
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => stdoutLines.push(line));
    try {
      const [first] = (await once(lines, 'line')) as [string];
      const { ready: info, token } = await expectReadyAndServing(first);
      // The request's log line reaches this process's pipe after the answer: wait for it.
      const logs = () => stderr.map((l) => JSON.parse(l) as Record<string, unknown>);
      await waitFor(() => logs().some((l) => l.msg === 'request' && l.path === '/v1/meta' && l.status === 200));
      expect(stderr.join('\n')).not.toContain(info.client_secret);
      expect(stderr.join('\n')).not.toContain(token);
      child.kill('SIGTERM');
      const [code] = (await once(child, 'exit')) as [number | null];
      expect(code).toBe(0);
      expect(stdoutLines).toHaveLength(1);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
