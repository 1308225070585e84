/**
 * README "Output": every diagnostic of a command goes through the one logger (src/log.ts), so
 * that `-q` and `--log-level` rule it and `--log-format json` makes it a JSON line; a command's
 * summary line too (`logger.notice`). What writes stderr directly in src/cli is the final error
 * alone, written as src/cli/error-output.ts makes it. A new `process.stderr.write` or `console.*`
 * call in src/cli fails here until it goes through the logger or is named below with its reason.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '..', '..');
const CLI = join(ROOT, 'src', 'cli');

/**
 * The files allowed to name stderr directly, how many times, and why: a write, or the stream
 * passed on (a conditional `(x ? process.stderr : process.stdout).write` is a write too).
 */
const ALLOWED: Readonly<Record<string, { writes: number; why: string }>> = {
  'src/cli/handle-error.ts': { writes: 2, why: 'the final error (handleCliError, writeFinalError)' },
  'src/cli/main.ts': { writes: 1, why: "the final error's lines, made before the alerts run and written last" },
  'src/cli/stop-signals.ts': { writes: 1, why: 'standard output cannot be written: the last word, as a final error' },
  'src/cli/spinner.ts': {
    writes: 1,
    why: "a terminal's spinner while a consent awaits authorisation, drawn only when stderr is a TTY",
  },
  'src/cli/progress.ts': {
    writes: 3,
    why: "a terminal's progress line, retry and pace lines: drawn only on a TTY in text format, never with -q",
  },
  'src/cli/sync.ts': { writes: 1, why: "the sync's progress display (progress.ts) on the terminal" },
};

const DIRECT = /process\.stderr\b|console\.(?:log|error|warn|info|debug|trace)\(/g;

function files(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) files(path, out);
    else if (name.endsWith('.ts')) out.push(path);
  }
  return out;
}

describe('stderr in src/cli', () => {
  it('is written directly only by the final error; everything else goes through the logger', () => {
    const found: Record<string, number> = {};
    for (const file of files(CLI)) {
      const n = readFileSync(file, 'utf8').match(DIRECT)?.length ?? 0;
      if (n > 0) found[relative(ROOT, file)] = n;
    }
    expect(found).toEqual(Object.fromEntries(Object.entries(ALLOWED).map(([file, { writes }]) => [file, writes])));
  });
});
