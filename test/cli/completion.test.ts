/**
 * `bankdata completion bash|zsh`: the script the compiled CLI prints is loaded into a real bash
 * (and zsh) and its completion function called the way the shell calls it on TAB; the test
 * asserts what it offers: commands, sub-commands, options (global ones too), and values from
 * commander's choices or the known lists (datasets, formats).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DATASETS, FORMATS, OFX_DIALECTS } from '../../src/export';
import { runCliInProcess } from './cli-process';
import { buildFullProgram } from '../../src/cli/main';
import type { Command } from 'commander';

const dir = mkdtempSync(join(tmpdir(), 'bankdata-completion-'));
const hasZsh = spawnSync('zsh', ['-c', 'true']).status === 0;
if (!hasZsh && !process.env.CI) console.warn('zsh is not installed: the zsh completion test is skipped');
const hasFish = spawnSync('fish', ['-c', 'true']).status === 0;
if (!hasFish && !process.env.CI) console.warn('fish is not installed: the fish completion test is skipped');

/** What bash offers for the words (the last one is being completed), as COMPREPLY. */
function bashOffers(script: string, words: string[]): string[] {
  const line = words.map((w) => `'${w}'`).join(' ');
  const out = execFileSync(
    'bash',
    [
      '--norc',
      '-c',
      `source '${script}'; COMP_WORDS=(${line}); COMP_CWORD=${words.length - 1}; _bankdata; printf '%s\\n' "\${COMPREPLY[@]}"`,
    ],
    {
      encoding: 'utf8',
    },
  );
  return out.split('\n').filter((l) => l !== '');
}

/** What zsh's completion function adds (compadd and _files stubbed to print). */
function zshOffers(script: string, words: string[]): string[] {
  const line = words.map((w) => `'${w}'`).join(' ');
  // compadd offers the words that start with the prefix typed, as zsh's does.
  const stubs = `compdef() { :; }; compadd() { shift; local w; for w in "$@"; do [[ $w == "$PREFIX"* ]] && print -r -- $w; done; return 0; }; _files() { print -r -- '<files>'; }`;
  const run = `${stubs}; source '${script}'; words=(${line}); CURRENT=${words.length}; PREFIX=${line.split(' ').at(-1)}; _bankdata`;
  const out = execFileSync('zsh', ['-f', '-c', run], { encoding: 'utf8' });
  return out.split('\n').filter((l) => l !== '');
}

const TOP = [
  'demo',
  'sync',
  'status',
  'check',
  'categorise',
  'transfers',
  'report',
  'changes',
  'emulator',
  'export',
  'payments',
  'consents',
  'meta',
  'pacing',
  'alerts',
  'schedule',
  'db',
  'completion',
  'help',
];

describe('bankdata completion bash', () => {
  const script = join(dir, 'bankdata.bash');
  beforeAll(async () => {
    const run = await runCliInProcess(['completion', 'bash']);
    expect(run.code).toBe(0);
    writeFileSync(script, run.stdout);
  });

  it('offers the commands, and those that start with the word', () => {
    expect(bashOffers(script, ['bankdata', ''])).toEqual(TOP);
    expect(bashOffers(script, ['bankdata', 'co'])).toEqual(['consents', 'completion']);
  });

  it('offers help (README: bankdata help COMMAND [SUBCOMMAND]), then the commands, then their sub-commands; each help page it leads to exits 0', async () => {
    expect(bashOffers(script, ['bankdata', 'he'])).toEqual(['help']);
    const commands = bashOffers(script, ['bankdata', 'help', '']);
    expect(commands).toEqual(TOP.filter((c) => c !== 'help'));
    expect(bashOffers(script, ['bankdata', '--db', 'x.sqlite', 'help', 'consents', ''])).toEqual([
      'add',
      'list',
      'show',
      'revoke',
      'create',
      'forget',
    ]);
    for (const words of [...commands.map((c) => [c]), ['consents', 'create'], ['db', 'copy']]) {
      const run = await runCliInProcess(['help', ...words]);
      // The page `bankdata WORDS --help` prints, whose usage line names the command.
      expect({ code: run.code, usage: run.stdout.split('\n')[0] }, words.join(' ')).toEqual({
        code: 0,
        usage: expect.stringMatching(new RegExp(`^Usage: bankdata ${words.join(' ')} `)) as unknown,
      });
    }
  });

  it('offers the dataset names after export, with or without global options before', () => {
    expect(bashOffers(script, ['bankdata', 'export', ''])).toEqual([...DATASETS]);
    expect(bashOffers(script, ['bankdata', '--db', 'x.sqlite', 'export', 'pay'])).toEqual([
      'payments',
      'payment_matches',
    ]);
    // After the dataset, nothing known: bash falls back to file names (complete -o default).
    expect(bashOffers(script, ['bankdata', 'export', 'accounts', ''])).toEqual([]);
  });

  it("offers an option's values: formats, choices declared in commander, log levels, shells", () => {
    expect(bashOffers(script, ['bankdata', 'export', 'transactions', '--format', ''])).toEqual([...FORMATS]);
    // bash splits --format=… at '=' (COMP_WORDBREAKS)
    expect(bashOffers(script, ['bankdata', 'export', 'transactions', '--format', '=', 'n'])).toEqual(['ndjson']);
    // changes declares its own formats: the export list is not offered there.
    expect(bashOffers(script, ['bankdata', 'changes', '--format', ''])).toEqual(['ndjson', 'json']);
    expect(bashOffers(script, ['bankdata', 'consents', 'create', '--flow', ''])).toEqual([
      'gateway',
      'redirect',
      'decoupled',
    ]);
    expect(bashOffers(script, ['bankdata', 'sync', '--log-level', 'd'])).toEqual(['debug']);
    expect(bashOffers(script, ['bankdata', 'completion', ''])).toEqual(['bash', 'zsh', 'fish']);
    expect(bashOffers(script, ['bankdata', 'export', 'transactions', '--ofx-dialect', ''])).toEqual([...OFX_DIALECTS]);
    // A value with no known list: file names.
    expect(bashOffers(script, ['bankdata', 'export', 'accounts', '--out', ''])).toEqual([]);
  });

  it("offers a command's options and the global ones; a valued option's value is not taken for a command", () => {
    const sync = bashOffers(script, ['bankdata', 'sync', '--']);
    expect(sync).toEqual(
      expect.arrayContaining([
        '--consent',
        '--since',
        '--full',
        '--dry-run',
        '--json',
        '--db',
        '--data-dir',
        '--log-level',
        '--help',
      ]),
    );
    expect(sync).not.toContain('--format');
    expect(bashOffers(script, ['bankdata', '--data-dir', 'sync', 'export', '--f'])).toEqual(['--format', '--from']);
    expect(bashOffers(script, ['bankdata', 'consents', ''])).toEqual([
      'add',
      'list',
      'show',
      'revoke',
      'create',
      'forget',
    ]);
    expect(bashOffers(script, ['bankdata', 'consents', 'create', '--no'])).toEqual(['--no-wait']);
  });
});

describe.skipIf(!hasZsh && !process.env.CI)(`bankdata completion zsh${hasZsh ? '' : ' (zsh missing)'}`, () => {
  const script = join(dir, '_bankdata');
  beforeAll(async () => {
    const run = await runCliInProcess(['completion', 'zsh']);
    expect(run.code).toBe(0);
    writeFileSync(script, run.stdout);
  });

  it('offers the same: commands, datasets, option values, options; files where nothing is known', () => {
    expect(zshOffers(script, ['bankdata', ''])).toEqual(TOP);
    expect(zshOffers(script, ['bankdata', 'he'])).toEqual(['help']);
    expect(zshOffers(script, ['bankdata', 'help', 'cons'])).toEqual(['consents']);
    expect(zshOffers(script, ['bankdata', 'export', ''])).toEqual([...DATASETS]);
    expect(zshOffers(script, ['bankdata', 'export', 'accounts', '--format=n'])).toEqual(['--format=ndjson']);
    expect(zshOffers(script, ['bankdata', 'consents', 'create', '--flow', ''])).toEqual([
      'gateway',
      'redirect',
      'decoupled',
    ]);
    expect(zshOffers(script, ['bankdata', 'sync', '--'])).toEqual(expect.arrayContaining(['--dry-run', '--db']));
    expect(zshOffers(script, ['bankdata', 'export', 'accounts', '--out', ''])).toEqual(['<files>']);
  });
});

/** What fish offers for the command line typed so far (`complete -C`), candidates only. */
function fishOffers(script: string, line: string): string[] {
  const out = execFileSync('fish', ['--no-config', '-c', `source '${script}'; complete -C '${line}'`], {
    encoding: 'utf8',
  });
  return out
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => l.split('\t')[0]!);
}

describe.skipIf(!hasFish && !process.env.CI)(`bankdata completion fish${hasFish ? '' : ' (fish missing)'}`, () => {
  const script = join(dir, 'bankdata.fish');
  beforeAll(async () => {
    const run = await runCliInProcess(['completion', 'fish']);
    expect(run.code).toBe(0);
    writeFileSync(script, run.stdout);
  });

  it('is valid fish (fish -n)', () => {
    expect(spawnSync('fish', ['--no-config', '-n', script]).status).toBe(0);
  });

  it('covers every command and every option of the registry', async () => {
    const program = await buildFullProgram();
    const globals = program.options.filter((o) => o.long !== '--version').map((o) => o.long!);
    const walk = (command: Command, path: string[]) => {
      const line = ['bankdata', ...path].join(' ');
      // The root offers help too, which is no command of the full program (src/cli/main.ts buildProgram).
      const names = [...command.commands.map((c) => c.name()), ...(path.length === 0 ? ['help'] : [])];
      if (command.commands.length > 0) expect(fishOffers(script, `${line} `).sort(), line).toEqual(names.sort());
      const longs = [...command.options.map((o) => o.long!), ...(path.length > 0 ? globals : []), '--help'];
      expect(fishOffers(script, `${line} --`), line).toEqual(expect.arrayContaining(longs));
      for (const sub of command.commands) walk(sub, [...path, sub.name()]);
    };
    walk(program, []);
  });

  it("offers values: datasets, an option's values, the shells; a global option's value is not taken for a command", () => {
    expect(fishOffers(script, 'bankdata export ').sort()).toEqual([...DATASETS].sort());
    expect(fishOffers(script, 'bankdata export transactions --format ').sort()).toEqual([...FORMATS].sort());
    expect(fishOffers(script, 'bankdata consents create --flow ').sort()).toEqual(['decoupled', 'gateway', 'redirect']);
    expect(fishOffers(script, 'bankdata completion ').sort()).toEqual(['bash', 'fish', 'zsh']);
    expect(fishOffers(script, 'bankdata he')).toEqual(['help']);
    expect(fishOffers(script, 'bankdata help cons')).toEqual(['consents']);
    expect(fishOffers(script, 'bankdata help consents ').sort()).toEqual([
      'add',
      'create',
      'forget',
      'list',
      'revoke',
      'show',
    ]);
    expect(fishOffers(script, 'bankdata --data-dir sync export --f').sort()).toEqual(['--format', '--from']);
  });
});
