/**
 * A small JSON-lines logger. Every line passes through `redact`, which replaces any value
 * registered as secret (client secrets, access tokens) wherever it appears, so a secret that
 * slips into a message or a field never reaches the output.
 */
import { redact } from '@bankdata/core/secrets';
import { terminalSafeJson } from '@bankdata/core/terminal-text';

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
