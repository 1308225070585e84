#!/usr/bin/env node
/**
 * `npm run build` (run by `prepare`, so `npm ci` builds): compiles the CLI with esbuild into
 * dist/. One entry, src/cli/run.ts; every command module that src/cli/main.ts imports with
 * `import()` becomes its own chunk, loaded only when that command runs. Every output file lands
 * flat in dist/, one level below the package root like src/paths.ts, so `new URL('..',
 * import.meta.url)` is the package root in both (config/default.json and the migrations are
 * read from there). Why esbuild and not tsc: docs/packaging.md. Then man/bankdata.1 and
 * completions/bankdata.fish, made from the same registry (src/cli/package-files.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const DIST = join(root, 'dist');

/** What every bundle of the build shares (the sync bench compiles its child with it too: test/bench/sync-support/bench-world.ts). */
export const SHARED = {
  absWorkingDir: root,
  bundle: true,
  format: 'esm',
  platform: 'node',
  // The workspace packages (@bankdata/core, @bankdata/emulator) are bundled from their TypeScript
  // sources: they are never installed on their own beside bankdata.
  conditions: ['bankdata-source'],
  target: 'node20',
  // npm packages are bundled too (hundreds of small files, zod's and drizzle's, cost more to
  // load than the code in them), but two stay outside, imported from node_modules: better-sqlite3
  // loads its native binding beside itself, and undici does not work bundled (its requests
  // fail) and loads only when a request is sent (src/api/http.ts); pg (and its optional
  // pg-native) is left as the package ships it.
  external: ['better-sqlite3', 'undici', 'pg', 'pg-cursor', 'pg-native'],
  // Bundled CommonJS (commander, node-cron) calls require() for node's own modules.
  banner: {
    js: "import { createRequire as __bankdataCreateRequire } from 'node:module'; const require = __bankdataCreateRequire(import.meta.url);",
  },
  logLevel: 'warning',
  legalComments: 'none',
};

/** Builds dist/ afresh, then the man page and the fish completion; also run by the tests' global setup (test/global-setup.ts). */
export async function buildCli() {
  rmSync(DIST, { recursive: true, force: true });
  const result = await build({
    ...SHARED,
    entryPoints: { bankdata: 'src/cli/run.ts' },
    outdir: DIST,
    splitting: true,
    entryNames: '[name]',
    chunkNames: '[name]-[hash]',
    sourcemap: 'linked',
    sourcesContent: false,
    metafile: true,
  });
  // Which source files each output holds: the lazy-loading test reads it (test/cli/lazy-load.test.ts).
  writeFileSync(join(DIST, 'meta.json'), JSON.stringify(result.metafile));
  await buildPackageFiles();
}

/**
 * man/bankdata.1 and completions/bankdata.fish from the registry (src/cli/package-files.ts):
 * that module bundled alone into a temporary folder, imported and run, the folder removed.
 */
async function buildPackageFiles() {
  // Inside node_modules: the bundle's external imports (better-sqlite3…) resolve from there.
  const temp = mkdtempSync(join(root, 'node_modules', '.bankdata-build-'));
  try {
    const outfile = join(temp, 'package-files.mjs');
    await build({ ...SHARED, entryPoints: ['src/cli/package-files.ts'], outfile });
    const { writePackageFiles } = await import(pathToFileURL(outfile).href);
    await writePackageFiles(root);
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await buildCli();
