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

export function spawnCli(args: string[], options: { env?: Record<string, string>; cwd?: string; nodeArgs?: string[] } = {}): CliRun {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), BIN, ...args], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
  child.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
  const exited = new Promise<number | NodeJS.Signals>((resolveExit) => {
    child.on('close', (code, signal) => resolveExit(code ?? signal ?? -1));
  });
  return { child, stdout: () => out, stderr: () => err, exited };
}

export async function runCli(args: string[], options: { env?: Record<string, string>; cwd?: string; nodeArgs?: string[] } = {}) {
  const run = spawnCli(args, options);
  const code = await run.exited;
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}

/** Polls `check` every 50 ms until it returns a value (not undefined/false), or fails after `timeoutMs`. */
export async function waitFor<T>(check: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}
