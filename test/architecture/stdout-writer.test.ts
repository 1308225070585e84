/**
 * Every command writes stdout through src/cli/stdout.ts (`printText` for human text, each line
 * made safe for a terminal; `printData` for JSON, NDJSON and scripts): no other file of src/
 * writes stdout itself (docs/security.md "Hostile server"; test/cli/terminal-text.test.ts runs
 * every command of the registry on a database holding escape codes).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

describe('stdout has one writer', () => {
  it('no file of src/ but src/cli/stdout.ts calls process.stdout.write or console.log/info', () => {
    const offenders = sources('src')
      .filter((file) => relative('src', file) !== join('cli', 'stdout.ts'))
      .flatMap((file) =>
        readFileSync(file, 'utf8')
          .split('\n')
          .map((line, i) => ({ line, at: `${file}:${i + 1}` }))
          .filter(
            ({ line }) => !/^\s*(\*|\/\/)/.test(line) && /process\.stdout\.write|console\.(log|info)\b/.test(line),
          )
          .map(({ at }) => at),
      );
    expect(offenders).toEqual([]);
  });
});
