#!/usr/bin/env node
/**
 * `npm run build -w @bankdata/emulator` (run by `prepack`, so `npm pack` in this folder builds):
 * esbuild bundles src/index.ts → dist/index.js (`import { startEmulator } from
 * '@bankdata/emulator'`) and src/cli.ts → dist/cli.js (bin/bankdata-emulator.js runs it), ESM for
 * Node 20, with what both share in one chunk. Everything is bundled, @bankdata/core (from its
 * TypeScript, through the `bankdata-source` condition), zod and luxon included: the tarball has no
 * runtime dependencies (package.json lists them as devDependencies). `--outdir DIR` builds
 * elsewhere (the package's CLI test). docs/packaging.md "Workspace".
 */
import { rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const DIST = join(root, 'dist');

/** Builds `outdir` (default dist/) afresh. */
export async function buildEmulator(outdir = DIST) {
  rmSync(outdir, { recursive: true, force: true });
  await build({
    absWorkingDir: root,
    entryPoints: { index: 'src/index.ts', cli: 'src/cli.ts' },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    conditions: ['bankdata-source'],
    entryNames: '[name]',
    chunkNames: 'chunk-[hash]',
    // No source maps: the tarball would not ship them (the bundle is readable, names kept).
    sourcemap: false,
    logLevel: 'warning',
    legalComments: 'none',
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { values } = parseArgs({ options: { outdir: { type: 'string' } } });
  await buildEmulator(values.outdir === undefined ? DIST : resolve(values.outdir));
}
