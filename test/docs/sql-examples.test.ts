/**
 * The SQL the documentation gives runs as written: every ```sql block of README.md and docs/*.md,
 * statement by statement, on the demo's SQLite database (`bankdata demo`: categories decided by
 * the example rules, own-account transfers linked, accounts in NZD, USD and JPY); a block must be
 * closed by a bare fence before any other fence begins.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDemo } from '../../src/cli/demo';
import { openStore, type SqliteStore } from '../../src/store';
import { SETTINGS } from '../fixtures/sync-harness';

const ROOT = join(__dirname, '..', '..');
const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

interface SqlBlock {
  file: string;
  /** The line of its opening fence (1-based). */
  line: number;
  text: string;
}

/** Every ```sql block of a Markdown file; one not closed by a bare ``` before the next fence throws. */
function sqlBlocks(file: string): SqlBlock[] {
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
  const blocks: SqlBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== '```sql') continue;
    const end = lines.findIndex((l, k) => k > i && l.startsWith('```'));
    if (end < 0 || lines[end] !== '```')
      throw new Error(
        `${file}:${i + 1}: the sql block is not closed before ${end < 0 ? 'the end' : `line ${end + 1}`}`,
      );
    blocks.push({ file, line: i + 1, text: lines.slice(i + 1, end).join('\n') });
    i = end;
  }
  return blocks;
}

/** A block's statements: comments dropped (none of the docs' strings holds `--`), split at `;`. */
function statements(block: SqlBlock): string[] {
  return block.text
    .split('\n')
    .map((l) => l.replace(/--.*$/, ''))
    .join('\n')
    .split(';')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

const dir = mkdtempSync(join(tmpdir(), 'bankdata-doc-sql-'));
let store: SqliteStore;

beforeAll(async () => {
  let said = '';
  const code = await runDemo({ dataDir: dir, settings: SETTINGS, seed: 1, out: (s) => (said += s) });
  expect(code, said).toBe(0);
  store = await openStore(join(dir, 'demo', 'bankdata.sqlite'));
});

afterAll(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("the docs' SQL examples", () => {
  const blocks = DOCS.flatMap((file) => sqlBlocks(file));

  it('are found (data-model.md and categories.md hold some)', () => {
    expect(new Set(blocks.map((b) => b.file))).toEqual(new Set(['docs/data-model.md', 'docs/categories.md']));
  });

  for (const block of blocks)
    it(`${block.file}:${block.line} runs on SQLite`, () => {
      for (const statement of statements(block)) {
        expect(() => store.sqlite.prepare(statement).all(), statement).not.toThrow();
      }
    });
});
