/**
 * The man page (src/cli/man-page.ts; scripts/build.mjs writes it as man/bankdata.1, shipped in
 * the package): made from the registry, it renders with groff without a warning and names every
 * command, every option, every example, every exit code of src/errors.ts and every environment
 * variable the configuration reads.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { examplesOf } from '../../src/cli/command-help';
import { buildFullProgram } from '../../src/cli/main';
import { manPage } from '../../src/cli/man-page';
import { ENV_KEYS } from '../../src/config';
import { ExitCode } from '../../src/errors';

const hasGroff = spawnSync('groff', ['-v']).status === 0;
if (!hasGroff && !process.env.CI) console.warn('groff is not installed: the man page rendering test is skipped');

const program = await buildFullProgram();
const page = manPage(program);

/** The page as `man` shows it, one space between words. */
function rendered(): string {
  const out = spawnSync('groff', ['-man', '-Tutf8', '-ww'], { input: page, encoding: 'utf8' });
  expect(out.stderr).toBe('');
  expect(out.status).toBe(0);
  // No hyphenation or backspace overstrikes in the text compared.
  return execFileSync('col', ['-b'], { input: out.stdout, encoding: 'utf8' })
    .replace(/‐\n\s*/g, '')
    .replace(/\s+/g, ' ');
}

describe.skipIf(!hasGroff && !process.env.CI)('man/bankdata.1', () => {
  it('renders without a warning and names every command, option and example of the registry', () => {
    const text = rendered();
    const walk = (command: Command, path: string[]) => {
      for (const sub of command.commands) {
        const here = [...path, sub.name()];
        expect(text).toContain(`bankdata ${here.join(' ')}`);
        for (const option of sub.options) expect(text, `${here.join(' ')} ${option.flags}`).toContain(option.flags);
        for (const example of examplesOf(sub)) expect(text).toContain(`$ ${example.line}`);
        walk(sub, here);
      }
    };
    walk(program, []);
    for (const option of program.options) expect(text).toContain(option.flags);
  });

  it('lists the exit codes, the environment and the files', () => {
    const text = rendered();
    const section = (name: string) => text.slice(text.indexOf(name));
    for (const code of Object.values(ExitCode)) expect(section('EXIT STATUS')).toMatch(new RegExp(` ${code} `));
    for (const name of Object.keys(ENV_KEYS)) expect(section('ENVIRONMENT')).toContain(name);
    expect(section('ENVIRONMENT')).toContain('BANKDATA_CLIENT_SECRET_FILE');
    expect(section('FILES')).toContain('config.json');
  });

  it('the build wrote this page as man/bankdata.1', () => {
    expect(existsSync('man/bankdata.1')).toBe(true);
    expect(readFileSync('man/bankdata.1', 'utf8')).toBe(page);
  });
});
