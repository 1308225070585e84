/**
 * A FIFO with a reader already waiting on it (a writer's open of a FIFO waits for its reader), for
 * the tests that aim a command's output at one (test/cli/output-paths.test.ts, test/export/cli.test.ts).
 * What the reader got lands in a file; `stop` ends the reader, killing it by its pid when the command
 * never opened the FIFO (the reader would wait for ever).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, lstatSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';

/** Resolves once `child` ended; one still running after a minute is killed by its pid (a hang, not speed). */
export function ended(child: ChildProcess): Promise<number | NodeJS.Signals> {
  return new Promise((resolveEnd) => {
    const deadline = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (code, signal) => {
      clearTimeout(deadline);
      resolveEnd(code ?? signal ?? -1);
    });
  });
}

export interface FifoWithReader {
  dir: string;
  fifo: string;
  /** Whether the path is still a FIFO (not replaced by a regular file). */
  stillFifo(): boolean;
  /** Ends the reader (killed unless `written`: a writer that closed the FIFO gave it its end of file) and gives what it read. */
  stop(written: boolean): Promise<string>;
}

export function fifoWithReader(): FifoWithReader {
  const dir = mkdtempSync(join(tmpdir(), 'bankdata-fifo-'));
  const fifo = join(dir, 'pipe');
  expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
  const got = join(dir, 'got');
  const gotFd = openSync(got, 'w');
  const reader = spawn('cat', [fifo], { stdio: ['ignore', gotFd, 'ignore'] });
  closeSync(gotFd);
  const readerEnded = ended(reader);
  return {
    dir,
    fifo,
    stillFifo: () => lstatSync(fifo).isFIFO(),
    async stop(written) {
      if (!written) reader.kill('SIGKILL');
      await readerEnded;
      return readFileSync(got, 'utf8');
    },
  };
}
