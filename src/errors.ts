/** Exit codes of README.md (a public interface that scripts and cron depend on) and the errors that carry them. Shared by config, export and cli, so that none of them imports the CLI. */
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
  /** the database cannot be used: not a database, damaged, missing for a read-only command, read-only where writing is needed, or needs a migration first; names the path */
  Database: 6,
  /** a local file could not be written: the output path is a directory, a database, a statement file, unwritable, or the disk is full; names the path */
  LocalFile: 7,
  /** an internal error (a bug): one line, and where the full report was written */
  Internal: 70,
} as const;
/** Signals are not here: a run stopped by signal n exits 128 + n (130 SIGINT, 143 SIGTERM), as shells report it. */
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

/** The database at `path` cannot be used (exit 6); the message names the path. */
export class DatabaseError extends CliError {
  constructor(
    readonly path: string,
    reason: string,
    hint?: string,
  ) {
    super(`database ${path}: ${reason}`, ExitCode.Database, hint);
    this.name = 'DatabaseError';
  }
}

/** A local file at `path` could not be written (exit 7); the message names the path. */
export class LocalFileError extends CliError {
  constructor(
    readonly path: string,
    reason: string,
    hint?: string,
  ) {
    super(`${path}: ${reason}`, ExitCode.LocalFile, hint);
    this.name = 'LocalFileError';
  }
}

/**
 * The database cannot be written by this process (exit 6): the file or its directory is
 * read-only for this user. A command that only needs to read may open it read-only instead.
 */
export class ReadOnlyDatabaseError extends DatabaseError {
  constructor(path: string, reason: string, hint?: string) {
    super(path, reason, hint);
    this.name = 'ReadOnlyDatabaseError';
  }
}

/**
 * What to do about a database that does not exist or holds nothing yet: a consent registered
 * makes it (`sync` alone makes none: it would have nothing to sync, src/cli/sync.ts).
 */
export const NO_DATA_HINT =
  'register a consent with `bankdata consents add CONSENT_ID`, then run `bankdata sync`; or name the database with --db or BANKDATA_DB';
