/**
 * The real importers the interop suite drives (Debian packages `ofx`, `python3-ofxparse`,
 * `ledger-autosync`, `ledger`, `hledger`; `.ci/run` installs them). A missing program skips its
 * tests with a line saying which, unless CI is set: then the suite fails (docs/exports.md
 * "Checked against real importers").
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Debian's python3, which has ofxparse (the `python3` on a developer's PATH may not). */
export const PYTHON = '/usr/bin/python3';

const PROBES = {
  ofxdump: ['ofxdump', ['--version']],
  ofxparse: [PYTHON, ['-c', 'import ofxparse']],
  'ledger-autosync': ['ledger-autosync', ['--help']],
  ledger: ['ledger', ['--version']],
  hledger: ['hledger', ['--version']],
} as const satisfies Record<string, readonly [string, readonly string[]]>;
export type Program = keyof typeof PROBES;

/** No desktop keyring in a test run: ofxclient (imported by ledger-autosync) must not ask one. */
export const PROGRAM_ENV: NodeJS.ProcessEnv = { ...process.env, PYTHON_KEYRING_BACKEND: 'keyring.backends.null.Keyring', TZ: 'UTC' };

function present(program: Program): boolean {
  const [cmd, args] = PROBES[program];
  if (cmd.startsWith('/') && !existsSync(cmd)) return false;
  const r = spawnSync(cmd, [...args], { env: PROGRAM_ENV, stdio: 'ignore', timeout: 30_000 });
  return r.status === 0;
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
  const r = spawnSync(cmd, [...args], { env: PROGRAM_ENV, encoding: 'utf8', input, maxBuffer: 64 * 1024 * 1024, timeout: 120_000 });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
