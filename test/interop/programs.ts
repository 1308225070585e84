/**
 * The real importers the interop suite drives (Debian packages `ofx`, `python3-ofxparse`,
 * `ledger-autosync`, `ledger`, `hledger`; `.ci/run` installs them). A missing program skips its
 * tests with a line saying which, unless CI is set: then the suite fails (docs/exports.md
 * "Checked against real importers").
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Debian's python3, which has ofxparse (the `python3` on a developer's PATH may not). */
export const PYTHON = '/usr/bin/python3';

/**
 * How each program is found: a command on PATH, or a module Debian's python3 can import (found
 * without importing it). Finding, not running: running each program to ask for its help would
 * start a Python interpreter per program on every run; a program that is there but broken fails its
 * tests, as it should.
 */
const PROBES = {
  ofxdump: { command: 'ofxdump' },
  ofxparse: { pythonModule: 'ofxparse' },
  'ledger-autosync': { command: 'ledger-autosync' },
  ledger: { command: 'ledger' },
  hledger: { command: 'hledger' },
} as const satisfies Record<string, { command: string } | { pythonModule: string }>;
export type Program = keyof typeof PROBES;

/** No desktop keyring in a test run: ofxclient (imported by ledger-autosync) must not ask one. */
export const PROGRAM_ENV: NodeJS.ProcessEnv = {
  ...process.env,
  PYTHON_KEYRING_BACKEND: 'keyring.backends.null.Keyring',
  TZ: 'UTC',
};

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** An executable file of that name in a folder on PATH, as the shell would find it. */
function onPath(command: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => dir !== '' && executable(join(dir, command)));
}

function present(program: Program): boolean {
  const probe: { command: string } | { pythonModule: string } = PROBES[program];
  if ('command' in probe) return onPath(probe.command);
  if (!executable(PYTHON)) return false;
  const find = `import importlib.util, sys; sys.exit(importlib.util.find_spec(${JSON.stringify(probe.pythonModule)}) is None)`;
  return spawnSync(PYTHON, ['-c', find], { env: PROGRAM_ENV, stdio: 'ignore', timeout: 120_000 }).status === 0;
}

/** The programs among `needed` that are missing; in CI a missing one is a failure, not a skip. */
export function missingPrograms(...needed: Program[]): Program[] {
  const missing = needed.filter((p) => !present(p));
  if (missing.length > 0) {
    const line = `interop: ${missing.join(', ')} not installed (Debian: apt-get install ofx python3-ofxparse ledger-autosync ledger hledger)`;
    if (process.env.CI) throw new Error(`${line}; CI is set, so this fails instead of skipping`);
    console.warn(`${line}: skipping these tests`);
  }
  return missing;
}

export interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function run(cmd: string, args: readonly string[], input?: string): Ran {
  const r = spawnSync(cmd, [...args], {
    env: PROGRAM_ENV,
    encoding: 'utf8',
    input,
    maxBuffer: 64 * 1024 * 1024,
    timeout: 120_000,
  });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
