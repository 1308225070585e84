/**
 * A stop signal during `buildNewFile` or while an atomic file is written (src/fs/atomic-file.ts;
 * docs/security.md "Files: one module owns the file system"): the process ends by that signal,
 * and neither the temp database nor what the build wrote beside it (a copy's statement files,
 * undone by its `onStop`), nor an export's hidden temp file is left. Before, Ctrl-C during `db
 * copy` to SQLite left the database-sized temp file and the copied statement files, and Ctrl-C
 * during an export its temp file of financial data. A process that stops by a handler of its own
 * keeps its files to clean.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, expect, it } from 'vitest';

/** Starts a fixture child in `dir` and resolves once it printed `written`; `ended` resolves with its exit code or signal. */
async function startChild(fixture: string, args: string[]) {
  const child = spawn(
    process.execPath,
    ['--conditions=bankdata-source', resolve('bin/run-ts.js'), resolve(`test/fs/fixtures/${fixture}`), ...args],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const ended = new Promise<number | NodeJS.Signals | null>((r) => child.on('close', (code, sig) => r(code ?? sig)));
  await new Promise<void>((r, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString('utf8');
      if (stdout.includes('written')) r();
    });
    void ended.then(() => reject(new Error(`the child ended before it wrote: ${stderr}`)));
  });
  return { child, ended, output: () => stdout };
}

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

it.each(['SIGINT', 'SIGTERM'] as const)(
  '%s mid-build: ends by the signal, no temp database, no statement file of the build',
  async (signal) => {
    const dir = mkdtempSync(join(tmpdir(), 'bankdata-build-stop-'));
    dirs.push(dir);
    const { child, ended } = await startChild('build-then-wait.ts', [dir]);
    expect(existsSync(join(dir, 'statements/PNZ/acc-1/st-1.pdf'))).toBe(true);
    child.kill(signal);
    expect(await ended).toBe(signal);
    expect(readdirSync(dir).filter((name) => name.startsWith('copy.sqlite'))).toEqual([]);
    expect(existsSync(join(dir, 'statements'))).toBe(false);
  },
);

it.each(['SIGINT', 'SIGTERM'] as const)(
  '%s while an export is written: ends by the signal, its hidden temp file removed',
  async (signal) => {
    const dir = mkdtempSync(join(tmpdir(), 'bankdata-write-stop-'));
    dirs.push(dir);
    const { child, ended } = await startChild('write-then-wait.ts', [dir]);
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toHaveLength(1);
    child.kill(signal);
    expect(await ended).toBe(signal);
    expect(readdirSync(dir)).toEqual([]);
  },
);

it('a process that stops by a SIGINT handler of its own keeps the signal: its temp file is its own to clean', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bankdata-write-stop-'));
  dirs.push(dir);
  const { child, ended, output } = await startChild('write-then-wait.ts', [dir, 'listen']);
  child.kill('SIGINT');
  expect(await ended).toBe(3);
  expect(output()).toContain('stopping');
  expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toHaveLength(1);
});
