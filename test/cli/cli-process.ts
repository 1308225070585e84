/** Runs the real `bankdata` binary in a child process (node bin/bankdata.js …). */
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

export const BIN = resolve('bin/bankdata.js');

export interface CliRun {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the exit code (or the signal name when killed). */
  exited: Promise<number | NodeJS.Signals>;
}

export function spawnCli(
  args: string[],
  options: {
    env?: Record<string, string>;
    cwd?: string;
    nodeArgs?: string[];
    /** A descriptor the command's stdout goes to (a file opened for appending), instead of a pipe. */
    stdout?: number;
  } = {},
): CliRun {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), BIN, ...args], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...userConfigHome(), ...options.env },
    stdio: ['ignore', options.stdout ?? 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString('utf8')));
  child.stderr?.on('data', (d: Buffer) => (err += d.toString('utf8')));
  const exited = new Promise<number | NodeJS.Signals>((resolveExit) => {
    child.on('close', (code, signal) => resolveExit(code ?? signal ?? -1));
  });
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** The run's empty user config directory (test/global-setup.ts), handed to every command started. */
function userConfigHome(): Record<string, string> {
  const dir = process.env.XDG_CONFIG_HOME;
  return dir === undefined ? {} : { XDG_CONFIG_HOME: dir };
}

export async function runCli(
  args: string[],
  options: { env?: Record<string, string>; cwd?: string; nodeArgs?: string[] } = {},
) {
  const run = spawnCli(args, options);
  const code = await run.exited;
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}

/**
 * Polls `check` every 50 ms until it returns a value (not undefined/false), or fails after
 * `timeoutMs`: a deadline for a hang on a loaded machine, not for speed.
 */
export async function waitFor<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

type Write = typeof process.stdout.write;

/** Chains calls of `runCliInProcess`: one command at a time owns the process's streams and env. */
let inProcessQueue: Promise<unknown> = Promise.resolve();

/**
 * Runs a `bankdata` command inside this test process (src/cli/main.ts `main`, the TypeScript
 * source), for tests whose subject is a command's output, files or exit code rather than the
 * process: no node start and no module loading per command, which a spawned command pays each
 * time. It behaves as the binary does for these: the environment is only PATH, HOME, XDG_CONFIG_HOME and
 * `env`; the working folder is `cwd`; everything written to stdout and stderr is captured; the
 * exit code is what `main` returns (a thrown error becomes the one-line message and code of
 * src/cli/handle-error.ts). Signal listeners a command adds are removed, and process.env,
 * the working folder and process.exitCode are put back. Tests about the process itself (signals,
 * kill -9, the lease held by another process, lazy loading, the bin) use `runCli`/`spawnCli`.
 */
export function runCliInProcess(
  args: string[],
  options: { env?: Record<string, string>; cwd?: string } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const run = inProcessQueue.then(() => runInProcess(args, options));
  inProcessQueue = run.catch(() => undefined);
  return run;
}

async function runInProcess(args: string[], options: { env?: Record<string, string>; cwd?: string }) {
  const { main } = await import('../../src/cli/main');
  const saved = {
    env: process.env,
    cwd: process.cwd(),
    exitCode: process.exitCode,
    out: process.stdout.write,
    err: process.stderr.write,
  };
  const signals = ['SIGINT', 'SIGTERM'] as const;
  const listenersBefore = new Map(signals.map((s) => [s, new Set(process.listeners(s))]));
  let stdout = '';
  let stderr = '';
  const capture =
    (append: (text: string) => void): Write =>
    (
      chunk: string | Uint8Array,
      encoding?: BufferEncoding | ((error?: Error | null) => void),
      callback?: (error?: Error | null) => void,
    ) => {
      append(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      const done = typeof encoding === 'function' ? encoding : callback;
      if (done) process.nextTick(done);
      return true;
    };
  process.env = { PATH: saved.env.PATH ?? '', HOME: saved.env.HOME ?? '', ...userConfigHome(), ...options.env };
  if (options.cwd) process.chdir(options.cwd);
  process.exitCode = undefined;
  process.stdout.write = capture((text) => (stdout += text));
  process.stderr.write = capture((text) => (stderr += text));
  try {
    const code = await main([process.execPath, BIN, ...args]);
    return { code, stdout, stderr };
  } finally {
    process.stdout.write = saved.out;
    process.stderr.write = saved.err;
    process.env = saved.env;
    process.chdir(saved.cwd);
    process.exitCode = saved.exitCode;
    for (const signal of signals) {
      for (const listener of process.listeners(signal))
        if (!listenersBefore.get(signal)?.has(listener)) process.off(signal, listener);
    }
  }
}
