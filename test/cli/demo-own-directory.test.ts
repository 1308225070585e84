/**
 * `bankdata demo` works in a directory of its own and never deletes what it did not make (issue
 * 31, item 5; docs/security.md "Local misuse"): the real command (run in process) in a folder whose
 * data directory already holds the user's `report.html`, `exports/` and a `demo/` directory, then
 * again with BANKDATA_DATA_DIR naming that data directory from another folder.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { DEMO_MARKER } from '../../src/cli/demo';
import { runCliInProcess } from './cli-process';

const root = mkdtempSync(join(tmpdir(), 'bankdata-demo-own-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The user's files: path (under the data directory) → bytes. */
const USER_FILES: Record<string, string> = {
  'report.html': '<!doctype html><title>my own report</title>\n',
  'exports/transactions.csv': 'date,amount\n2025-01-02,10.00\n',
  'exports/accounts.csv': 'account\nmine\n',
  'demo/bankdata.sqlite': 'not a demo database: the user keeps notes here\n',
  'demo/notes.txt': 'my notes\n',
};

/** Every file under `dir` (relative path → sha256), links and all. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    out[path.slice(dir.length + 1)] = createHash('sha256').update(readFileSync(path)).digest('hex');
  }
  return out;
}

const only = (files: Record<string, string>, prefix: string) =>
  Object.fromEntries(Object.entries(files).filter(([path]) => !path.startsWith(prefix)));

function transactionsIn(db: string): number {
  const sqlite = new Database(db, { readonly: true });
  try {
    return (sqlite.prepare('SELECT count(*) AS n FROM v_transactions').get() as { n: number }).n;
  } finally {
    sqlite.close();
  }
}

describe('bankdata demo in a data directory that already holds the user’s files', () => {
  const cwd = join(root, 'project');
  const data = join(cwd, 'data');
  let before: Record<string, string>;

  it('leaves report.html, exports/ and demo/ as they were; writes everything into demo-2/, which it marks', async () => {
    for (const [path, text] of Object.entries(USER_FILES)) {
      mkdirSync(join(data, path, '..'), { recursive: true });
      writeFileSync(join(data, path), text);
    }
    before = tree(data);

    const run = await runCliInProcess(['demo'], { cwd });
    expect(run.code, `${run.stderr}\n${run.stdout}`).toBe(0);
    const after = tree(data);
    expect(only(after, 'demo-2/')).toEqual(before);
    expect(run.stdout).toContain(`${join('data', 'demo')} was not made by bankdata demo: left as it is.`);
    expect(run.stdout).toContain(`The demo's files go to ${join('data', 'demo-2')}/`);
    const own = join(data, 'demo-2');
    expect(existsSync(join(own, DEMO_MARKER))).toBe(true);
    for (const made of ['bankdata.sqlite', 'report.html', 'exports/transactions.csv', 'exports/transactions.json'])
      expect(existsSync(join(own, made)), made).toBe(true);
    expect(transactionsIn(join(own, 'bankdata.sqlite'))).toBeGreaterThan(0);
  }, 180_000);

  it('with BANKDATA_DATA_DIR from another folder: reuses its own demo-2/, keeps a file the user put there, touches nothing else', async () => {
    const own = join(data, 'demo-2');
    writeFileSync(join(own, 'mine.txt'), 'the user put this here\n');
    const elsewhere = join(root, 'elsewhere');
    mkdirSync(elsewhere);

    const run = await runCliInProcess(['demo'], { cwd: elsewhere, env: { BANKDATA_DATA_DIR: data } });
    expect(run.code, `${run.stderr}\n${run.stdout}`).toBe(0);

    const after = tree(data);
    expect(only(after, 'demo-2/')).toEqual(before);
    expect(readFileSync(join(own, 'mine.txt'), 'utf8')).toBe('the user put this here\n');
    expect(existsSync(join(data, 'demo-3'))).toBe(false);
    expect(readdirSync(elsewhere)).toEqual([]);
    expect(transactionsIn(join(own, 'bankdata.sqlite'))).toBeGreaterThan(0);
  }, 180_000);
});
