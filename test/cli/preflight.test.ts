/**
 * Everything validated before any file is created (src/cli/preflight.ts). Every command of the
 * registry (src/cli/main.ts COMMANDS, each loaded and registered as it runs) is run in an empty
 * directory, the database and data directory defaulting inside it:
 * - with a bad configuration value: exit 2 naming it, and the directory still empty;
 * - with no credentials: a command that calls an API (declared in src/cli/command-needs.ts)
 *   exits 2 naming the variables, and the directory is still empty; any command that fails
 *   leaves it empty too.
 * The commands that read no configuration (`emulator`, `completion`) and `demo` (it runs its
 * own emulator and needs no credentials) are named, not run.
 */
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildFullProgram } from '../../src/cli/main';
import { needsOf } from '../../src/cli/command-needs';
import { tempDir } from '../store/helpers';
import { runCliInProcess } from './cli-process';

interface Leaf {
  path: string[];
  command: Command;
}

function leaves(program: Command): Leaf[] {
  const all: Leaf[] = [];
  const walk = (command: Command, path: string[]) => {
    if (command.commands.length === 0 && path.length > 0) all.push({ path, command });
    for (const sub of command.commands) walk(sub, [...path, sub.name()]);
  };
  walk(program, []);
  return all;
}

const UUID = '0f8fad5b-d9cb-469f-a165-70867728950e';

/** A value a placeholder accepts, so that the command reaches its action. */
function valueFor(name: string, choices: readonly string[] | undefined): string {
  if (choices?.[0]) return choices[0];
  if (/id|consent/i.test(name)) return UUID;
  if (name === 'bank') return 'PNZ';
  if (name === 'dataset') return 'accounts';
  return 'x';
}

function argvOf(leaf: Leaf): string[] {
  const args = leaf.command.registeredArguments.filter((a) => a.required).map((a) => valueFor(a.name(), a.argChoices));
  const options = leaf.command.options
    .filter((o) => o.mandatory)
    .flatMap((o) => [o.long!, valueFor(o.attributeName(), o.argChoices)]);
  return [...leaf.path, ...args, ...options];
}

/** Every file and directory under `dir`, relative. */
function listing(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((p) => relative(dir, join(dir, p)))
    .sort();
}

const program = await buildFullProgram();
const all = leaves(program);
const NOT_RUN = ['completion', 'demo', 'emulator'];
const run = all.filter((l) => !NOT_RUN.includes(l.path.join(' ')));
const label = (l: Leaf) => l.path.join(' ');

describe('the registry', () => {
  it('every command is here; the ones not run are those that read no configuration, and demo', () => {
    expect(all.length).toBeGreaterThan(15);
    expect(all.filter((l) => !needsOf(l.command).config).map(label)).toEqual(['emulator', 'completion']);
  });
});

describe.each(run.map((l) => [label(l), l] as const))('bankdata %s in an empty directory', (_name, leaf) => {
  it('with a bad configuration value: exit 2 naming it, nothing created', async () => {
    const dir = tempDir();
    const r = await runCliInProcess(argvOf(leaf), { cwd: dir, env: { BANKDATA_ENVIRONMENT: 'staging' } });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('BANKDATA_ENVIRONMENT');
    expect(listing(dir)).toEqual([]);
  });

  it('with no credentials: exit 2 if it calls an API, and nothing created unless it succeeded', async () => {
    const dir = tempDir();
    const r = await runCliInProcess(argvOf(leaf), { cwd: dir });
    const calls = needsOf(leaf.command).credentials.some((c) => c.when(leaf.command.opts()));
    if (calls) {
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/credentials missing: set BANKDATA_/);
    }
    if (r.code !== 0) expect(listing(dir), `exit ${r.code}: ${r.stderr}`).toEqual([]);
  });
});
