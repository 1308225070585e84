/**
 * A small JSON-lines logger. Every line passes through `redact`, which replaces any value
 * registered as secret (client secrets, access tokens) wherever it appears, so a secret that
 * slips into a message or a field never reaches the output.
 */
import { terminalSafeJson } from './terminal-text';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
  readonly level: LogLevel;
}

const secrets = new Set<string>();

/** Registers a value that must never be printed. Short values are ignored (too many false hits). */
export function registerSecret(value: string | undefined | null): void {
  if (value && value.length >= 6) secrets.add(value);
}

/** Replaces every registered secret in a string with `[redacted]`. */
/**
 * A URL's password: `scheme://user:PASSWORD@host` (up to the token's last `@`, so a password with
 * an unencoded `/` or `@` is hidden whole) and `?password=` / `&sslpassword=` query parameters
 * (node-postgres reads both from a postgres:// database URL).
 */
const URL_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)\S*@/gi;
const QUERY_PASSWORD = /([?&](?:ssl)?password=)[^&\s]*/gi;

export function redact(text: string): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join('[redacted]');
  return out.replace(URL_PASSWORD, '$1[redacted]@').replace(QUERY_PASSWORD, '$1[redacted]');
}

export interface LoggerOptions {
  level?: LogLevel;
  sink?: (line: string) => void;
  fields?: Record<string, unknown>;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const level = options.level ?? 'info';
  const sink = options.sink ?? ((line: string) => process.stderr.write(line + '\n'));
  const base = options.fields ?? {};
  const emit = (lvl: Exclude<LogLevel, 'silent'>, msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[lvl] < ORDER[level]) return;
    const record = { time: new Date().toISOString(), level: lvl, msg, ...base, ...fields };
    // JSON escapes C0; C1, DEL and bidi overrides are escaped too (a server's text reaches a terminal).
    sink(redact(terminalSafeJson(JSON.stringify(record, errorReplacer))));
  };
  return {
    level,
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (fields) => createLogger({ level, sink, fields: { ...base, ...fields } }),
  };
}

function errorReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) {
    return { name: value.name, message: value.message, ...(value.cause ? { cause: value.cause } : {}) };
  }
  if (typeof value === 'bigint') return value.toString();
  return value;
}

/** A logger that drops everything (the default inside library code). */
export const silentLogger: Logger = createLogger({ level: 'silent' });
