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
 *   unchanged: its bytes and mtime (a directory: its entries and mtime);
 * - each declared output, aimed at a stream (/dev/stdout appended to a log, a FIFO with a reader:
 *   the real binary, its stdout the log), never replaces it: an output that takes a stream
 *   (`streams`) writes it straight through, exit 0; every other is refused with exit 7.
 */
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Argument, Command, Option } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFullProgram } from '../../src/cli/main';
import { declaredOutputs, pathRoleOf } from '../../src/cli/path-roles';
import { createFixtureStore, type FixtureStore } from '../export/fixture-store';
import { ended, fifoWithReader } from '../support/fifo-reader';
import { runCliInProcess, spawnCli } from './cli-process';

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

/**
 * The outputs that take a stream (`streams`), with what makes each write and what its bytes start
 * with: one declared later must be named here, or its case fails.
 */
const WRITES: Record<string, { args: string[]; startsWith: string }> = {
  'bankdata export --out <path>': { args: ['export', 'accounts', '--format', 'csv'], startsWith: 'bank,account_id,' },
  'bankdata report --out <file>': { args: ['report'], startsWith: '<!doctype html>' },
};

const takesStreams = (t: Taken) => declaredOutputs(t.command).find((d) => d.target === t.target)?.spec.streams === true;

/**
 * The argv that aims `t` at `value`: one that writes, for an output that takes a stream. Run
 * after `node --`, as bin/bankdata.js runs it: node would read `--env-file` as its own option.
 */
function streamArgv(t: Taken, value: string): string[] {
  if (!takesStreams(t)) return argvFor(t, value);
  const writes = WRITES[label(t)];
  if (!writes || !(t.target instanceof Option))
    throw new Error(`${label(t)} takes a stream: name what makes it write in WRITES`);
  return ['--db', fx.path, '--data-dir', fx.dir, ...writes.args, t.target.long ?? t.target.flags, value];
}

const EARLIER = 'earlier line 1\nearlier line 2\n';

describe.each(outputs.map((t) => [label(t), t] as const))('%s aimed at a stream', (_name, t) => {
  it('/dev/stdout, appended to a log: the log keeps its lines, inode and mode', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bankdata-devstdout-'));
    const log = join(dir, 'sync.log');
    writeFileSync(log, EARLIER);
    chmodSync(log, 0o644);
    const inode = statSync(log).ino;
    const fd = openSync(log, 'a');
    const run = spawnCli(streamArgv(t, '/dev/stdout'), { cwd: dir, stdout: fd, nodeArgs: ['--'] });
    closeSync(fd);
    const code = await ended(run.child);
    const text = readFileSync(log, 'utf8');
    expect(statSync(log).ino).toBe(inode);
    expect(statSync(log).mode & 0o777).toBe(0o644);
    expect(text.startsWith(EARLIER), text.slice(0, 200)).toBe(true);
    if (takesStreams(t)) {
      expect(code, run.stderr()).toBe(0);
      expect(text.slice(EARLIER.length).startsWith(WRITES[label(t)]!.startsWith)).toBe(true);
    } else {
      expect(code, run.stderr()).toBe(7);
      expect(run.stderr()).toContain('/dev/stdout: is standard output');
      expect(text).toBe(EARLIER);
    }
  }, 90_000);

  it('a FIFO with a reader: it stays a FIFO, and the reader gets the bytes or the command exits 7', async () => {
    const { dir, fifo, stillFifo: isFifo, stop } = fifoWithReader();
    const run = spawnCli(streamArgv(t, fifo), { cwd: dir, nodeArgs: ['--'] });
    const code = await ended(run.child);
    const stillFifo = isFifo();
    const got = await stop(takesStreams(t) && code === 0 && stillFifo);
    expect(stillFifo).toBe(true);
    if (takesStreams(t)) {
      expect(code, run.stderr()).toBe(0);
      expect(got.startsWith(WRITES[label(t)]!.startsWith)).toBe(true);
    } else {
      expect(code, run.stderr()).toBe(7);
      expect(run.stderr()).toContain(`${fifo}: is a FIFO`);
    }
  }, 90_000);
});
