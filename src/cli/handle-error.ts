/**
 * The one top-level error handler: one line on stderr, a hint line where one helps, and the
 * exit code of the README's table. Branches on error classes only. Messages pass through
 * `redact` (no secret reaches the terminal) and `terminalSafe` (no server text can move the
 * cursor or forge a line). A lost PostgreSQL connection is the database's error (exit 6, naming
 * host and database). An error no class covers is a bug: exit 70, one line, and the full
 * report (stack included, redacted) written to a private file whose path is printed.
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ZodError } from 'zod';
import {
  ApiError,
  AuthenticationError,
  ConfigurationError,
  IdempotencyError,
  ScopeMissingError,
  SECRET_REFUSED_HINT,
  SecretRefusedError,
  UnavailableError,
} from '../api';
import { lastOpenedPostgres, lostPostgresError } from '../database-url';
import { toLocalFileError } from '../fs/output-path';
import { redact } from '@bankdata/core/secrets';
import { lastOpenedDatabase, toDatabaseError } from '../store/sqlite/open';
import { RunLockedError } from '../sync/run';
import { errorFormat, finalErrorLines, type ErrorFormat, type FinalError } from './error-output';
import { CliError, ExitCode } from './exit-codes';

export { errorFormat } from './error-output';

interface Verdict {
  exitCode: ExitCode;
  message: string;
  hint?: string;
}

export function classifyError(error: unknown): Verdict {
  if (error instanceof CliError)
    return { exitCode: error.exitCode, message: error.message, ...(error.hint ? { hint: error.hint } : {}) };
  if (error instanceof RunLockedError) {
    return {
      exitCode: ExitCode.Locked,
      message: error.message,
      hint: 'wait for that run to finish; a lease whose holder died is taken over at once',
    };
  }
  if (error instanceof ZodError) {
    return {
      exitCode: ExitCode.Usage,
      message: `invalid input: ${error.issues.map((i) => `${i.path.join('.') || '(value)'}: ${i.message}`).join('; ')}`,
    };
  }
  if (error instanceof ApiError) {
    const where = [error.code, error.status, error.path].filter((x) => x !== null && x !== '').join(' ');
    const message = `${error.message}${where ? ` (${where})` : ''}${error.requestId ? ` request-id ${error.requestId}` : ''}`;
    if (error instanceof AuthenticationError || error instanceof ScopeMissingError) {
      return {
        exitCode: ExitCode.Auth,
        message,
        hint:
          error instanceof SecretRefusedError
            ? SECRET_REFUSED_HINT
            : 'check BANKDATA_CLIENT_ID / BANKDATA_CLIENT_SECRET and BANKDATA_ENVIRONMENT (sandbox vs production)',
      };
    }
    if (error instanceof UnavailableError) {
      return {
        exitCode: ExitCode.Unavailable,
        message,
        hint: 'the service could not be reached or stayed unavailable after retries; run again later',
      };
    }
    if (error instanceof ConfigurationError) return { exitCode: ExitCode.Usage, message };
    if (error instanceof IdempotencyError) return { exitCode: ExitCode.Partial, message };
    return { exitCode: ExitCode.Partial, message };
  }
  // The PostgreSQL server lost after the open (stopped, crashed, unreachable): exit 6, one line
  // naming host and database, wherever the loss surfaced.
  const postgres = lastOpenedPostgres();
  const lost = postgres ? lostPostgresError(error, postgres) : null;
  if (lost) return classifyError(lost);
  // A SQLite error after the open (damaged pages, a read-only file, a full disk): exit 6, named.
  const database = lastOpenedDatabase();
  if (database) {
    const mapped = toDatabaseError(database, error, { afterOpen: true });
    if (mapped !== error) return classifyError(mapped);
  }
  // A local file that could not be written (its path is on the error): exit 7, named.
  const path = (error as NodeJS.ErrnoException | null)?.path;
  if (typeof path === 'string') {
    const mapped = toLocalFileError(path, error);
    if (mapped !== error) return classifyError(mapped);
  }
  const message = error instanceof Error ? error.message : String(error);
  const report = writeReport(error);
  return {
    exitCode: ExitCode.Internal,
    message: `internal error (a bug): ${message.split('\n')[0]}`,
    hint: report
      ? `the full report is in ${report}; please attach it to a bug report`
      : 'the full report could not be written; run again with BANKDATA_DEBUG=1',
  };
}

/** The whole error, stack included and redacted, in a private file; null when it cannot be written. */
function writeReport(error: unknown): string | null {
  const file = join(tmpdir(), `bankdata-error-${new Date().toISOString().replace(/[:.]/g, '')}-${process.pid}.txt`);
  const text =
    error instanceof Error
      ? `${error.stack ?? error.message}\n${error.cause ? `cause: ${String(error.cause)}\n` : ''}`
      : `${String(error)}\n`;
  try {
    // Each argument redacted alone: a password written with spaces ends where its argument does.
    const args = process.argv.slice(2).map(redact).join(' ');
    writeFileSync(file, `bankdata ${args}\n${redact(text)}`, { mode: 0o600, flag: 'wx' });
    return file;
  } catch {
    return null;
  }
}

/**
 * Writes a command's last word that is no thrown error (a sync stopped by a signal) as the final
 * error is written: `bankdata: MESSAGE`, or one JSON line with `--log-format json`; shown with -q.
 */
export function writeFinalError(error: FinalError): void {
  process.stderr.write(finalErrorLines(error, errorFormat()));
}

/**
 * Writes the final error (src/cli/error-output.ts): `bankdata: MESSAGE` and `hint: HINT` lines,
 * or with the json format one JSON line of the logger's shape (`time`, `level` "error", `msg`,
 * `hint`, `exit_code`) for a collector. Returns the exit code.
 */
export function handleCliError(
  error: unknown,
  write: (s: string) => void = (s) => process.stderr.write(s),
  format: ErrorFormat = errorFormat(),
): number {
  const verdict = classifyError(error);
  const debugStack =
    verdict.exitCode === ExitCode.Internal && error instanceof Error && process.env.BANKDATA_DEBUG && error.stack
      ? error.stack
      : null;
  // A line per write, as a caller collecting them expects.
  for (const line of finalErrorLines({ ...verdict, stack: debugStack }, format).split(/(?<=\n)/)) write(line);
  return verdict.exitCode;
}
