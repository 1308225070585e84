/**
 * The one top-level error handler: a message on stderr, a hint where one helps, and the exit
 * code of ARCHITECTURE.md. Messages pass through `redact` so no secret reaches the terminal.
 */
import { ZodError } from 'zod';
import { redact } from '../log';
import { CliError, ExitCode } from './exit-codes';

export function handleCliError(error: unknown, write: (s: string) => void = (s) => process.stderr.write(s)): number {
  if (error instanceof CliError) {
    write(redact(`bankdata: ${error.message}\n`));
    if (error.hint) write(redact(`hint: ${error.hint}\n`));
    return error.exitCode;
  }
  if (error instanceof ZodError) {
    write(redact(`bankdata: invalid configuration:\n${error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n')}\n`));
    return ExitCode.Usage;
  }
  const message = error instanceof Error ? error.message : String(error);
  write(redact(`bankdata: unexpected error: ${message}\n`));
  if (error instanceof Error && error.stack && process.env.BANKDATA_DEBUG) write(redact(error.stack + '\n'));
  return ExitCode.Partial;
}
