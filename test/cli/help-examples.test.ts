/**
 * Every command's `--help` ends with two or three examples (src/cli/command-help.ts), and each
 * example parses against the registry (src/cli/main.ts COMMANDS, loaded as they run): its
 * command names lead to the command it illustrates (or, for a parent, one of its sub-commands), each option exists there or on the root
 * (global options), an option's value is given, and no more arguments than the command takes.
 */
import type { Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { examplesOf } from '../../src/cli/command-help';
import { buildFullProgram } from '../../src/cli/main';
import { runCliInProcess } from './cli-process';

const program = await buildFullProgram();
const all: { path: string[]; command: Command }[] = [];
const walk = (command: Command, path: string[]) => {
  if (path.length > 0) all.push({ path, command });
  for (const sub of command.commands) walk(sub, [...path, sub.name()]);
};
walk(program, []);

function optionOf(chain: readonly Command[], flag: string): Option | undefined {
  for (const command of [...chain].reverse()) {
    const found = command.options.find((o) => o.long === flag || o.short === flag);
    if (found) return found;
  }
  return undefined;
}

/** The problems of one example line, or [] when it parses to `target`. */
function problemsOf(line: string, target: Command): string[] {
  const words = line.split(/\s+/);
  const end = words.findIndex((w) => w === '>' || w === '|');
  const tokens = end === -1 ? words : words.slice(0, end);
  if (tokens[0] !== 'bankdata') return [`does not start with bankdata`];
  const chain: Command[] = [program];
  let positional = 0;
  const problems: string[] = [];
  for (let i = 1; i < tokens.length; i++) {
    const token = tokens[i]!;
    const current = chain.at(-1)!;
    if (token.startsWith('-')) {
      const [flag, inline] = token.split('=', 2) as [string, string | undefined];
      const option = optionOf(chain, flag);
      if (!option) problems.push(`unknown option ${flag} for ${current.name()}`);
      else if ((option.required || option.optional) && inline === undefined) {
        if (i + 1 >= tokens.length && option.required) problems.push(`${flag} without its value`);
        i += 1;
      }
      continue;
    }
    const sub = positional === 0 ? current.commands.find((c) => c.name() === token) : undefined;
    if (sub) chain.push(sub);
    else positional += 1;
  }
  const reached = chain.at(-1)!;
  // A parent's example (consents) shows one of its sub-commands.
  if (!chain.includes(target)) problems.push(`reaches ${reached.name()}, not ${target.name()}`);
  const args = reached.registeredArguments;
  const variadic = args.some((a) => a.variadic);
  if (!variadic && positional > args.length) problems.push(`${positional} arguments, ${args.length} taken`);
  const required = args.filter((a) => a.required).length;
  if (positional < required) problems.push(`${positional} arguments, ${required} required`);
  return problems;
}

describe.each(all.map((c) => [c.path.join(' '), c] as const))('bankdata %s --help', (_name, { path, command }) => {
  it('has two or three examples, each parsing to this command', () => {
    const examples = examplesOf(command);
    expect(examples.length).toBeGreaterThanOrEqual(2);
    expect(examples.length).toBeLessThanOrEqual(3);
    for (const example of examples) expect(problemsOf(example.line, command), example.line).toEqual([]);
  });

  it('ends with them under "Examples:"', async () => {
    const r = await runCliInProcess([...path, '--help']);
    expect(r.code).toBe(0);
    const tail = r.stdout.slice(r.stdout.lastIndexOf('\nExamples:\n'));
    expect(tail.startsWith('\nExamples:\n')).toBe(true);
    for (const example of examplesOf(command)) expect(tail).toContain(`$ ${example.line}`);
  });
});

describe('bankdata help COMMAND', () => {
  it.each<[string[]]>([[[]], ...all.map((c): [string[]] => [c.path])])(
    'bankdata help %j prints what --help prints, exit 0',
    async (path) => {
      const flag = await runCliInProcess([...path, '--help']);
      const help = await runCliInProcess(['help', ...path]);
      expect(help).toEqual({ code: 0, stdout: flag.stdout, stderr: '' });
      expect(flag.code).toBe(0);
    },
  );

  it('bankdata help sync shows the options of sync', async () => {
    const r = await runCliInProcess(['help', 'sync']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('--dry-run');
  });

  it('bankdata help nosuch: exit 2, one line naming it and a hint, nothing on stdout', async () => {
    const r = await runCliInProcess(['help', 'nosuch']);
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: "bankdata: unknown command 'nosuch'\nhint: add --help to see the usage\n",
    });
    const typo = await runCliInProcess(['help', 'snyc']);
    expect(typo).toEqual({
      code: 2,
      stdout: '',
      stderr: "bankdata: unknown command 'snyc'\nhint: did you mean 'sync'?\n",
    });
  });
});

describe('the parse check', () => {
  it('catches an unknown option, a wrong command and a missing argument', () => {
    const sync = program.commands.find((c) => c.name() === 'sync')!;
    const exportCommand = program.commands.find((c) => c.name() === 'export')!;
    expect(problemsOf('bankdata sync --fulll', sync)).toEqual(['unknown option --fulll for sync']);
    expect(problemsOf('bankdata status', sync)).toEqual(['reaches status, not sync']);
    expect(problemsOf('bankdata export --format csv', exportCommand)).toEqual(['0 arguments, 1 required']);
    expect(problemsOf('bankdata --db x.sqlite sync --json', sync)).toEqual([]);
  });
});
