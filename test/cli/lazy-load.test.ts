/**
 * Each command's code loads only when that command runs (src/cli/main.ts). The compiled CLI
 * runs with a module hook that records every module the process loads; dist/meta.json says
 * which sources each compiled file holds. `--version` and `--help` load no SQLite, no HTTP
 * client and no emulator; a real `sync` against the emulator loads SQLite and undici but no
 * emulator code, and on a SQLite file neither it nor `export` loads the PostgreSQL driver.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsentId } from '@bankdata/core/schemas';
import { startEmulator, type StartedEmulator } from '@bankdata/emulator';
import { openStore } from '../../src/store';
import { emulatorEnv } from '../fixtures/cli-env';
import { runCli } from './cli-process';

const HOOK = resolve('test/fixtures/record-loads/register.mjs');
const ROOT = resolve('.');

interface Loaded {
  code: number | NodeJS.Signals;
  stdout: string;
  /** Packages loaded, by name: from node_modules or bundled into the compiled files loaded. */
  packages: Set<string>;
  /** Source files of the project (src/…, packages/…/src/…) inside the compiled files loaded. */
  sources: string[];
}

/** Runs the compiled CLI and returns what it loaded. */
async function loadsOf(args: string[], env: Record<string, string> = {}): Promise<Loaded> {
  const record = join(mkdtempSync(join(tmpdir(), 'bankdata-loads-')), 'loads.txt');
  const run = await runCli(args, { env: { ...env, BANKDATA_RECORD_LOADS: record, NODE_OPTIONS: `--import ${HOOK}` } });
  const urls = readFileSync(record, 'utf8')
    .split('\n')
    .filter((u) => u.startsWith('file:'));
  const files = urls.map((u) => relative(ROOT, fileURLToPath(u)));
  const meta = JSON.parse(readFileSync('dist/meta.json', 'utf8')) as {
    outputs: Record<string, { inputs: Record<string, unknown> }>;
  };
  // What the compiled files loaded hold (packages are bundled in, but better-sqlite3), and the files loaded from node_modules.
  const inputs = files.filter((f) => f.startsWith('dist/')).flatMap((f) => Object.keys(meta.outputs[f]?.inputs ?? {}));
  const packages = new Set(
    [...files, ...inputs].flatMap((f) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(f)?.[1] ?? []),
  );
  return { code: run.code, stdout: run.stdout, packages, sources: inputs.filter((f) => !f.includes('node_modules/')) };
}

describe('what each command loads', () => {
  it.each([['--version'], ['--help'], ['help']])('bankdata %s loads commander and the program alone', async (flag) => {
    const loaded = await loadsOf([flag]);
    expect(loaded.code).toBe(0);
    expect(loaded.stdout).toMatch(flag === '--version' ? /^\d+\.\d+\.\d+\n$/ : /Commands:/);
    expect([...loaded.packages]).toEqual(['commander']);
    expect(loaded.sources.sort()).toEqual([
      'package.json',
      // The redaction and escaping of a usage error commander reports (src/cli/error-output.ts).
      'packages/core/src/secrets.ts',
      'packages/core/src/terminal-text.ts',
      'src/cli/error-output.ts',
      'src/cli/globals.ts',
      'src/cli/main.ts',
      'src/cli/path-roles.ts',
      'src/cli/run.ts',
      // The closed-pipe and SIGHUP handlers, installed before any command (README "Exit codes").
      'src/cli/stop-signals.ts',
      'src/errors.ts',
    ]);
  });

  describe('sync', () => {
    let emu: StartedEmulator;
    beforeAll(async () => {
      emu = await startEmulator({ seed: 5, customersPerBank: 1 });
    });
    afterAll(async () => {
      await emu.close();
    });

    it('a real sync loads SQLite and the HTTP client, and no emulator code', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'bankdata-lazy-'));
      const env = emulatorEnv(emu, dir);
      const store = await openStore(env.BANKDATA_DB!);
      await store.consents.add(emu.consentIds[0] as ConsentId);
      await store.close();
      const loaded = await loadsOf(['sync', '--json'], env);
      expect(loaded.code).toBe(0);
      expect(JSON.parse(loaded.stdout).outcome).toBe('ok');
      expect(['better-sqlite3', 'undici'].filter((p) => loaded.packages.has(p))).toEqual(['better-sqlite3', 'undici']);
      expect(loaded.sources).toContain('src/sync/run.ts');
      expect(loaded.sources.filter((s) => s.startsWith('packages/emulator/src/'))).toEqual([]);
      // Nor the PostgreSQL driver on a SQLite file, and the export loads no HTTP client.
      expect(['pg', 'pg-cursor', 'pg-pool'].filter((p) => loaded.packages.has(p))).toEqual([]);
      const exported = await loadsOf(['export', 'accounts', '--format', 'csv'], env);
      expect(exported.code).toBe(0);
      expect(exported.packages.has('better-sqlite3')).toBe(true);
      expect(['pg', 'pg-cursor', 'pg-pool', 'undici'].filter((p) => exported.packages.has(p))).toEqual([]);
    });
  });

  it('the recorder sees what a command loads: demo loads the emulator', async () => {
    // `demo --help` loads the demo module (and so the emulator) without running anything.
    const loaded = await loadsOf(['demo', '--help']);
    expect(loaded.code).toBe(0);
    expect(loaded.sources).toContain('packages/emulator/src/server.ts');
    expect(loaded.packages.has('better-sqlite3')).toBe(true);
  });
});
