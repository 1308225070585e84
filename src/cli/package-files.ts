/**
 * The files the package ships beside dist/ that are made from the registry: the man page
 * (man/bankdata.1, src/cli/man-page.ts) and the fish completion (completions/bankdata.fish,
 * src/cli/completion.ts). scripts/build.mjs bundles this module on its own and calls it after
 * the CLI is built.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { completionScript } from './completion';
import { manPage } from './man-page';
import { buildFullProgram } from './main';

export async function writePackageFiles(root: string): Promise<string[]> {
  const program = await buildFullProgram();
  const files: [string, string][] = [
    [join(root, 'man', 'bankdata.1'), manPage(program)],
    [join(root, 'completions', 'bankdata.fish'), completionScript('fish', program)],
  ];
  for (const [path, text] of files) {
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, text);
  }
  return files.map(([path]) => path);
}
