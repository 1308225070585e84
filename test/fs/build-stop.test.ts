/**
 * A stop signal during `buildNewFile` (src/fs/atomic-file.ts; docs/security.md "A write cut
 * short"): the process ends by that signal, and neither the temp database nor what the build wrote
 * beside it (a copy's statement files, undone by its `onStop`) is left. Before, Ctrl-C during
 * `db copy` to SQLite left the database-sized temp file and the copied statement files.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, expect, it } from 'vitest';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

it.each(['SIGINT', 'SIGTERM'] as const)(
  '%s mid-build: ends by the signal, no temp database, no statement file of the build',
  async (signal) => {
    const dir = mkdtempSync(join(tmpdir(), 'bankdata-build-stop-'));
    dirs.push(dir);
    const child = spawn(
      process.execPath,
      ['--conditions=bankdata-source', resolve('bin/run-ts.js'), resolve('test/fs/fixtures/build-then-wait.ts'), dir],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    const ended = new Promise<number | NodeJS.Signals | null>((r) => child.on('close', (code, sig) => r(code ?? sig)));
    await new Promise<void>((r, reject) => {
      child.stdout.on('data', (d: Buffer) => d.toString('utf8').includes('written') && r());
      void ended.then(() => reject(new Error(`the child ended before it wrote: ${stderr}`)));
    });
    expect(existsSync(join(dir, 'statements/PNZ/acc-1/st-1.pdf'))).toBe(true);
    child.kill(signal);
    expect(await ended).toBe(signal);
    expect(readdirSync(dir).filter((name) => name.startsWith('copy.sqlite'))).toEqual([]);
    expect(existsSync(join(dir, 'statements'))).toBe(false);
  },
);
