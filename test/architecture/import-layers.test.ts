/**
 * The layering of docs/architecture.md "Layers", held by the import graph: every import in
 * bankdata's src/ goes to its own area or to a layer below it (never up, never sideways to a peer
 * of its own layer); @bankdata/core imports nothing of the workspace; @bankdata/emulator imports
 * core only; bankdata reaches the emulator only from the areas the page names. The layers are
 * read from the page itself, so the map and the code cannot drift apart.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '..', '..');

/** Every source file (.ts, .mjs, .js) below a folder, as paths relative to ROOT; none when it is absent. */
function tsFiles(dir: string, out: string[] = []): string[] {
  if (!existsSync(join(ROOT, dir))) return out;
  for (const name of readdirSync(join(ROOT, dir))) {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'dist') continue;
    if (statSync(join(ROOT, path)).isDirectory()) tsFiles(path, out);
    else if (/\.(ts|mjs|js)$/.test(name)) out.push(path);
  }
  return out;
}

/** The module specifiers a file imports: static, dynamic, re-exports and `import('x').T` types. */
export function importsOf(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
}

export interface Layers {
  /** Top first; each layer a list of areas (a folder of src/, or a file of src/ by its name). */
  layers: string[][];
  /** The workspace packages bankdata may import, each with the areas allowed to. */
  packageUsers: Record<string, string[]>;
}

/** The ```layers block and the package lines of docs/architecture.md "Layers". */
export function readLayers(markdown: string): Layers {
  const block = /```layers\n([\s\S]*?)```/.exec(markdown);
  if (!block?.[1]) throw new Error('docs/architecture.md has no ```layers block');
  const layers: string[][] = [];
  const packageUsers: Record<string, string[]> = {};
  for (const raw of block[1].split('\n')) {
    const line = raw.replace(/#.*$/, '').trim();
    if (line === '') continue;
    const pkg = /^(@bankdata\/[\w-]+)\s*<-\s*(.+)$/.exec(line);
    if (pkg?.[1] && pkg[2]) packageUsers[pkg[1]] = pkg[2].split(/\s+/);
    else layers.push(line.split(/\s+/));
  }
  return { layers, packageUsers };
}

/** The area of a file of src/: its first folder, or its own name for a file directly in src/. */
export function areaOf(srcRelative: string): string {
  return srcRelative.split('/')[0] ?? srcRelative;
}

/** The file a relative specifier names: `x.ts`, `x/index.ts`, or `x` itself (package.json). */
function resolveModule(path: string): string {
  for (const candidate of [`${path}.ts`, join(path, 'index.ts')]) if (existsSync(candidate)) return candidate;
  return path;
}

export interface Edge {
  from: string;
  to: string;
}

/**
 * The imports that break the layering. `edges` are src/-relative file paths for relative imports,
 * or a package name (`@bankdata/x`, or a third-party one, which is ignored) as `to`.
 */
export function layerViolations(edges: readonly Edge[], { layers, packageUsers }: Layers): string[] {
  const level = new Map<string, number>();
  layers.forEach((areas, i) => areas.forEach((a) => level.set(a, i)));
  const bottom = layers.length - 1;
  const problems: string[] = [];
  for (const { from, to } of edges) {
    const fromArea = areaOf(from);
    const fromLevel = level.get(fromArea);
    if (fromLevel === undefined) {
      problems.push(`${from}: area ${fromArea} is in no layer`);
      continue;
    }
    if (to.startsWith('@bankdata/')) {
      const name = to.split('/').slice(0, 2).join('/');
      const users = packageUsers[name];
      if (!users) problems.push(`${from} imports ${name}, which bankdata may not import`);
      else if (!users.includes('*') && !users.includes(fromArea) && !users.includes(from))
        problems.push(`${from} imports ${name}: only ${users.join(', ')} may`);
      continue;
    }
    if (!to.startsWith('src/')) continue; // a third-party package, node:, or package.json
    const toArea = areaOf(to.slice('src/'.length));
    if (toArea === fromArea) continue;
    const toLevel = level.get(toArea);
    if (toLevel === undefined) problems.push(`${from} imports ${to}: area ${toArea} is in no layer`);
    else if (toLevel < fromLevel) problems.push(`${from} (${fromArea}) imports up: ${to} (${toArea})`);
    else if (toLevel === fromLevel && fromLevel !== bottom)
      problems.push(`${from} (${fromArea}) imports its peer ${to} (${toArea})`);
  }
  return problems;
}

/** The import edges of bankdata's src/: relative imports resolved to src/ paths, packages by name. */
function sourceEdges(): Edge[] {
  const edges: Edge[] = [];
  for (const file of tsFiles('src')) {
    const from = relative('src', file);
    for (const spec of importsOf(readFileSync(join(ROOT, file), 'utf8'))) {
      if (spec.startsWith('.')) {
        const target = relative(ROOT, resolveModule(resolve(ROOT, dirname(file), spec)));
        if (target.startsWith('src/')) edges.push({ from, to: target });
        else if (!target.endsWith('package.json')) edges.push({ from, to: `outside:${target}` });
      } else {
        edges.push({ from, to: spec });
      }
    }
  }
  return edges;
}

/** Imports of a workspace package that leave it: other workspace packages, or relative paths outside. */
function packageImports(pkg: string): { file: string; spec: string }[] {
  const out: { file: string; spec: string }[] = [];
  for (const dir of ['src', 'test', 'scripts', 'bin']) {
    for (const file of tsFiles(join('packages', pkg, dir))) {
      for (const spec of importsOf(readFileSync(join(ROOT, file), 'utf8'))) {
        const outside =
          spec.startsWith('.') && !resolve(ROOT, dirname(file), spec).startsWith(join(ROOT, 'packages', pkg));
        if (outside || spec.startsWith('@bankdata/') || spec === 'bankdata' || spec.startsWith('bankdata/'))
          out.push({ file, spec });
      }
    }
  }
  return out;
}

const architecture = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8');

describe('the layers of docs/architecture.md', () => {
  const layers = readLayers(architecture);

  it('are read from the page: every area of src/ has a layer', () => {
    expect(layers.layers.length).toBeGreaterThanOrEqual(5);
    const areas = new Set(tsFiles('src').map((f) => areaOf(relative('src', f))));
    const placed = new Set(layers.layers.flat());
    expect([...areas].filter((a) => !placed.has(a))).toEqual([]);
    // …and every area the page names exists (a renamed folder leaves no stale line behind).
    expect([...placed].filter((a) => !areas.has(a))).toEqual([]);
  });

  it('no import in src/ runs up or sideways', () => {
    const edges = sourceEdges();
    expect(edges.length).toBeGreaterThan(500);
    expect(edges.filter((e) => e.to.startsWith('outside:'))).toEqual([]);
    expect(layerViolations(edges, layers)).toEqual([]);
  });

  it('catches an import up, one to a peer, and a package imported where the page does not allow it', () => {
    const bad: Edge[] = [
      { from: 'store/open.ts', to: 'src/sync/run.ts' },
      { from: 'sync/run.ts', to: 'src/report/html.ts' },
      { from: 'store/open.ts', to: '@bankdata/emulator' },
      { from: 'fs/atomic-file.ts', to: 'src/errors.ts' },
      { from: 'sync/run.ts', to: 'luxon' },
    ];
    expect(layerViolations(bad, layers)).toEqual([
      'store/open.ts (store) imports up: src/sync/run.ts (sync)',
      'sync/run.ts (sync) imports its peer src/report/html.ts (report)',
      'store/open.ts imports @bankdata/emulator: only cli may',
    ]);
  });

  it('@bankdata/core imports nothing of the workspace', () => {
    expect(packageImports('core')).toEqual([]);
  });

  it('@bankdata/emulator imports @bankdata/core only', () => {
    const found = packageImports('emulator');
    expect(found.length).toBeGreaterThan(20);
    expect(found.filter((i) => !i.spec.startsWith('@bankdata/core/'))).toEqual([]);
  });

  it('the packages declare the same: core depends on no workspace package, the emulator on core only', () => {
    const deps = (pkg: string) => {
      const json = JSON.parse(readFileSync(join(ROOT, 'packages', pkg, 'package.json'), 'utf8')) as Record<
        string,
        Record<string, string> | undefined
      >;
      return Object.keys({ ...json.dependencies, ...json.devDependencies, ...json.peerDependencies }).filter((d) =>
        d.startsWith('@bankdata/'),
      );
    };
    expect(deps('core')).toEqual([]);
    expect(deps('emulator')).toEqual(['@bankdata/core']);
  });
});
