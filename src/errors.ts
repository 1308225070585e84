/** Exit codes of ARCHITECTURE.md (a public interface that scripts and cron depend on) and the errors that carry them. Shared by config, export and cli, so that none of them imports the CLI. */
export const ExitCode = {
  Ok: 0,
  /** finished, but some units failed or records were quarantined; or the service refused */
  Partial: 1,
  /** usage or configuration error, including a local rule check that fails */
  Usage: 2,
  /** authentication: credentials, environment, or a scope missing for everything asked */
  Auth: 3,
  /** another run holds the lock */
  Locked: 4,
  /** the service could not be reached or stayed unavailable after retries */
  Unavailable: 5,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** An error the CLI reports as it is: a message, an optional hint, and its exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** A usage or configuration error (exit 2). */
export class UsageError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, ExitCode.Usage, hint);
    this.name = 'UsageError';
  }
}
