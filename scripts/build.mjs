#!/usr/bin/env node
/**
 * `npm run build` (run by `prepare`, so `npm ci` builds): compiles the CLI with esbuild into
 * dist/. One entry, src/cli/run.ts; every command module that src/cli/main.ts imports with
 * `import()` becomes its own chunk, loaded only when that command runs. npm packages stay
 * external (imported from node_modules at run time, never bundled). Every output file lands
 * flat in dist/, one level below the package root like src/paths.ts, so `new URL('..',
 * import.meta.url)` is the package root in both (config/default.json and the migrations are
 * read from there). Why esbuild and not tsc: docs/packaging.md.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const DIST = join(root, 'dist');

/** Builds dist/ afresh; also run by the tests' global setup (test/global-setup.ts). */
export async function buildCli() {
  rmSync(DIST, { recursive: true, force: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: { bankdata: 'src/cli/run.ts' },
    outdir: DIST,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    entryNames: '[name]',
    chunkNames: '[name]-[hash]',
    sourcemap: 'linked',
    sourcesContent: false,
    metafile: true,
    logLevel: 'warning',
    legalComments: 'none',
  });
  // Which source files each output holds: the lazy-loading test reads it (test/cli/lazy-load.test.ts).
  writeFileSync(join(DIST, 'meta.json'), JSON.stringify(result.metafile));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await buildCli();
