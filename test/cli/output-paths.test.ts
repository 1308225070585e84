/**
 * Every path a command takes is declared through src/cli/output-paths.ts, and every declared
 * output passes the one guard (docs/security.md "Local misuse"). The commands come from the
 * CLI's registry (src/cli/main.ts `buildFullProgram`: every entry of COMMANDS, loaded and
 * registered as it runs), so a command added later is covered without editing this file:
 * - every option that takes a value, and every argument, declares its role in its metadata
 *   (src/cli/path-roles.ts): made by outputPathOption / outputPathArgument / inputPathOption /
 *   dataPathOption, or declared not a path (`notPaths`, role `none`); the test enumerates roles,
 *   not words;
 * - each declared output, aimed at the database, its WAL, a statement file, a directory and a
 *   read-only file, is refused with exit 7 through the real command (run in process), the target
 *   unchanged: its bytes and mtime (a directory: its entries and mtime).
 */
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { Argument, Command, Option } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFullProgram } from '../../src/cli/main';
import { pathRoleOf } from '../../src/cli/path-roles';
import { createFixtureStore, type FixtureStore } from '../export/fixture-store';
import { runCliInProcess } from './cli-process';

interface Taken {
  /** The command's names from the root, e.g. ['db', 'backup']; [] for the root's global options. */
  path: string[];
  command: Command;
  target: Option | Argument;
}

/** Every option and argument of every command of the program, depth first. */
function everyPathTaken(program: Command): Taken[] {
  const all: Taken[] = [];
  const walk = (command: Command, path: string[]) => {
    for (const target of [...command.options, ...command.registeredArguments]) all.push({ path, command, target });
    for (const sub of command.commands) walk(sub, [...path, sub.name()]);
  };
  walk(program, []);
  return all;
}

/** An option that takes a value, or an argument: each must declare its role (path or not). */
function takesValue(target: Option | Argument): boolean {
  return target instanceof Argument || target.required || target.optional;
}

const label = (t: Taken) =>
  ['bankdata', ...t.path, t.target instanceof Option ? t.target.flags : `<${t.target.name()}>`].join(' ');

const program = await buildFullProgram();
const taken = everyPathTaken(program);
const outputs = taken.filter((t) => pathRoleOf(t.target) === 'output');

describe('the registry: every value a command takes declares its role', () => {
  it('every option that takes a value and every argument was declared a path (output, input, data) or not a path', () => {
    const undeclared = taken.filter((t) => takesValue(t.target) && pathRoleOf(t.target) === undefined);
    expect(undeclared.map(label)).toEqual([]);
  });

  it('the check sees a value that a new command registers the plain commander way', () => {
    const extra = new Command('new-command').option('--out <file>', 'where it goes').argument('[file]', 'a file');
    const found = everyPathTaken(extra).filter((t) => takesValue(t.target) && pathRoleOf(t.target) === undefined);
    expect(found.map(label)).toEqual(['bankdata --out <file>', 'bankdata <file>']);
  });

  it('finds the outputs: each command that writes a file declares one, a value it takes', () => {
    expect(outputs.length).toBeGreaterThan(0);
    for (const t of outputs) expect(takesValue(t.target), label(t)).toBe(true);
  });
});

let fx: FixtureStore;
let statementFile = '';
let directory = '';
let readOnly = '';
beforeAll(async () => {
  fx = await createFixtureStore();
  // The store stays open with its WAL, as while a sync runs.
  expect(existsSync(`${fx.path}-wal`)).toBe(true);
  statementFile = join(fx.dir, 'statements', 'PNZ', 'abc', 'def.pdf');
  mkdirSync(join(fx.dir, 'statements', 'PNZ', 'abc'), { recursive: true });
  writeFileSync(statementFile, '%PDF-1.4 a statement\n');
  directory = join(fx.dir, 'exports');
  mkdirSync(directory);
  writeFileSync(join(directory, 'kept.csv'), 'a,b\n');
  readOnly = join(fx.dir, 'read-only.csv');
  writeFileSync(readOnly, 'kept,as,it,is\n');
  chmodSync(readOnly, 0o444);
});
afterAll(() => fx.cleanup());

/** What must not change: bytes (or a directory's entries) and mtime. */
function snapshot(path: string): { content: string; mtimeMs: number } {
  const stat = statSync(path);
  const content = stat.isDirectory() ? readdirSync(path).sort().join('\n') : readFileSync(path).toString('base64');
  return { content, mtimeMs: stat.mtimeMs };
}

/** The argv that runs `t`'s command with `value` as the output; other required values are placeholders. */
function argvFor(t: Taken, value: string): string[] {
  const args: string[] = [];
  for (const argument of t.command.registeredArguments) {
    if (argument === t.target) args.push(value);
    else if (argument.required) args.push(argument.argChoices?.[0] ?? 'x');
  }
  const options: string[] = [];
  for (const option of t.command.options) {
    if (option === t.target) options.push(option.long ?? option.flags, value);
    else if (option.mandatory) options.push(option.long ?? option.flags, option.argChoices?.[0] ?? 'x');
  }
  return ['--db', fx.path, '--data-dir', fx.dir, ...t.path, ...args, ...options];
}

describe.each(outputs.map((t) => [label(t), t] as const))('%s', (_name, t) => {
  it.each([
    ['the database', () => fx.path],
    ['its WAL', () => `${fx.path}-wal`],
    ['a statement file', () => statementFile],
    ['a directory', () => directory],
    ['a read-only file', () => readOnly],
  ])('aimed at %s: exit 7, the target unchanged', async (_what, target) => {
    const path = target();
    const before = snapshot(path);
    const r = await runCliInProcess(argvFor(t, path), { cwd: fx.dir });
    expect(r.code, r.stderr).toBe(7);
    expect(r.stderr).toContain(path);
    expect(snapshot(path)).toEqual(before);
  });
});
