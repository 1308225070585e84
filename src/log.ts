/**
 * The one logger: every diagnostic of a command (warnings, notes, retries, errors a command
 * reports and goes on) goes through it to stderr, so that `--log-level` (and `-q`, `-v`) rules
 * all of them, and stdout carries the command's result only.
 *
 * Two formats. `text` (the default of the CLI) is one line per record, as a person reads it:
 * `bankdata: warning: MESSAGE (key=value, …)`; `json` (`--log-format json` or
 * `BANKDATA_LOG_FORMAT=json`) is one JSON object per line, for log collectors. Every line passes
 * through `redact`, which replaces any value registered as secret (client secrets, access tokens)
 * wherever it appears, and through the terminal-safe escaping of server text.
 */
import { redact } from '@bankdata/core/secrets';
import { terminalSafe, terminalSafeJson } from '@bankdata/core/terminal-text';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error', 'silent'];
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

export type LogFormat = 'text' | 'json';
export const LOG_FORMATS: readonly LogFormat[] = ['text', 'json'];

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  /**
   * A command's summary line (`exported N … rows to PATH`, `backed up …`): shown wherever a warning
   * is (the default level and below), so `-q` (errors only) leaves it out; level `notice` in JSON,
   * no word before the message in text. Not a level of its own to choose.
   */
  notice(msg: string, fields?: Record<string, unknown>): void;
  /**
   * A line the user must see for the command to go on (the URL a customer opens while
   * `consents create --json` waits): written whatever the level, `-q` and `silent` included, as
   * the final error is; level `prompt` in JSON, no word before the message in text.
   */
  prompt(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
  /** Whether a record of this level would be written (to skip work that only feeds the log). */
  enabled(level: Exclude<LogLevel, 'silent'>): boolean;
  readonly level: LogLevel;
  readonly format: LogFormat;
}

export interface LoggerOptions {
  level?: LogLevel;
  /** `json` when not given (library use and tests); the CLI passes its `--log-format`. */
  format?: LogFormat;
  sink?: (line: string) => void;
  fields?: Record<string, unknown>;
}

/**
 * What a record is: a level, a notice (written as a warning is, README "Output"), or a prompt
 * (written whatever the level).
 */
type RecordLevel = Exclude<LogLevel, 'silent'> | 'notice' | 'prompt';
const RANK: Record<RecordLevel, number> = { ...ORDER, notice: ORDER.warn, prompt: ORDER.silent + 1 };

/** The word a text line puts before the message, by level (an info line and a notice have none). */
const TEXT_PREFIX: Record<RecordLevel, string> = {
  debug: 'debug: ',
  info: '',
  notice: '',
  prompt: '',
  warn: 'warning: ',
  error: 'error: ',
};

export function createLogger(options: LoggerOptions = {}): Logger {
  const level = options.level ?? 'info';
  const format = options.format ?? 'json';
  const sink = options.sink ?? ((line: string) => process.stderr.write(line + '\n'));
  const base = options.fields ?? {};
  const enabled = (lvl: Exclude<LogLevel, 'silent'>) => ORDER[lvl] >= ORDER[level];
  const emit = (lvl: RecordLevel, msg: string, fields?: Record<string, unknown>) => {
    if (RANK[lvl] < ORDER[level]) return;
    if (format === 'text') {
      sink(textLine(lvl, msg, { ...base, ...fields }));
      return;
    }
    const record = { time: new Date().toISOString(), level: lvl, msg, ...base, ...fields };
    // JSON escapes C0; C1, DEL and bidi overrides are escaped too (a server's text reaches a terminal).
    // Every text is redacted before it is escaped (errorReplacer), and the line once more after.
    sink(redact(terminalSafeJson(JSON.stringify(record, errorReplacer))));
  };
  return {
    level,
    format,
    enabled,
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    notice: (m, f) => emit('notice', m, f),
    prompt: (m, f) => emit('prompt', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (fields) => createLogger({ level, format, sink, fields: { ...base, ...fields } }),
  };
}

/**
 * One record as a text line: `bankdata: warning: MESSAGE (key=value, …)`. A `hint` field is
 * not a field but a second line, `hint: …`, as the error handler writes it.
 */
function textLine(lvl: RecordLevel, msg: string, fields: Record<string, unknown>): string {
  const { hint, ...rest } = fields;
  const shown = Object.entries(rest)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${key}=${fieldText(value)}`);
  const line = `bankdata: ${TEXT_PREFIX[lvl]}${msg}${shown.length > 0 ? ` (${shown.join(', ')})` : ''}`;
  const hintLine = typeof hint === 'string' && hint !== '' ? `\nhint: ${terminalSafe(redact(hint))}` : '';
  // One line per record: a newline inside server text is shown escaped, never as a second line.
  return `${terminalSafe(redact(line))}${hintLine}`;
}

function fieldText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value instanceof Error) return value.message;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value, errorReplacer) ?? String(value);
}

function errorReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) {
    return { name: value.name, message: value.message, ...(value.cause ? { cause: value.cause } : {}) };
  }
  if (typeof value === 'bigint') return value.toString();
  // Each text redacted before JSON escapes it: a secret holding `"`, `\` or a control character
  // would no longer match once escaped.
  if (typeof value === 'string') return redact(value);
  return value;
}

/**
 * A JSON line for stdout with every text redacted before JSON escapes it, and the line once more
 * after (as the logger's records): a secret holding `"` or `\` no longer matches once escaped.
 */
export function redactedJsonLine(value: unknown): string {
  return redact(JSON.stringify(value, errorReplacer));
}

/** A logger that drops everything (the default inside library code). */
export const silentLogger: Logger = createLogger({ level: 'silent' });
