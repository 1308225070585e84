/**
 * The final error as it reaches stderr (README "Output" and "Exit codes"): `bankdata: MESSAGE`
 * and at most one `hint: HINT` line, or with the json format one JSON line of the logger's shape.
 * Every text passes through `redact` (a registered secret, or the password of any URL, never
 * reaches the terminal) and the terminal-safe escaping. Light (no store, no HTTP client): the
 * usage errors commander reports (src/cli/main.ts) are written through it before any command
 * loads, every other error through src/cli/handle-error.ts.
 */
import { redact } from '@bankdata/core/secrets';
import { terminalSafe, terminalSafeJson } from '@bankdata/core/terminal-text';
import { ExitCode } from '../errors';

export type ErrorFormat = 'text' | 'json';

/**
 * The format of the final error: `json` when `--log-format json` (or `--log-format=json`) is on
 * the command line, the last one given winning, else when BANKDATA_LOG_FORMAT is `json`; `text`
 * otherwise. Read from argv because the error may come before or outside the parsed options.
 */
export function errorFormat(
  argv: readonly string[] = process.argv.slice(2),
  env: NodeJS.ProcessEnv = process.env,
): ErrorFormat {
  let given: string | undefined;
  for (const [i, arg] of argv.entries()) {
    if (arg === '--') break;
    if (arg === '--log-format') given = argv[i + 1];
    else if (arg.startsWith('--log-format=')) given = arg.slice('--log-format='.length);
  }
  return (given ?? env.BANKDATA_LOG_FORMAT) === 'json' ? 'json' : 'text';
}

export interface FinalError {
  message: string;
  hint?: string | undefined;
  exitCode: number;
  /** Written after the lines (BANKDATA_DEBUG on an internal error). */
  stack?: string | null | undefined;
}

/**
 * The lines of the final error: `bankdata: MESSAGE` and `hint: HINT`, or with the json format
 * one JSON line (`time`, `level` "error", `msg`, `hint`, `exit_code`) for a collector.
 */
export function finalErrorLines(error: FinalError, format: ErrorFormat): string {
  if (format === 'json') {
    const record = {
      time: new Date().toISOString(),
      level: 'error',
      // Redacted before JSON escapes them: an escaped secret would no longer match.
      msg: redact(error.message),
      ...(error.hint ? { hint: redact(error.hint) } : {}),
      exit_code: error.exitCode,
      ...(error.stack ? { stack: redact(error.stack) } : {}),
    };
    return `${redact(terminalSafeJson(JSON.stringify(record)))}\n`;
  }
  let out = `bankdata: ${terminalSafe(redact(error.message))}\n`;
  if (error.hint) out += `hint: ${terminalSafe(redact(error.hint))}\n`;
  if (error.stack) out += `${terminalSafe(redact(error.stack)).replace(/\\u\{a\}/g, '\n')}\n`;
  return out;
}

/**
 * A commander error (an unknown command or option, a missing argument or required option, an
 * invalid choice) as the final error of a usage error, exit 2: commander's suggestion
 * (`(Did you mean export?)`, on a line of its own) becomes the hint `did you mean 'export'?`;
 * without one, the hint points at --help. Commander echoes what was typed (`unknown option
 * '--bd=postgres://user:PASSWORD@host/db'`): redacted as every other message.
 */
export function commanderErrorLines(text: string, format: ErrorFormat): string {
  const lines = text
    .replace(/^error: /, '')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const suggestion = lines.map((line) => /^\(Did you mean (.+)\?\)$/.exec(line)).find(Boolean);
  const message = lines.filter((line) => !/^\(Did you mean .+\?\)$/.test(line)).join('; ');
  const hint = suggestion ? `did you mean '${suggestion[1]}'?` : 'add --help to see the usage';
  return finalErrorLines({ message, hint, exitCode: ExitCode.Usage }, format);
}
