/**
 * How a command learns that it must stop, and how the process ends when its reader is gone
 * (README "Exit codes", docs/security.md "Unix use").
 *
 * - SIGTERM, SIGINT and SIGHUP reach the commands that hold something (a sync's lease, the
 *   scheduler's jobs) through `onStop`; each stops as it does for SIGTERM and exits 128 + n, but
 *   `bankdata schedule`, a service, which exits 0 (a service manager's stop is its normal end).
 *   SIGHUP stays ignored when the process started with it ignored (`nohup bankdata …`).
 * - A closed standard output (`bankdata export … | head -1`) ends the process as a program killed
 *   by SIGPIPE ends, as `git log | head` does: exit 141 (128 + 13), nothing on stderr. A command
 *   listening through `onStop` gets 'SIGPIPE' instead, stops as for SIGTERM (its lease released)
 *   and exits 141 itself. `endQuietlyOnClosedStdout` is installed once, by the entry (run.ts),
 *   before any command runs: every command is covered, and so is an export streamed to stdout.
 */
import { readFileSync } from 'node:fs';
import { constants } from 'node:os';
import { ExitCode } from '../errors';
import { errorFormat, finalErrorLines } from './error-output';

export type StopSignal = 'SIGTERM' | 'SIGINT' | 'SIGHUP' | 'SIGPIPE';

/** 128 + the signal's number, as shells report it (130 SIGINT, 129 SIGHUP, 141 SIGPIPE, 143 SIGTERM). */
export function signalExitCode(signal: NodeJS.Signals): number {
  return 128 + (constants.signals[signal] ?? 0);
}

/**
 * The environment variable through which bin/bankdata.js hands on that SIGHUP was ignored when
 * it started: node puts an inherited ignored SIGHUP back to the default before any JavaScript
 * runs (measured on Node 20: under `nohup node …`, node's /proc/self/status SigIgn lacks SIGHUP,
 * and SIGHUP ends it), so this process cannot see it itself. Set by the launcher; worker
 * processes inherit it as they would inherit the ignore.
 */
export const SIGHUP_IGNORED_ENV = 'BANKDATA_SIGHUP_IGNORED';

/**
 * Whether SIGHUP was ignored when the process started (`nohup`). Linux shows the set of ignored
 * signals in /proc/self/status ("SigIgn", a hexadecimal mask, bit n-1 for signal n); under Node
 * that bit is already cleared, so the launcher's word (SIGHUP_IGNORED_ENV) is read too. Where
 * neither says so (no /proc: macOS, or the CLI started as `node dist/bankdata.js`), SIGHUP is
 * taken as not ignored and stops the command like SIGTERM.
 */
export function sighupIgnoredAtStart(
  env: Readonly<Record<string, string | undefined>> = process.env,
  readStatus: () => string = () => readFileSync('/proc/self/status', 'utf8'),
): boolean {
  if (env[SIGHUP_IGNORED_ENV] === '1') return true;
  let status: string;
  try {
    status = readStatus();
  } catch {
    return false;
  }
  const mask = /^SigIgn:\s*([0-9a-f]+)$/im.exec(status)?.[1];
  return mask !== undefined && (BigInt(`0x${mask}`) & 1n) === 1n;
}

/**
 * Keeps SIGHUP ignored when it was ignored at start. Node has already reset it to the default
 * (which ends the process), so ignoring means listening and doing nothing. Installed once, by
 * the entry (run.ts), before any command runs.
 */
export function keepSighupIgnoredIfInherited(): void {
  if (sighupIgnoredAtStart()) process.on('SIGHUP', () => {});
}

const listeners = new Set<(signal: StopSignal) => void>();
let installed: { signals: NodeJS.Signals[]; handler: (signal: NodeJS.Signals) => void } | null = null;

/**
 * Calls `listener` on SIGTERM, SIGINT, SIGHUP (unless ignored at start) and a closed stdout
 * ('SIGPIPE'), each time one arrives, until the returned function is called. While any listener
 * is registered these signals no longer end the process by themselves.
 */
export function onStop(listener: (signal: StopSignal) => void): () => void {
  listeners.add(listener);
  if (!installed) {
    const signals: NodeJS.Signals[] = ['SIGTERM', 'SIGINT'];
    if (!sighupIgnoredAtStart()) signals.push('SIGHUP');
    const handler = (signal: NodeJS.Signals) => notify(signal as StopSignal);
    for (const signal of signals) process.on(signal, handler);
    installed = { signals, handler };
  }
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && installed) {
      for (const signal of installed.signals) process.off(signal, installed.handler);
      installed = null;
    }
  };
}

function notify(signal: StopSignal): void {
  for (const listener of [...listeners]) listener(signal);
}

let stdoutClosed = false;

/**
 * Installs the one handler of stdout's errors. EPIPE (the reader closed its end) and a write
 * after the stream was destroyed end the process with 141 and nothing on stderr, or, while a
 * command listens through `onStop`, tell it 'SIGPIPE' once. Any other error of stdout (EIO, a
 * full disk under `> file`) is one line on stderr and exit 7, as a local file that could not be
 * written is.
 */
export function endQuietlyOnClosedStdout(stream: NodeJS.WriteStream = process.stdout): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (
      error.code === 'EPIPE' ||
      error.code === 'ERR_STREAM_DESTROYED' ||
      error.code === 'ERR_STREAM_WRITE_AFTER_END'
    ) {
      if (stdoutClosed) return;
      stdoutClosed = true;
      if (listeners.size > 0) notify('SIGPIPE');
      else process.exit(signalExitCode('SIGPIPE'));
      return;
    }
    // The command's last word, as the final error is written (--log-format json too).
    process.stderr.write(
      finalErrorLines(
        { message: `standard output cannot be written (${error.code ?? 'error'})`, exitCode: ExitCode.LocalFile },
        errorFormat(),
      ),
    );
    process.exit(ExitCode.LocalFile);
  });
}
