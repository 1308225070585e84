/**
 * The repository stands on its own: every `docs/<file>.md` that code, docs, tests, jobs or the
 * README cite exists, and so does every section it names (`docs/bank-api.md §6.4` needs a heading
 * "6.4 …"; `docs/data-model.md "Views"` needs a heading starting "Views"). Bare `§n` inside
 * `docs/bank-api.md` and `docs/payments-contract.md` name their own sections. Nothing cites
 * documents that are not in the repository (the external wire contract by section number, an
 * external architecture file, the bank's documentation by a nickname, or paths outside the repo).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(__dirname, '..', '..');
const SELF = relative(ROOT, __filename);
const TEXT = /\.(ts|js|mjs|cjs|md|sql|json|rules|sh|txt)$/;
const SKIP_DIRS = new Set(['node_modules', '.git', 'meta']);

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (!SKIP_DIRS.has(name)) walk(path, out);
    } else if (TEXT.test(name)) out.push(path);
  }
  return out;
}

const files = [...['src', 'docs', 'test', 'jobs'].flatMap((d) => walk(join(ROOT, d))), join(ROOT, 'README.md')]
  .map((path) => ({ path: relative(ROOT, path), text: readFileSync(path, 'utf8') }))
  .filter((f) => f.path !== SELF);

/** Numbered headings ("## 6. Resources" → "6", "### 6.4 Transactions" → "6.4") and heading texts. */
function headingsOf(doc: string): { numbers: Set<string>; titles: string[] } {
  const numbers = new Set<string>();
  const titles: string[] = [];
  for (const line of readFileSync(join(ROOT, 'docs', doc), 'utf8').split('\n')) {
    const heading = /^#{1,6}\s+(.*)$/.exec(line);
    if (!heading) continue;
    const title = heading[1]!.trim();
    titles.push(title.replace(/`/g, ''), title.replace(/`/g, '').replace(/^\d+(?:\.\d+)*\.?\s+/, ''));
    const number = /^(\d+(?:\.\d+)*)\.?\s/.exec(title);
    if (number) numbers.add(number[1]!);
  }
  return { numbers, titles };
}

const headingCache = new Map<string, ReturnType<typeof headingsOf>>();
const headings = (doc: string) => {
  if (!headingCache.has(doc)) headingCache.set(doc, headingsOf(doc));
  return headingCache.get(doc)!;
};

const lineOf = (text: string, index: number) => text.slice(0, index).split('\n').length;

/** `docs/x.md`, then any run of `§n` (joined by spaces, commas, dashes, "and", "or", comment stars). */
const DOC_REF = /docs\/([\w.-]+\.md)`?((?:(?:[\s,*–/-]|and|or|'s)*§\d+(?:\.\d+)*)*)(?:`?\s*(?:\*\s*)?"([^"\n]+)")?/g;
const SECTIONS = /§(\d+(?:\.\d+)*)/g;
/** Docs whose bare `§n` name their own sections. */
const SELF_NUMBERED = ['docs/bank-api.md', 'docs/payments-contract.md'];

interface Problem {
  at: string;
  problem: string;
}

function brokenReferences(): Problem[] {
  const problems: Problem[] = [];
  for (const file of files) {
    for (const m of file.text.matchAll(DOC_REF)) {
      const at = `${file.path}:${lineOf(file.text, m.index)}`;
      const doc = m[1]!;
      if (!existsSync(join(ROOT, 'docs', doc))) {
        problems.push({ at, problem: `docs/${doc} does not exist` });
        continue;
      }
      const { numbers, titles } = headings(doc);
      for (const s of (m[2] ?? '').matchAll(SECTIONS)) {
        if (!numbers.has(s[1]!)) problems.push({ at, problem: `docs/${doc} has no section §${s[1]}` });
      }
      const named = m[3];
      if (named !== undefined && !titles.some((t) => t.startsWith(named.replace(/`/g, '')))) {
        problems.push({ at, problem: `docs/${doc} has no heading "${named}"` });
      }
    }
    if (SELF_NUMBERED.includes(file.path)) {
      const { numbers } = headings(file.path.slice('docs/'.length));
      // Bare references only: drop the ones that follow a docs/x.md (checked above).
      const bare = file.text.replace(DOC_REF, '');
      for (const s of bare.matchAll(SECTIONS)) {
        if (!numbers.has(s[1]!)) problems.push({ at: file.path, problem: `no section §${s[1]} of its own` });
      }
    }
  }
  return problems;
}

/** Citations of documents that are not in the repository. `--seed` and seeded randomness are fine. */
const FORBIDDEN: Array<[string, RegExp]> = [
  ['the external wire contract by section', /\bcontract\s+(?:\*\s*)?\d/i],
  ['an external architecture file', /\bARCHITECTURE\b(?!_)/],
  [
    'the bank documentation by its nickname',
    /\bthe seed\b|\bseed's\b|\bseed section|\bseed\s+(?:"|Authentication|Payments|tables?\b|rules?\b|names\b)|\(seed;/i,
  ],
  [
    'a path outside the repository',
    /\.\.\/shared|\bshared\/(?:contract|bank-api|seed|ARCHITECTURE)|\bdata-api\.md\b|\binterface\.md\b/,
  ],
];

function forbiddenCitations(): Problem[] {
  const problems: Problem[] = [];
  for (const file of files) {
    for (const [what, pattern] of FORBIDDEN) {
      const global = new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`);
      for (const m of file.text.matchAll(global)) {
        problems.push({ at: `${file.path}:${lineOf(file.text, m.index)}`, problem: `cites ${what}: "${m[0]}"` });
      }
    }
  }
  return problems;
}

describe('documentation references', () => {
  it('scans the source, docs, tests, jobs and README', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(files.some((f) => f.path === 'docs/bank-api.md')).toBe(true);
  });

  it('finds the numbered sections of docs/bank-api.md', () => {
    const { numbers } = headings('bank-api.md');
    for (const n of ['1.4', '4.1', '4.4', '5', '6.0', '6.4', '7.3', '7.4']) expect(numbers.has(n)).toBe(true);
  });

  it('cites only docs/ files and sections that exist', () => {
    expect(brokenReferences()).toEqual([]);
  });

  it('cites no document outside the repository', () => {
    expect(forbiddenCitations()).toEqual([]);
  });
});
