/**
 * The `bankdata-emulator` command's logger: one JSON object per line on stderr, shaped as
 * bankdata's own lines are (`time`, `level`, `msg`, `component`, then the fields). Every line
 * passes `redact` (@bankdata/core/secrets: the client secrets and tokens the emulator issues are
 * registered there by auth.ts), and C1 controls, DEL and bidi overrides a client put in a path are
 * escaped, so a line is safe to print on a terminal and still valid JSON.
 */
import { redact } from '@bankdata/core/secrets';
import { terminalSafeJson } from '@bankdata/core/terminal-text';
import type { RequestLogger } from './index';

export interface JsonLinesLogger extends RequestLogger {
  error(msg: string, fields?: Record<string, unknown>): void;
}

/** Writes each line through `write` (default: stderr); `now` gives each line's real time. */
export function createJsonLinesLogger(
  write: (line: string) => void = (line) => process.stderr.write(line + '\n'),
  now: () => Date = () => new Date(),
): JsonLinesLogger {
  const emit = (level: 'info' | 'error', msg: string, fields?: Record<string, unknown>) => {
    const record = { time: now().toISOString(), level, msg, component: 'emulator', ...fields };
    const json = JSON.stringify(record, (_key, value: unknown) =>
      typeof value === 'bigint' ? value.toString() : value,
    );
    write(redact(terminalSafeJson(json)));
  };
  return {
    info: (msg, fields) => emit('info', msg, fields),
    error: (msg, fields) => emit('error', msg, fields),
  };
}
