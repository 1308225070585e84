/**
 * `--json` on every command that reports an outcome (src/cli/command-needs.ts `printsOnStdout`):
 * the registry (src/cli/main.ts COMMANDS, loaded as they run) is walked; each command whose stdout
 * is an outcome must take `--json`, and each is run with it against an emulator and a synced
 * database, its stdout parsed as one JSON document. The few not run here are named with the test
 * that reads their JSON.
 */
import { join } from 'node:path';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type StartedEmulator } from '@bankdata/emulator';
import { buildFullProgram } from '../../src/cli/main';
import { stdoutKindOf } from '../../src/cli/command-needs';
import { emulatorEnv } from '../fixtures/cli-env';
import { tempDir } from '../store/helpers';
import { runCliInProcess } from './cli-process';

const leaves: { path: string; command: Command }[] = [];
const walk = (command: Command, path: string[]) => {
  if (command.commands.length === 0 && path.length > 0) leaves.push({ path: path.join(' '), command });
  for (const sub of command.commands) walk(sub, [...path, sub.name()]);
};
walk(await buildFullProgram(), []);
const outcomes = leaves.filter((l) => stdoutKindOf(l.command) === 'outcome');

/** Outcome commands whose JSON another test reads (they need the Payments API or a PostgreSQL server). */
const ELSEWHERE: Record<string, string> = {
  'payments create': 'test/payments/cli.test.ts',
  'payments track': 'test/payments/cli.test.ts',
  'payments show': 'test/payments/cli.test.ts',
  'db copy': 'test/cli/db-copy.pg.test.ts',
  // Needs a configured destination (a receiver on loopback).
  'alerts test': 'test/cli/alerts.test.ts',
};

describe('the registry', () => {
  it('every command that reports an outcome takes --json', () => {
    expect(outcomes.length).toBeGreaterThan(10);
    expect(outcomes.filter((l) => !l.command.options.some((o) => o.long === '--json')).map((l) => l.path)).toEqual([]);
  });

  it('the others print a product, serve, or narrate', () => {
    expect(
      leaves.filter((l) => stdoutKindOf(l.command) !== 'outcome').map((l) => `${l.path}: ${stdoutKindOf(l.command)}`),
    ).toEqual([
      'demo: walkthrough',
      'emulator: service',
      'export: product',
      'schedule: service',
      'completion: product',
    ]);
  });
});

describe('each outcome command with --json prints one JSON document on stdout', () => {
  let emu: StartedEmulator;
  let env: Record<string, string>;
  let dir: string;
  let consent = '';
  beforeAll(async () => {
    emu = await startEmulator({ seed: 4, customersPerBank: 1 });
    dir = tempDir();
    env = emulatorEnv(emu, join(dir, 'data'), { BANKDATA_REDIRECT_WHITELIST: 'https://app.example.nz/consent/return' });
    consent = emu.consentIds[0]!;
  });
  afterAll(async () => {
    await emu?.close();
  });

  it('runs every outcome command of the registry but those named elsewhere, in an order that gives each its input', async () => {
    const runs: [string, string[]][] = [
      ['consents add', ['consents', 'add', ...emu.consentIds]],
      ['sync', ['sync']],
      ['status', ['status']],
      ['check', ['check']],
      ['categorise', ['categorise']],
      ['transfers', ['transfers']],
      ['report', ['report']],
      ['changes', ['changes', '--limit', '20']],
      ['changes (prune)', ['changes', '--prune']],
      ['meta', ['meta']],
      ['consents list', ['consents', 'list']],
      ['consents show', ['consents', 'show', consent]],
      ['consents create', ['consents', 'create', '--bank', 'PNZ', '--flow', 'redirect', '--no-wait']],
      ['payments reconcile', ['payments', 'reconcile']],
      ['db backup', ['db', 'backup', join(dir, 'backup.sqlite')]],
      ['db migrate', ['db', 'migrate']],
      ['pacing reset', ['pacing', 'reset']],
      ['alerts list', ['alerts', 'list']],
      ['consents revoke', ['consents', 'revoke', consent]],
      ['consents forget', ['consents', 'forget', consent]],
    ];
    // A name with a parenthesis is a second run of the same command (another of its modes).
    const names = new Set(runs.map(([name]) => name.replace(/ \(.*\)$/, '')));
    expect([...names, ...Object.keys(ELSEWHERE)].sort()).toEqual(outcomes.map((l) => l.path).sort());
    for (const [name, argv] of runs) {
      const r = await runCliInProcess([...argv, '--json'], { env, cwd: dir });
      expect([0, 1], `${name}: exit ${r.code}: ${r.stderr}`).toContain(r.code);
      expect(() => JSON.parse(r.stdout) as unknown, `${name}: ${r.stdout}`).not.toThrow();
      expect(r.stdout.trim(), name).not.toBe('');
    }
  });
});
