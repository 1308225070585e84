/**
 * `bankdata sync --workers N` (PostgreSQL): starts N `bankdata sync` processes on this machine,
 * each one a worker of the same run (docs/scaling.md); they take consents from the run's queue
 * until it is empty. Worker processes on other machines join the same run the same way. Each
 * worker's summary is printed under its number; the exit code is the most severe of theirs.
 * SIGTERM / SIGINT / SIGHUP are passed on to the workers once (they run in their own process groups),
 * and each stops after its unit in flight and records its summary.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { constants } from 'node:os';
import { ExitCode } from '../errors';
import { BIN_PATH } from '../paths';
import { onStop, signalExitCode, type StopSignal } from './stop-signals';
import { printData, printText } from './stdout';

/** The command line of this process without `--workers N`: what each worker runs. */
export function workerArgs(argv: readonly string[]): string[] {
  const args: string[] = [];
  let skipValue = false;
  for (const arg of argv) {
    if (skipValue) skipValue = false;
    else if (arg === '--workers') skipValue = true;
    else if (!arg.startsWith('--workers=')) args.push(arg);
  }
  return args;
}

/** The environment variable that carries the run id the workers share (read by sync.ts). */
export const SHARED_RUN_ENV = 'BANKDATA_SHARED_RUN_ID';

export async function runWorkers(count: number, json: boolean): Promise<number> {
  const args = workerArgs(process.argv.slice(2));
  // One run id for all of them: the first to start opens the run under it and the others join it,
  // even with --full, --since or --consent, which need a run of their own (src/sync/run.ts).
  const env = { ...process.env, [SHARED_RUN_ENV]: randomUUID() };
  const children = Array.from({ length: count }, () =>
    // Their own process group: a terminal's Ctrl-C reaches this process only, and each worker
    // gets the signal once, from `forward` (a second one is the immediate stop, with no summary).
    // Node's own flags given to this process (a heap limit, a CPU profile) apply to each worker.
    spawn(process.execPath, [...process.execArgv, BIN_PATH, ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env,
      detached: true,
    }),
  );
  // SIGHUP is passed on as it came; stdout's reader gone (SIGPIPE) stops them as SIGTERM does.
  let received: StopSignal | null = null;
  const forward = (signal: StopSignal) => {
    received ??= signal;
    for (const child of children) child.kill(signal === 'SIGPIPE' ? 'SIGTERM' : signal);
  };
  const stopListening = onStop(forward);
  try {
    const results = await Promise.all(
      children.map(
        (child) =>
          new Promise<{ code: number; stdout: string }>((resolve) => {
            let stdout = '';
            child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
            child.on('close', (code, signal) =>
              resolve({ code: code ?? (signal ? 128 + (constants.signals[signal] ?? 0) : ExitCode.Internal), stdout }),
            );
          }),
      ),
    );
    if (received === 'SIGPIPE') return signalExitCode('SIGPIPE');
    if (json) {
      const summaries = results.map((r, i) => ({ worker: i + 1, exitCode: r.code, summary: parseJson(r.stdout) }));
      printData(`${JSON.stringify({ workers: summaries }, null, 2)}\n`);
    } else {
      results.forEach((r, i) =>
        printText(`worker ${i + 1} (exit ${r.code}):\n${r.stdout.replace(/^/gm, '  ').trimEnd()}\n`),
      );
    }
    return Math.max(...results.map((r) => r.code));
  } finally {
    stopListening();
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
