/**
 * `man/bankdata.1`, made at build time (scripts/build.mjs) from the registry the CLI runs
 * (src/cli/main.ts): each command with its description, arguments, options and examples
 * (src/cli/command-help.ts), then the exit codes (src/errors.ts), the environment
 * (src/config/sources.ts ENV_KEYS and the secrets), and the files read. roff for `man -l`.
 */
import type { Command, Option } from 'commander';
import { version } from '../../package.json';
import { ENV_KEYS } from '../config';
import { ExitCode } from '../errors';
import { examplesOf } from './command-help';

/** The exit codes in README.md "Exit codes", as src/errors.ts defines them. */
const EXIT_CODES: readonly [number, string][] = [
  [ExitCode.Ok, 'success'],
  [ExitCode.Partial, 'finished, but some units failed or records were quarantined; or the service refused'],
  [ExitCode.Usage, 'usage or configuration error, including a local rule check that fails'],
  [ExitCode.Auth, 'authentication: credentials, environment, or a scope missing for everything asked'],
  [ExitCode.Locked, 'another run holds the lock'],
  [ExitCode.Unavailable, 'the service could not be reached or stayed unavailable after retries'],
  [
    ExitCode.Database,
    'the database cannot be used (missing for a read-only command, damaged, read-only, needs a migration)',
  ],
  [ExitCode.LocalFile, 'a local file could not be written or the output path is refused'],
  [ExitCode.Internal, 'an internal error (a bug): one line, and where the full report was written'],
  [130, 'stopped by SIGINT (128 + 2); 143: by SIGTERM'],
  [141, 'stdout was closed (a pipe into head)'],
];

const SECRETS: readonly [string, string][] = [
  [
    'BANKDATA_CLIENT_SECRET, BANKDATA_CLIENT_SECRET_FILE',
    'the Data API client secret, or a file holding it (one of the two)',
  ],
  [
    'BANKDATA_PAYMENTS_CLIENT_SECRET, BANKDATA_PAYMENTS_CLIENT_SECRET_FILE',
    'the Payments API client secret, or a file holding it',
  ],
  ['XDG_CONFIG_HOME', 'where the user configuration directory is (Linux; default ~/.config)'],
  ['NO_COLOR', 'honoured if colour is ever added'],
];

/**
 * Text for roff: backslashes escaped, a line never starting with a control character, dashes
 * literal, and every character outside ASCII as its `\[uXXXX]` escape (groff reads bytes).
 */
function roff(text: string): string {
  return text
    .replace(/\\/g, '\\e')
    .replace(/-/g, '\\-')
    .replace(
      /[\u0080-\u{10ffff}]/gu,
      (c) => `\\[u${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}]`,
    )
    .split('\n')
    .map((line) => (/^[.']/.test(line) ? `\\&${line}` : line))
    .join('\n');
}

const bold = (text: string) => `\\fB${roff(text)}\\fR`;

function optionEntry(option: Option): string[] {
  const fallback = option.defaultValue as unknown;
  const suffix =
    fallback === undefined || typeof fallback === 'boolean' || (Array.isArray(fallback) && fallback.length === 0)
      ? ''
      : ` (default: ${JSON.stringify(fallback)})`;
  const choices = option.argChoices ? ` One of: ${option.argChoices.join(', ')}.` : '';
  return ['.TP', bold(option.flags), roff(`${option.description}${suffix}.${choices}`.replace(/\.\./g, '.'))];
}

function commandSection(command: Command, path: readonly string[]): string[] {
  const usage = [...path, command.usage()].filter(Boolean).join(' ');
  const lines = ['.SS ' + bold(`bankdata ${usage}`), roff(command.description())];
  for (const argument of command.registeredArguments) {
    lines.push('.TP', `\\fI${roff(argument.name())}\\fR`, roff(argument.description || 'argument'));
  }
  for (const option of command.options) lines.push(...optionEntry(option));
  const examples = examplesOf(command);
  if (examples.length > 0) {
    lines.push('.PP', 'Examples:');
    for (const example of examples)
      lines.push('.PP', '.RS 4', `${bold(`$ ${example.line}`)}`, '.br', roff(example.says), '.RE');
  }
  return lines;
}

export function manPage(program: Command): string {
  const sections: string[] = [
    `.TH BANKDATA 1 "" "bankdata ${version}" "User Commands"`,
    '.SH NAME',
    `bankdata \\- ${roff(program.description())}`,
    '.SH SYNOPSIS',
    `${bold('bankdata')} [\\fIglobal options\\fR] \\fIcommand\\fR [\\fIoptions\\fR] [\\fIarguments\\fR]`,
    '.SH DESCRIPTION',
    roff(
      "bankdata syncs a New Zealand bank's Data API into SQLite or PostgreSQL, exports CSV, JSON and OFX, " +
        'draws an HTML report, checks balance continuity, makes payments, and serves an emulator of the API. ' +
        'Results go to stdout (one JSON document with --json); diagnostics to stderr.',
    ),
    '.SH GLOBAL OPTIONS',
    ...program.options.flatMap(optionEntry),
    '.SH COMMANDS',
  ];
  const walk = (command: Command, path: readonly string[]) => {
    for (const sub of command.commands) {
      sections.push(...commandSection(sub, [...path, sub.name()]));
      walk(sub, [...path, sub.name()]);
    }
  };
  walk(program, []);
  sections.push('.SH EXIT STATUS');
  for (const [code, meaning] of EXIT_CODES) sections.push('.TP', bold(String(code)), roff(meaning));
  sections.push('.SH ENVIRONMENT');
  for (const [name, key] of Object.entries(ENV_KEYS))
    sections.push('.TP', bold(name), roff(`sets the configuration key ${key}`));
  for (const [name, meaning] of SECRETS) sections.push('.TP', bold(name), roff(meaning));
  sections.push(
    '.SH FILES',
    '.TP',
    bold('$XDG_CONFIG_HOME/bankdata/config.json'),
    roff(
      'the user configuration (~/.config/bankdata/config.json on Linux, ~/Library/Preferences/bankdata/config.json on macOS); ' +
        'precedence: defaults, this file, ./config/local.json, the environment, the flags',
    ),
    '.TP',
    bold('./config/local.json'),
    roff('the configuration of the working directory'),
    '.TP',
    bold('./data/bankdata.sqlite'),
    roff('the database by default (BANKDATA_DB, BANKDATA_DATA_DIR, --db, --data-dir)'),
    '.SH SEE ALSO',
    roff(
      'The documentation shipped in the package: README.md, docs/configuration.md, docs/emulator.md, docs/exports.md.',
    ),
    '',
  );
  return sections.join('\n');
}
