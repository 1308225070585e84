/**
 * `bankdata changes` run in process on a filled SQLite database: NDJSON pages that split at
 * --limit and end with the cursor line, the same page as one JSON document, an exact amount as
 * text, and exit 2 with one line and a hint for a malformed cursor, a cursor older than the pruned
 * log, and a bad --limit (docs/changes.md).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFixtureStore, type FixtureStore } from '../export/fixture-store';
import { runCliInProcess } from './cli-process';

let fx: FixtureStore;
let total = 0;
beforeAll(async () => {
  fx = await createFixtureStore();
  total = (fx.store.sqlite.prepare('SELECT count(*) AS n FROM v_transactions').get() as { n: number }).n;
  await fx.store.close();
});
afterAll(async () => {
  await fx?.cleanup();
});

const changes = (...args: string[]) => runCliInProcess(['--db', fx.path, 'changes', ...args], { cwd: fx.dir });
const lines = (stdout: string) =>
  stdout
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('bankdata changes', () => {
  it('pages of NDJSON: every row added once, split at --limit, each page ending with the cursor line', async () => {
    expect(total).toBeGreaterThan(3);
    const keys: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    for (;;) {
      const r = await changes('--limit', '3', ...(cursor ? ['--since', cursor] : []));
      expect(r.code, r.stderr).toBe(0);
      const page = lines(r.stdout);
      const last = page.pop()!;
      expect(Object.keys(last)).toEqual(['next_cursor', 'has_more']);
      expect(page.length).toBeLessThanOrEqual(3);
      for (const c of page) {
        expect(c.change).toBe('added');
        const row = c.row as Record<string, unknown>;
        // The amounts as the exact text, never a binary number.
        expect(row.amount).toBe(row.amount_text);
        keys.push(JSON.stringify(c.key));
      }
      cursor = last.next_cursor as string;
      pages += 1;
      if (last.has_more !== true) break;
    }
    expect(pages).toBeGreaterThan(1);
    expect(new Set(keys).size).toBe(total);
    expect(keys).toHaveLength(total);
  });

  it('--format json and --json: the page as one document', async () => {
    for (const flag of [['--format', 'json'], ['--json']]) {
      const r = await changes('--limit', '2', ...flag);
      expect(r.code, r.stderr).toBe(0);
      const page = JSON.parse(r.stdout) as Record<string, unknown>;
      expect(Object.keys(page)).toEqual(['added', 'modified', 'removed', 'next_cursor', 'has_more']);
      expect(page.added).toHaveLength(2);
      expect(page.has_more).toBe(true);
    }
  });

  it('a malformed cursor, a bad --limit, a bad --format: exit 2, one line and a hint, nothing on stdout', async () => {
    for (const args of [
      ['--since', 'bm90IGEgY3Vyc29y'],
      ['--since', 'a b'],
      ['--limit', '0'],
      ['--limit', '5001'],
      ['--format', 'csv'],
    ]) {
      const r = await changes(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trimEnd().split('\n')[0]).toMatch(/^bankdata: /);
      expect(r.stderr.trimEnd().split('\n').length).toBeLessThanOrEqual(2);
    }
  });

  it('--prune: a cursor older than the kept log exits 2 with the hint to start again; starting again works', async () => {
    const first = lines((await changes('--limit', '1000')).stdout).pop()!;
    const old = first.next_cursor as string;
    const ends = (await changes('--since', old)).stdout;
    expect(lines(ends).pop()).toMatchObject({ has_more: false });
    // A change after the cursor, then the whole log pruned.
    const { openStore } = await import('../../src/store');
    const store = await openStore(fx.path);
    store.sqlite
      .prepare("UPDATE transactions SET description = 'changed' WHERE rowid = (SELECT min(rowid) FROM transactions)")
      .run();
    await store.close();
    const pruned = await changes('--prune', '--keep-days', '0');
    expect(pruned.code, pruned.stderr).toBe(0);
    expect((JSON.parse(pruned.stdout) as { pruned: number }).pruned).toBeGreaterThan(total);
    const r = await changes('--since', old);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'bankdata: the --since cursor is older than the change log keeps (bankdata changes --prune)\n' +
        'hint: start again without --since: the first pages then hold every transaction\n',
    );
    const again = await changes('--limit', '5000');
    expect(again.code).toBe(0);
    expect(lines(again.stdout).filter((c) => c.change === 'added')).toHaveLength(total);
  });
});
