/**
 * The one top-level error handler: a message on stderr, a hint where one helps, and the exit
 * code of ARCHITECTURE.md. Branches on error classes only. Messages pass through `redact` so
 * no secret reaches the terminal.
 */
import { ZodError } from 'zod';
import {
  ApiError,
  AuthenticationError,
  ConfigurationError,
  IdempotencyError,
  ScopeMissingError,
  UnavailableError,
} from '../api';
import { redact } from '../log';
import { RunLockedError } from '../sync/run';
import { CliError, ExitCode } from './exit-codes';

interface Verdict {
  exitCode: ExitCode;
  message: string;
  hint?: string;
}

export function classifyError(error: unknown): Verdict {
  if (error instanceof CliError) return { exitCode: error.exitCode, message: error.message, hint: error.hint };
  if (error instanceof RunLockedError) {
    return { exitCode: ExitCode.Locked, message: error.message, hint: 'wait for that run to finish' };
  }
  if (error instanceof ZodError) {
    return {
      exitCode: ExitCode.Usage,
      message: `invalid input:\n${error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n')}`,
    };
  }
  if (error instanceof ApiError) {
    const where = [error.code, error.status, error.path].filter((x) => x !== null && x !== '').join(' ');
    const message = `${error.message}${where ? ` (${where})` : ''}${error.requestId ? ` request-id ${error.requestId}` : ''}`;
    if (error instanceof AuthenticationError || error instanceof ScopeMissingError) {
      return { exitCode: ExitCode.Auth, message, hint: 'check BANKDATA_CLIENT_ID / BANKDATA_CLIENT_SECRET and BANKDATA_ENVIRONMENT (sandbox vs production)' };
    }
    if (error instanceof UnavailableError) {
      return { exitCode: ExitCode.Unavailable, message, hint: 'the service could not be reached or stayed unavailable after retries; run again later' };
    }
    if (error instanceof ConfigurationError) return { exitCode: ExitCode.Usage, message };
    if (error instanceof IdempotencyError) return { exitCode: ExitCode.Partial, message };
    return { exitCode: ExitCode.Partial, message };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { exitCode: ExitCode.Partial, message: `unexpected error: ${message}` };
}

export function handleCliError(error: unknown, write: (s: string) => void = (s) => process.stderr.write(s)): number {
  const verdict = classifyError(error);
  write(redact(`bankdata: ${verdict.message}\n`));
  if (verdict.hint) write(redact(`hint: ${verdict.hint}\n`));
  if (!(error instanceof CliError) && !(error instanceof ApiError) && error instanceof Error && process.env.BANKDATA_DEBUG && error.stack) {
    write(redact(`${error.stack}\n`));
  }
  return verdict.exitCode;
}
