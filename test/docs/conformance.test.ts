/**
 * docs/conformance.md stays true: every rule has a test whose title starts with its id, every id a
 * title names is a rule of the page, the "Tests" column lists exactly the files with such titles,
 * the "Client" column names files that exist, and the counts and the deviations are what the page
 * says. A title is a string literal of a test file that starts with one or more rule ids followed
 * by a space (the first argument of it/describe, or a template literal used as one).
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(__dirname, '..', '..');
const page = readFileSync(join(root, 'docs/conformance.md'), 'utf8');

interface RuleRow {
  id: string;
  source: string;
  client: string;
  tests: string[];
}

const ID = '(R-[A-Z]+-\\d+)';

/** The rule rows: `| R-X-n | rule | source | client | tests |` (rule and source may hold `\|`). */
function ruleRows(): RuleRow[] {
  const rows: RuleRow[] = [];
  for (const line of page.split('\n')) {
    const id = new RegExp(`^\\| ${ID} \\| `).exec(line)?.[1];
    if (id === undefined) continue;
    const cells = line
      .slice(1, -1)
      .split(/(?<!\\)\|/)
      .map((c) => c.trim());
    expect(cells, line).toHaveLength(5);
    const [, , source = '', client = '', tests = ''] = cells;
    rows.push({ id, source, client, tests: [...tests.matchAll(/`([^`]+)`/g)].map((m) => m[1]!) });
  }
  return rows;
}

/** Every .ts file under test/ and packages/<name>/test/. */
function testFiles(): string[] {
  const dirs = [join(root, 'test')];
  for (const name of readdirSync(join(root, 'packages'))) {
    const dir = join(root, 'packages', name, 'test');
    if (existsSync(dir)) dirs.push(dir);
  }
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      if (name === 'node_modules') continue;
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.ts')) files.push(relative(root, path));
    }
  };
  dirs.forEach(walk);
  return files.sort();
}

/** id → the test files whose titles name it. */
function titledIds(): Map<string, Set<string>> {
  const found = new Map<string, Set<string>>();
  const literal = new RegExp(`(['"\`])((?:${ID} )+)`, 'g');
  for (const file of testFiles()) {
    const text = readFileSync(join(root, file), 'utf8');
    for (const match of text.matchAll(literal)) {
      for (const id of match[2]!.trim().split(' ')) {
        const files = found.get(id) ?? new Set<string>();
        files.add(file);
        found.set(id, files);
      }
    }
  }
  return found;
}

describe('docs/conformance.md', () => {
  const rows = ruleRows();
  const found = titledIds();

  it('lists each rule once, with a source that is the bank documentation quoted or ours with a reason', () => {
    expect(rows.length).toBeGreaterThan(100);
    expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
    for (const row of rows) {
      expect(row.source, row.id).toMatch(/^(the bank's: .*\S|ours: .*\S)/);
      if (row.source.startsWith("the bank's")) expect(row.source, row.id).toMatch(/"[^"]+"|table/);
    }
  });

  it('every rule has a test whose title starts with its id, and the Tests column lists exactly those files', () => {
    const uncovered = rows.filter((r) => !found.has(r.id)).map((r) => r.id);
    expect(uncovered, 'rules with no test naming them').toEqual([]);
    for (const row of rows) expect(row.tests, row.id).toEqual([...(found.get(row.id) ?? [])].sort());
  });

  it('every id a test title names is a rule of the page', () => {
    const known = new Set(rows.map((r) => r.id));
    const unknown = [...found.entries()]
      .filter(([id]) => !known.has(id))
      .map(([id, files]) => `${id} in ${[...files].join(', ')}`);
    expect(unknown, 'titles naming ids the page does not list').toEqual([]);
  });

  it('the Client column names files that exist', () => {
    for (const row of rows) {
      for (const [, path] of row.client.matchAll(/`((?:src|packages)\/[^`]+)`/g)) {
        expect(existsSync(join(root, path!)), `${row.id}: ${path}`).toBe(true);
      }
    }
  });

  it('states the counts of rules, covered rules, uncovered rules and deviations truly; the README links the deviations', () => {
    const counts =
      /Rules: \*\*(\d+)\*\*\. Covered by a test naming the id: \*\*(\d+)\*\*\. Uncovered: \*\*(\d+)\*\*\. Deliberate deviations: \*\*(\d+)\*\*\./.exec(
        page,
      );
    expect(counts, 'the counts line').not.toBeNull();
    const [, rules, covered, uncovered, deviations] = counts!.map(Number);
    const coveredNow = rows.filter((r) => found.has(r.id)).length;
    expect({ rules, covered, uncovered }).toEqual({
      rules: rows.length,
      covered: coveredNow,
      uncovered: rows.length - coveredNow,
    });
    const section = page.slice(page.indexOf('\n## Deviations\n'));
    const deviationRows = section.split('\n').filter((l) => /^\| D-\d+ \| /.test(l));
    expect(deviationRows.length).toBe(deviations);
    for (const line of deviationRows) expect(line.split(' | ').length, line).toBe(3);
    expect(readFileSync(join(root, 'README.md'), 'utf8')).toContain('docs/conformance.md#deviations');
  });
});
