/**
 * A stream is never a file to replace (src/fs/output-path.ts `outputStream`; docs/security.md
 * "Files: one module owns the file system"): a FIFO, a character device, a socket, or a name for
 * a descriptor (/dev/stdout, /dev/fd/N, /proc/PID/fd/N), through any links on the way. The guard
 * refuses one to a writer that makes or replaces a file (exit 7); a writer that takes one (the
 * export's and the report's `writeOutput`) writes it straight through. Before, `--out
 * /dev/stdout >> sync.log` renamed a temp file over the log, and a FIFO became a regular file.
 */
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  constants,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalFileError } from '../../src/errors';
import { writeOutput } from '../../src/export/output';
import { openAtomicFile } from '../../src/fs/atomic-file';
import { checkOutputPath, outputStream } from '../../src/fs/output-path';

const dir = mkdtempSync(join(tmpdir(), 'bankdata-output-stream-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function fifoAt(name: string): string {
  const path = join(dir, name);
  execFileSync('mkfifo', [path]);
  return path;
}

describe('outputStream: what is a stream', () => {
  const file = join(dir, 'plain.csv');
  writeFileSync(file, 'a\n');
  const fifo = fifoAt('fifo');
  const linkToStdout = join(dir, 'link-to-stdout');
  symlinkSync('/dev/stdout', linkToStdout);
  const fdDir = join(dir, 'fds');
  symlinkSync('/proc/self/fd', fdDir);

  it.each([
    ['a regular file', file, null],
    ['a file not there yet', join(dir, 'new.csv'), null],
    ['a FIFO', fifo, { fd: null, what: 'a FIFO' }],
    ['/dev/null', '/dev/null', { fd: null, what: 'a character device' }],
    ['/dev/stdout', '/dev/stdout', { fd: 1, what: 'standard output' }],
    ['/dev/stderr', '/dev/stderr', { fd: 2, what: 'standard error' }],
    ['/dev/fd/1', '/dev/fd/1', { fd: 1, what: 'standard output' }],
    ['/proc/self/fd/1', '/proc/self/fd/1', { fd: 1, what: 'standard output' }],
    [`/proc/PID/fd/2 (this process)`, `/proc/${process.pid}/fd/2`, { fd: 2, what: 'standard error' }],
    ['/dev/fd/7', '/dev/fd/7', { fd: null, what: 'descriptor 7' }],
    ['/dev/stdin', '/dev/stdin', { fd: null, what: 'standard input' }],
    ['a link to /dev/stdout', linkToStdout, { fd: 1, what: 'standard output' }],
    ['a link to /proc/self/fd, then 1', join(fdDir, '1'), { fd: 1, what: 'standard output' }],
  ])('%s', (_name, path, expected) => {
    expect(outputStream(path)).toEqual(expected);
  });
});

describe('the guard and the atomic writer never replace a stream', () => {
  it('checkOutputPath refuses a stream to a writer that makes a file (exit 7), and returns it as given to one that takes it', () => {
    const fifo = fifoAt('guarded');
    for (const path of [fifo, '/dev/stdout', '/dev/fd/1']) {
      let thrown: unknown;
      try {
        checkOutputPath(path, {}, '--to');
      } catch (error) {
        thrown = error;
      }
      expect(thrown, path).toBeInstanceOf(LocalFileError);
      expect((thrown as LocalFileError).exitCode).toBe(7);
      expect((thrown as LocalFileError).message).toContain(`${path}: is `);
      expect(checkOutputPath(path, { streams: true })).toBe(path);
    }
    expect(() => checkOutputPath('/dev/stdin', { streams: true })).toThrow(/is standard input/);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
  });

  it('openAtomicFile refuses a FIFO: no temp file, no rename, the FIFO stays', async () => {
    const sub = join(dir, 'atomic');
    mkdirSync(sub);
    const fifo = join(sub, 'statement.pdf');
    execFileSync('mkfifo', [fifo]);
    await expect(openAtomicFile(fifo, { hiddenTemp: true, createDirectories: false })).rejects.toThrow(
      `${fifo}: is a FIFO`,
    );
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect(execFileSync('ls', ['-A', sub], { encoding: 'utf8' })).toBe('statement.pdf\n');
  });

  it('writeOutput writes into a FIFO as it is (a program that is not a command, such as the demo)', async () => {
    const fifo = fifoAt('written');
    // The reader's end, opened first without waiting for a writer; the bytes fit the pipe's buffer.
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const written = await writeOutput(fifo, ['bank,account_id\r\n', 'PNZ,acc-1\r\n']);
      expect(written).toEqual({ path: fifo, bytes: 28, stdout: false });
      const buffer = Buffer.alloc(100);
      const n = readSync(reader, buffer, 0, 100, null);
      expect(buffer.subarray(0, n).toString('utf8')).toBe('bank,account_id\r\nPNZ,acc-1\r\n');
    } finally {
      closeSync(reader);
    }
    expect(lstatSync(fifo).isFIFO()).toBe(true);
  });

  it('writeOutput appends to the file behind another descriptor by its /proc name, never truncating it', async () => {
    const log = join(dir, 'behind.log');
    writeFileSync(log, 'earlier\n');
    const fd = openSync(log, 'a');
    try {
      await writeOutput(`/proc/self/fd/${fd}`, ['later\n']);
    } finally {
      closeSync(fd);
    }
    expect(readFileSync(log, 'utf8')).toBe('earlier\nlater\n');
  });
});
