/**
 * PostgreSQL connection URLs (docs/postgres.md): which locations select PostgreSQL, the URL safe
 * to show (no password), and the one-line reason a database cannot be used. No driver import, so
 * a command on a SQLite file never loads node-postgres (docs/architecture.md).
 */
import { DatabaseError, UsageError } from './errors';

/** True for the URLs that select PostgreSQL (`BANKDATA_DB`, `--db`). */
export function isPostgresUrl(value: string): boolean {
  return /^postgres(ql)?:\/\//i.test(value);
}

/** Query parameters of a connection URL that carry a secret (node-postgres reads both). */
const SECRET_PARAMS = ['password', 'sslpassword'];

/** The URL with any password (user info or query parameter) replaced, safe for logs and messages. */
export function redactPostgresUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    for (const name of SECRET_PARAMS) if (parsed.searchParams.has(name)) parsed.searchParams.set(name, '***');
    return parsed.toString();
  } catch {
    return 'postgres://(unparseable URL)';
  }
}

/** Checks that a database URL parses (a usage error otherwise, exit 2), without showing it. */
export function checkPostgresUrl(url: string): void {
  try {
    new URL(url);
  } catch {
    throw new UsageError(
      'the PostgreSQL URL does not parse (a password with / or @ must be percent-encoded: %2F, %40)',
      'postgres://USER:PASSWORD@HOST:PORT/DATABASE',
    );
  }
}

/** Where a URL points, for messages: host, port and database, never the user's password. */
export function postgresLocation(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname || 'localhost'}:${parsed.port || '5432'}/${decodeURIComponent(parsed.pathname.slice(1)) || '(default database)'}`;
  } catch {
    return '(unparseable PostgreSQL URL)';
  }
}

/**
 * Why a PostgreSQL database cannot be used, in one line that names where it is (exit 6 in the
 * CLI), from the driver's error code or the server's SQLSTATE, never from the message text.
 * Null when the error is not about reaching or using the database.
 */
export function describeUnusablePostgres(error: unknown, url: string): string | null {
  const where = `PostgreSQL database ${postgresLocation(url)}`;
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
  switch (code) {
    case 'ECONNREFUSED':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ECONNRESET':
      return `${where} cannot be reached (${code})`;
    case '28P01':
    case '28000':
      return `${where} refused the login (SQLSTATE ${code}: check the user and password in the URL)`;
    case '3D000':
      return `${where} does not exist (SQLSTATE 3D000: create it first, e.g. createdb)`;
    case '42501':
      return `${where} refused the permission needed (SQLSTATE 42501: the user must be able to create tables)`;
    case '57P01':
    case '57P03':
    case '53300':
      return `${where} is not accepting connections (SQLSTATE ${code})`;
    default:
      return null;
  }
}

/** SQLSTATE classes and codes that say the server went away: 08 (connection exception), 57P01-57P03 (shut down, crashed, starting). */
const LOST_SQLSTATE = /^(08...|57P0[123])$/;
/** The driver's network codes for a server that cannot be reached or dropped the connection. */
const LOST_ERRNO = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/**
 * node-postgres's own errors for a connection that ended, which carry no code (pg's client.js
 * and pg-pool): matched on their fixed wording, the only thing that tells them apart.
 */
const LOST_MESSAGE =
  /^(Connection terminated|Client has encountered a connection error and is not queryable|Client was closed and is not queryable|timeout exceeded when trying to connect)/;

/**
 * True when an error (or one it wraps as its `cause`: drizzle wraps the driver's) says the
 * connection to the PostgreSQL server was lost or could not be made: the server stopped, crashed,
 * restarted or cannot be reached. Not an error of a statement (a constraint, a bad value).
 */
export function isPostgresConnectionLoss(error: unknown): boolean {
  return causeChain(error).some(
    (e) =>
      LOST_ERRNO.has(codeOf(e)) ||
      LOST_SQLSTATE.test(codeOf(e)) ||
      (e instanceof Error && LOST_MESSAGE.test(e.message)),
  );
}

/** The error and those it wraps as `cause`, five at most. */
function causeChain(error: unknown): object[] {
  const chain: object[] = [];
  for (let e = error; chain.length < 5 && typeof e === 'object' && e !== null; e = 'cause' in e ? e.cause : undefined)
    chain.push(e);
  return chain;
}

function codeOf(error: object): string {
  return 'code' in error && error.code !== undefined && error.code !== null ? String(error.code) : '';
}

/**
 * A PostgreSQL server lost while a command used it, as the one-line database error (exit 6) that
 * names host and database (never the password), as when it cannot be reached at the start; null
 * when the error is not a lost connection.
 */
export function lostPostgresError(error: unknown, url: string): DatabaseError | null {
  if (!isPostgresConnectionLoss(error)) return null;
  const code =
    causeChain(error)
      .map(codeOf)
      .find((c) => c !== '') ?? '';
  return new DatabaseError(
    redactPostgresUrl(url),
    `PostgreSQL database ${postgresLocation(url)} was lost (${code || 'connection terminated'}); the unit in flight was abandoned whole`,
  );
}

/** The PostgreSQL database this process opened last, for mapping a lost connection (src/cli/handle-error.ts). */
let openedPostgres: string | null = null;

export function notePostgresOpened(url: string): void {
  openedPostgres = url;
}

export function lastOpenedPostgres(): string | null {
  return openedPostgres;
}
