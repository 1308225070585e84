/**
 * Every value the completion script offers is one the command accepts: for every option and
 * argument of every command of the registry (src/cli/completion.ts `completionNodes` over
 * `buildFullProgram`) whose completion offers values, the list equals the choices commander
 * enforces when the option declares them, and each value is run through the command (in
 * process, with a context that stops it after its checks: a database that does not exist, a
 * port out of range) and passes. A list that neither declared choices nor a run here proves
 * fails the test, so a command added with offered values must say how to prove them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Argument, Command } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { completionNodes } from '../../src/cli/completion';
import { buildFullProgram } from '../../src/cli/main';
import { runCliInProcess } from './cli-process';

const dir = mkdtempSync(join(tmpdir(), 'bankdata-completion-values-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
/** A database that does not exist: a read command judges its flags first, then stops with exit 6. */
const missing = join(dir, 'missing', 'bankdata.sqlite');

interface Proof {
  argv: (value: string) => string[];
  /** How the run ends once the value has passed the command's checks. */
  code: number;
  stderr?: RegExp;
}

/** How to run a command with one offered value, by "PATH FLAG" or "PATH <argument>". */
const PROOFS: Record<string, Proof> = {
  'export <dataset>': { argv: (v) => ['export', v, '--format', 'json', '--db', missing], code: 6 },
  'export --format': {
    argv: (v) => ['export', 'transactions', '--format', v, '--account', 'acc-1', '--db', missing],
    code: 6,
  },
  'export --status': {
    argv: (v) => ['export', 'transactions', '--format', 'csv', '--status', v, '--db', missing],
    code: 6,
  },
  'export --ofx-dialect': {
    argv: (v) => [
      'export',
      'transactions',
      '--format',
      'ofx',
      '--account',
      'acc-1',
      '--ofx-dialect',
      v,
      '--db',
      missing,
    ],
    code: 6,
  },
  'changes --format': { argv: (v) => ['changes', '--format', v, '--db', missing], code: 6 },
  // The flags are judged in their order: a port out of range is refused after them.
  'emulator --faults': {
    argv: (v) => ['emulator', '--faults', v, '--port', '70000'],
    code: 2,
    stderr: /^bankdata: --port must be/,
  },
  'emulator --environment': {
    argv: (v) => ['emulator', '--environment', v, '--port', '70000'],
    code: 2,
    stderr: /^bankdata: --port must be/,
  },
  'completion <shell>': { argv: (v) => ['completion', v], code: 0 },
};

interface Offered {
  key: string;
  values: readonly string[];
  choices: readonly string[] | undefined;
}

/** The command at a node's path; none for `help …`, which offers command names and no values of its own. */
function commandAt(program: Command, path: string): Command | undefined {
  let command: Command | undefined = program;
  for (const name of path === '' ? [] : path.split('/')) command = command?.commands.find((c) => c.name() === name);
  return command;
}

/** Every option and argument whose completion offers values, with what the command declares. */
async function offered(): Promise<Offered[]> {
  const program = await buildFullProgram();
  const found: Offered[] = [];
  for (const node of completionNodes(program)) {
    const command = commandAt(program, node.path);
    const words = node.path.split('/').join(' ');
    for (const option of node.optionList) {
      const values = node.optionValues.get(option.long ?? option.short ?? '');
      if (values) found.push({ key: `${words} ${option.long ?? option.short}`, values, choices: option.argChoices });
    }
    node.argumentValues.forEach((values, i) => {
      const argument: Argument | undefined = command?.registeredArguments[i];
      expect(argument, `${words} argument ${i}`).toBeDefined();
      if (values && argument)
        found.push({ key: `${words} <${argument.name()}>`, values, choices: argument.argChoices });
    });
  }
  return found;
}

describe('completion offers only values the command accepts', () => {
  it('finds the offered lists (export, changes, emulator, completion, the global choices)', async () => {
    const keys = (await offered()).map((o) => o.key);
    expect(keys).toEqual(
      expect.arrayContaining([
        'export <dataset>',
        'export --format',
        'changes --format',
        'emulator --faults',
        'completion <shell>',
        'sync --log-level',
      ]),
    );
  });

  it('each offered list is the declared choices, or each value passes a run of the command', async () => {
    for (const { key, values, choices } of await offered()) {
      const proof = PROOFS[key];
      expect(choices !== undefined || proof !== undefined, `${key}: offers values no choices or run prove`).toBe(true);
      if (choices) expect(values, key).toEqual(choices);
      if (!proof) continue;
      for (const value of values) {
        const run = await runCliInProcess(proof.argv(value), { env: { BANKDATA_DATA_DIR: dir } });
        expect({ value, code: run.code, stderr: run.stderr.split('\n')[0] }, key).toMatchObject({
          value,
          code: proof.code,
          ...(proof.stderr ? { stderr: expect.stringMatching(proof.stderr) as unknown } : {}),
        });
      }
    }
  });
});
