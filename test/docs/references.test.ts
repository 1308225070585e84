/**
 * The repository stands on its own: every `docs/<file>.md` that code, docs, tests, scripts or a
 * README cite exists, and so does every section it names (`docs/bank-api.md §6.4` needs a heading
 * "6.4 …"; `docs/data-model.md "Views"` needs a heading starting "Views"). Bare `§n` inside
 * `docs/bank-api.md` and `docs/payments-contract.md` name their own sections. Nothing cites
 * documents that are not in the repository (the external wire contract by section number, an
 * external architecture file, the bank's documentation by a nickname, or paths outside the repo).
 *
 * The workspace packages have docs of their own. A `docs/x.md` cited from a file inside
 * `packages/P/` means `packages/P/docs/x.md` when that exists, else the root's `docs/x.md`; a
 * file anywhere may cite a package's document by its path, `packages/P/docs/x.md`.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(__dirname, '..', '..');
const SELF = relative(ROOT, __filename);
const TEXT = /\.(ts|js|mjs|cjs|md|sql|json|rules|sh|txt)$/;
const SKIP_DIRS = new Set(['node_modules', '.git', 'meta', 'dist']);

function walk(dir: string, out: string[] = []): string[] {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (!SKIP_DIRS.has(name)) walk(path, out);
    } else if (TEXT.test(name)) out.push(path);
  }
  return out;
}

const PACKAGES = readdirSync(join(ROOT, 'packages')).filter((p) =>
  existsSync(join(ROOT, 'packages', p, 'package.json')),
);

interface SourceFile {
  path: string;
  text: string;
}

const files: SourceFile[] = [
  ...['src', 'docs', 'test', 'scripts', 'bin'].flatMap((d) => walk(join(ROOT, d))),
  join(ROOT, 'README.md'),
  join(ROOT, 'CONTRIBUTING.md'),
  ...PACKAGES.flatMap((p) => [
    ...['src', 'test', 'docs', 'scripts', 'bin'].flatMap((d) => walk(join(ROOT, 'packages', p, d))),
    ...(existsSync(join(ROOT, 'packages', p, 'README.md')) ? [join(ROOT, 'packages', p, 'README.md')] : []),
  ]),
]
  .map((path) => ({ path: relative(ROOT, path), text: readFileSync(path, 'utf8') }))
  .filter((f) => f.path !== SELF);

/** Numbered headings ("## 6. Resources" → "6", "### 6.4 Transactions" → "6.4") and heading texts of a repo path. */
function headingsOf(doc: string): { numbers: Set<string>; titles: string[] } {
  const numbers = new Set<string>();
  const titles: string[] = [];
  for (const line of readFileSync(join(ROOT, doc), 'utf8').split('\n')) {
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

/**
 * `docs/x.md` or `packages/P/docs/x.md`, then any run of `§n` (joined by spaces, commas, dashes,
 * "and", "or", comment stars), then an optional quoted heading.
 */
const DOC_REF =
  /(?:packages\/([\w.-]+)\/)?docs\/([\w.-]+\.md)`?((?:(?:[\s,*–/-]|and|or|'s)*§\d+(?:\.\d+)*)*)(?:`?\s*(?:\*\s*)?"([^"\n]+)")?/g;
const SECTIONS = /§(\d+(?:\.\d+)*)/g;
/** Docs whose bare `§n` name their own sections. */
const SELF_NUMBERED = ['docs/bank-api.md', 'docs/payments-contract.md'];

/** The package a repo path lies in (`packages/P/…` → P), or undefined at the root. */
const packageOf = (path: string) => /^packages\/([^/]+)\//.exec(path)?.[1];

/**
 * The repo path a citation means: `packages/P/docs/x.md` as written; `docs/x.md` from inside
 * packages/P/ is packages/P/docs/x.md when that exists, else (and from the root) docs/x.md.
 */
export function resolveCitation(from: string, pkg: string | undefined, doc: string): string {
  if (pkg !== undefined) return `packages/${pkg}/docs/${doc}`;
  const own = packageOf(from);
  if (own !== undefined && existsSync(join(ROOT, 'packages', own, 'docs', doc))) return `packages/${own}/docs/${doc}`;
  return `docs/${doc}`;
}

interface Problem {
  at: string;
  problem: string;
}

function brokenReferences(scanned: SourceFile[] = files): Problem[] {
  const problems: Problem[] = [];
  for (const file of scanned) {
    for (const m of file.text.matchAll(DOC_REF)) {
      const at = `${file.path}:${lineOf(file.text, m.index)}`;
      const doc = resolveCitation(file.path, m[1], m[2]!);
      if (!existsSync(join(ROOT, doc))) {
        problems.push({ at, problem: `${doc} does not exist` });
        continue;
      }
      const { numbers, titles } = headings(doc);
      for (const s of (m[3] ?? '').matchAll(SECTIONS)) {
        if (!numbers.has(s[1]!)) problems.push({ at, problem: `${doc} has no section §${s[1]}` });
      }
      const named = m[4];
      if (named !== undefined && !titles.some((t) => t.startsWith(named.replace(/`/g, '')))) {
        problems.push({ at, problem: `${doc} has no heading "${named}"` });
      }
    }
    if (SELF_NUMBERED.includes(file.path)) {
      const { numbers } = headings(file.path);
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
  it("scans the source, docs, tests, scripts and README, the packages' too", () => {
    expect(files.length).toBeGreaterThan(100);
    const paths = files.map((f) => f.path);
    for (const path of [
      'docs/bank-api.md',
      'README.md',
      'packages/emulator/README.md',
      'packages/emulator/docs/emulator.md',
      'packages/emulator/src/index.ts',
      'packages/emulator/test/helpers.ts',
      'packages/core/src/schemas.ts',
    ]) {
      expect(paths).toContain(path);
    }
  });

  it('finds the numbered sections of docs/bank-api.md', () => {
    const { numbers } = headings('docs/bank-api.md');
    for (const n of ['1.4', '4.1', '4.4', '5', '6.0', '6.4', '7.3', '7.4']) expect(numbers.has(n)).toBe(true);
  });

  it("resolves a package's docs/x.md to its own docs/ first, and a packages/P/docs/x.md path as written", () => {
    expect(resolveCitation('packages/emulator/src/world.ts', undefined, 'emulator-data.md')).toBe(
      'packages/emulator/docs/emulator-data.md',
    );
    expect(resolveCitation('packages/emulator/docs/emulator.md', undefined, 'bank-api.md')).toBe('docs/bank-api.md');
    expect(resolveCitation('src/cli/emulator.ts', undefined, 'emulator.md')).toBe('docs/emulator.md');
    expect(resolveCitation('README.md', 'emulator', 'emulator.md')).toBe('packages/emulator/docs/emulator.md');
  });

  it('reports a citation that does not resolve, a missing section and a missing heading', () => {
    const problems = brokenReferences([
      { path: 'packages/emulator/src/x.ts', text: 'docs/emulator.md "Settings", docs/bank-api.md §6.4' },
      {
        path: 'src/x.ts',
        text: '// see docs/no-such-page.md\n// packages/emulator/docs/emulator.md "No such heading"',
      },
      { path: 'README.md', text: '`packages/emulator/docs/nothing.md`, `docs/bank-api.md` §99' },
      { path: 'packages/core/src/x.ts', text: 'docs/emulator-data.md' },
    ]);
    expect(problems).toEqual([
      { at: 'src/x.ts:1', problem: 'docs/no-such-page.md does not exist' },
      { at: 'src/x.ts:2', problem: 'packages/emulator/docs/emulator.md has no heading "No such heading"' },
      { at: 'README.md:1', problem: 'packages/emulator/docs/nothing.md does not exist' },
      { at: 'README.md:1', problem: 'docs/bank-api.md has no section §99' },
      { at: 'packages/core/src/x.ts:1', problem: 'docs/emulator-data.md does not exist' },
    ]);
  });

  it('cites only docs/ files and sections that exist', () => {
    expect(brokenReferences()).toEqual([]);
  });

  it('cites no document outside the repository', () => {
    expect(forbiddenCitations()).toEqual([]);
  });
});
