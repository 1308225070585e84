/**
 * Every deletion under the data directory goes through src/fs/data-dir.ts (`removeInDataDir`,
 * `removeInDataDirSync`, `removeStoredFile`), which refuses a symbolic link below the data
 * directory as a write does (docs/security.md "Files: one module owns the file system"). This
 * test reads src/ and lists every file outside src/fs/ that imports a deleting or renaming call
 * of node:fs (`rm`, `unlink`, `rmdir`, `rename`, sync or not): each must be one of the few below,
 * which delete nothing under the data directory, with the reason. A new caller fails here until it
 * deletes through the guard or is added with its reason.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '..', '..');
const SRC = join(ROOT, 'src');

/** Files outside src/fs/ that delete or rename, and why that is never under the data directory. */
const OUTSIDE_THE_DATA_DIRECTORY: Record<string, string> = {
  'src/cli/emulator.ts': 'the --env-file outputs the user named (checked by checkOutputPath), removed when it stops',
  'src/store/sqlite/backup.ts':
    'pre-migration copies beside the --db file, by name pattern; rm removes a link there, not its target',
};

/** The callers that delete under the data directory, each through the guard it must import. */
const GUARDED: Record<string, string> = {
  'src/sync/files.ts': 'removeInDataDir',
  'src/cli/consents-forget.ts': 'removeStoredFile',
  'src/cli/demo.ts': 'removeInDataDirSync',
};

const DELETING = new Set(['rm', 'rmSync', 'unlink', 'unlinkSync', 'rmdir', 'rmdirSync', 'rename', 'renameSync']);

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sourceFiles(path, out);
    else if (name.endsWith('.ts')) out.push(path);
  }
  return out;
}

/** The names a file imports from node:fs or node:fs/promises; `*` for a namespace or default import. */
function fsImports(text: string): string[] {
  const names: string[] = [];
  for (const m of text.matchAll(/import\s+([^;]*?)\s+from\s+['"](?:node:)?fs(?:\/promises)?['"]/g)) {
    const clause = m[1] ?? '';
    const named = /\{([^}]*)\}/.exec(clause);
    if (named?.[1])
      for (const part of named[1].split(',')) {
        const name = part
          .trim()
          .replace(/^type\s+/, '')
          .split(/\s+as\s+/)[0];
        if (name) names.push(name);
      }
    if (/\*\s+as|^\s*\w+\s*(,|$)/.test(clause)) names.push('*');
  }
  if (/require\(\s*['"](?:node:)?fs/.test(text)) names.push('*');
  return names;
}

describe('deletions under the data directory go through src/fs/', () => {
  const files = sourceFiles(SRC).map((path) => ({
    path: relative(ROOT, path).split('\\').join('/'),
    text: readFileSync(path, 'utf8'),
  }));

  it('no file outside src/fs/ deletes or renames, but those that never do so under the data directory', () => {
    const deleting = files
      .filter((f) => !f.path.startsWith('src/fs/'))
      .filter((f) => fsImports(f.text).some((name) => name === '*' || DELETING.has(name)))
      .map((f) => f.path)
      .sort();
    expect(deleting).toEqual(Object.keys(OUTSIDE_THE_DATA_DIRECTORY).sort());
  });

  it.each(Object.entries(GUARDED))('%s deletes through %s', (path, guard) => {
    const text = files.find((f) => f.path === path)?.text ?? '';
    expect(text).toMatch(new RegExp(`import \\{[^}]*\\b${guard}\\b[^}]*\\} from '\\.\\./fs/data-dir'`));
    expect(text).toMatch(new RegExp(`\\b${guard}\\(`));
  });
});
