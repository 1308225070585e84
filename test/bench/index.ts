/**
 * `npm run bench [-- NAME… [--FLAG …]]`: runs the bench files named (`export-csv`, or a path),
 * or every `*.ts` file of test/bench/ but this one, one after another. A bench file's default
 * export is an async function that prints its own figures; it is given the arguments from the
 * first one that starts with `-` on (`npm run bench -- sync-backfill --matrix`; without the
 * `--` npm would take the flags for itself). Benches are kept out of `npm test`.
 */
import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

function benchPath(name: string): string {
  if (existsSync(name)) return resolve(name);
  const candidate = join(here, name.endsWith('.ts') ? basename(name) : `${name}.ts`);
  if (!existsSync(candidate)) {
    process.stderr.write(`bench: no bench file ${name}\n`);
    process.exit(2);
  }
  return candidate;
}

const args = process.argv.slice(2);
const firstFlag = args.findIndex((a) => a.startsWith('-'));
const named = firstFlag < 0 ? args : args.slice(0, firstFlag);
const flags = firstFlag < 0 ? [] : args.slice(firstFlag);
const files =
  named.length > 0
    ? named.map(benchPath)
    : readdirSync(here)
        .filter((f) => f.endsWith('.ts') && f !== 'index.ts')
        .sort()
        .map((f) => join(here, f));

for (const file of files) {
  process.stdout.write(`\n## ${basename(file, '.ts')}\n`);
  const bench = (await import(pathToFileURL(file).href)) as { default?: (args: readonly string[]) => Promise<void> };
  if (typeof bench.default !== 'function') {
    process.stderr.write(`bench: ${file} has no default export to run\n`);
    process.exit(2);
  }
  await bench.default(flags);
}
