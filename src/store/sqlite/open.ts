/**
 * Opens the database. Writing: creates it when missing (directory 0700 and file 0600, only
 * what this function created), WAL, foreign keys on, a busy timeout, migrations applied with
 * drizzle's migrator (or refused, see `migrate`). Read-only: never creates, never writes a
 * pragma or a migration; a database that needs a migration is refused with a hint to run
 * `bankdata db migrate`. Nothing that exists is ever chmod-ed: a path the user named (a
 * directory, a device, a read-only file) keeps its permissions, and anything that is not a
 * SQLite file is refused before SQLite touches it (docs/security.md "Local misuse").
 */
import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  statSync,
} from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { DatabaseError, NO_DATA_HINT, ReadOnlyDatabaseError } from '../../errors';
import { markDataDirectory } from '../../fs/data-dir';
import { pathToFileURL } from 'node:url';
import { MIGRATIONS_PATH } from '../../paths';
import type { BankdataDb } from './db';
import { nzOffsets } from './schema';
import { nzOffsetTransitions } from '../time';
import {
  migrationFailed,
  readJournal,
  refuseUnknownMigrations,
  schemaState,
  type SchemaState,
} from '../migration-versions';

/** Beside this file in the sources; the compiled program finds it through src/paths.ts. */
export const MIGRATIONS_DIR = MIGRATIONS_PATH;
const BUSY_TIMEOUT_MS = 10_000;
/**
 * Years covered by nz_offsets (the views' NZ dates of instants, v_consents.days_to_expiry); NULL
 * outside them. From 1900, not 2000: a statement or a value date of the last century is dated in
 * the views as PostgreSQL dates it (AT TIME ZONE, the whole zone history).
 */
const NZ_OFFSET_YEARS = { from: 1900, to: 2100 } as const;
const SQLITE_HEADER = 'SQLite format 3\0';
export const MIGRATE_HINT = 'run `bankdata db migrate` (it takes a backup first)';

export interface OpenedDatabase {
  sqlite: Database.Database;
  db: BankdataDb;
  path: string;
}

export interface OpenDatabaseOptions {
  /** Open read-only: never create, never write (status, export, meta, consents list). */
  readOnly?: boolean;
  /**
   * Writing opens only: 'apply' (default) migrates; 'refuse-existing' migrates only a database
   * with no migration applied yet (nothing to lose) and refuses any other with exit 6 and the
   * `bankdata db migrate` hint (the CLI's writers: a migration is taken after a backup).
   */
  migrate?: 'apply' | 'refuse-existing';
  /** Read-only opens only: accept a database with pending migrations or none (backup, migrate). */
  allowPending?: boolean;
}

/** Why the file cannot be a database, checked before SQLite opens it (null: it can be one). */
function checkFile(file: string): { exists: boolean } {
  let link;
  try {
    link = lstatSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { exists: false };
    throw new DatabaseError(file, `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const stat = link.isSymbolicLink() ? statSafe(file) : link;
  if (!stat) throw new DatabaseError(file, 'is a dangling symbolic link');
  if (stat.isDirectory())
    throw new DatabaseError(file, 'is a directory, not a database file', 'name a file with --db or BANKDATA_DB');
  if (!stat.isFile()) throw new DatabaseError(file, 'is not a regular file', 'name a file with --db or BANKDATA_DB');
  if (stat.size > 0) {
    const header = Buffer.alloc(16);
    let fd: number | null = null;
    try {
      fd = openSync(file, 'r');
      readSync(fd, header, 0, 16, 0);
    } catch (error) {
      throw new DatabaseError(file, `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    } finally {
      if (fd !== null) closeSync(fd);
    }
    if (header.toString('latin1') !== SQLITE_HEADER)
      throw new DatabaseError(file, 'is not a SQLite database', 'name the bankdata database with --db or BANKDATA_DB');
  }
  return { exists: true };
}

function writable(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

function statSafe(file: string) {
  try {
    return statSync(file);
  } catch {
    return null;
  }
}

/**
 * What drizzle's migrations table says about the open database against this binary's journal
 * (../migration-versions.ts). Every open passes here, reader or writer, and a database that a
 * newer bankdata migrated is refused (exit 6) before anything reads or writes it.
 */
export function migrationState(sqlite: Database.Database, file: string): SchemaState {
  const table = sqlite
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'")
    .get();
  const rows = table
    ? (sqlite.prepare('SELECT hash, created_at FROM __drizzle_migrations').all() as {
        hash: string;
        created_at: number;
      }[])
    : [];
  const state = schemaState(
    readJournal(MIGRATIONS_DIR),
    rows.map((r) => ({ hash: String(r.hash), createdAt: Number(r.created_at) })),
  );
  refuseUnknownMigrations(file, state, `the copy taken before it (${basename(file)}.before-migrate-*.sqlite)`);
  return state;
}

/**
 * SQLite's answers to a statement that is wrong, not to a database that cannot be used: a broken
 * constraint, SQL that does not fit the schema (SQL logic error), a value or parameter of the
 * wrong kind, the API misused. A bug, as PostgreSQL's same errors are (exit 70).
 */
const STATEMENT_BUGS = new Set([
  'SQLITE_CONSTRAINT',
  'SQLITE_ERROR',
  'SQLITE_MISMATCH',
  'SQLITE_RANGE',
  'SQLITE_MISUSE',
]);

/**
 * A SQLite error from better-sqlite3 as exit 6, naming the path; anything else as it is. After the
 * open (`afterOpen`: a command's statements), a statement's bug (`STATEMENT_BUGS`) stays as it is
 * too; while opening, every SQLite error says the file cannot be used (another program's
 * database whose tables are not ours answers SQLITE_ERROR: the user's file, not our bug).
 */
export function toDatabaseError(file: string, error: unknown, options: { afterOpen?: boolean } = {}): unknown {
  if (error instanceof DatabaseError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code.startsWith('SQLITE_')) {
    if (options.afterOpen === true && STATEMENT_BUGS.has(code.split('_').slice(0, 2).join('_'))) return error;
    const reason: Record<string, string> = {
      SQLITE_NOTADB: 'is not a SQLite database',
      SQLITE_CORRUPT: 'is damaged',
      SQLITE_READONLY: 'is read-only for this user and this command writes to it',
      SQLITE_CANTOPEN: 'cannot be opened',
      SQLITE_IOERR: 'could not be read or written (I/O error)',
      SQLITE_FULL: 'could not be written: the disk is full',
      SQLITE_PERM: 'may not be accessed (permission denied)',
    };
    if (code === 'SQLITE_READONLY_DIRECTORY')
      return new ReadOnlyDatabaseError(
        file,
        `cannot be written by this user: its directory is read-only, and SQLite writes ${basename(file)}-wal and -shm beside it (${code})`,
      );
    const base = code.split('_').slice(0, 2).join('_');
    if (base === 'SQLITE_READONLY') return new ReadOnlyDatabaseError(file, `${reason[base]} (${code})`);
    return new DatabaseError(file, `${reason[base] ?? 'cannot be used'} (${code})`);
  }
  return error;
}

/**
 * A writer migrates a database that holds nothing yet; one that holds tables but no bankdata
 * migration is another program's file (a mistyped --db): refused (exit 6) before anything is
 * written to it, its journal mode included, rather than given bankdata's tables beside its own.
 */
function refuseForeignDatabase(sqlite: Database.Database, file: string): void {
  const tables = sqlite
    .prepare(
      "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
    )
    .all() as { name: string }[];
  if (tables.length === 0 || tables.some((t) => t.name === '__drizzle_migrations')) return;
  throw new DatabaseError(
    file,
    `is not a bankdata database: it holds ${tables.length} table(s) of another program and no bankdata migration`,
    'name the bankdata database, or a new file, with --db or BANKDATA_DB',
  );
}

let lastOpened: string | null = null;
/** The database this process opened last: named by the CLI's error handler for a SQLite error. */
export function lastOpenedDatabase(): string | null {
  return lastOpened;
}

export function openDatabase(path: string, options: OpenDatabaseOptions = {}): OpenedDatabase {
  const file = resolve(path);
  lastOpened = file;
  const { exists } = checkFile(file);
  if (options.readOnly) {
    if (!exists) throw new DatabaseError(file, 'does not exist', NO_DATA_HINT);
    return openReadOnly(file, options.allowPending ?? false);
  }
  if (!exists) create(file);

  let sqlite: Database.Database;
  try {
    sqlite = new Database(file, { fileMustExist: true });
  } catch (error) {
    throw toDatabaseError(file, error);
  }
  try {
    refuseForeignDatabase(sqlite, file);
    sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    const db = drizzle(sqlite);
    const state = migrationState(sqlite, file);
    if (state.pending.length > 0 && state.applied > 0 && options.migrate === 'refuse-existing') {
      throw new DatabaseError(
        file,
        `needs ${state.pending.length} migration(s) before this version can write to it`,
        MIGRATE_HINT,
      );
    }
    if (state.pending.length > 0) {
      try {
        // drizzle applies them in one transaction (BEGIN … COMMIT, ROLLBACK on an error).
        migrate(db, { migrationsFolder: MIGRATIONS_DIR });
      } catch (error) {
        throw migrationFailed(file, error, state.pending, 'the database is as it was before; nothing was applied');
      }
    }
    fillNzOffsets(db);
    markDataDirectory(dirname(file));
    return { sqlite, db, path: file };
  } catch (error) {
    sqlite.close();
    throw toDatabaseError(file, error);
  }
}

/** Creates the file (0600) and its directory (0700) when missing: the only modes this sets. */
function create(file: string): void {
  const dir = dirname(file);
  try {
    // A directory we create is private. One that exists is the user's (it could be /tmp): left as is.
    if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
    closeSync(openSync(file, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return;
    throw new DatabaseError(file, `could not be created (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

// better-sqlite3 reads this once, when it loads SQLite (at the first connection): URI file names
// (`file:…?immutable=1`) are understood. Every path this module opens is absolute (resolve), never `file:…`.
process.env.SQLITE_USE_URI ??= '1';

/**
 * A read-only connection that can read. SQLite reads a WAL database only with its -shm beside it
 * (shared memory for the WAL index), which it creates when missing; in a directory this user
 * cannot write that fails with SQLITE_READONLY_DIRECTORY. When there is no write-ahead log to
 * read (no -wal, or an empty one: every change is in the database file, as after its writer
 * closed), the file alone is the whole database, and it is opened `immutable` (no -shm, no
 * locks). When the -wal holds changes, reading without a -shm would miss them: refused (exit 6),
 * saying why (docs/security.md "Versions and migrations").
 */
function connectReadOnly(file: string): Database.Database {
  let sqlite: Database.Database | undefined;
  try {
    sqlite = new Database(file, { readonly: true, fileMustExist: true });
    sqlite.prepare('SELECT count(*) FROM sqlite_master').get();
    return sqlite;
  } catch (error) {
    sqlite?.close();
    const code = (error as { code?: unknown }).code;
    const unreadable = code === 'SQLITE_READONLY_DIRECTORY' || code === 'SQLITE_CANTOPEN';
    const walHoldsChanges = (statSafe(`${file}-wal`)?.size ?? 0) > 0;
    if (unreadable && walHoldsChanges && !existsSync(`${file}-shm`) && !writable(dirname(file)))
      throw new ReadOnlyDatabaseError(
        file,
        `cannot be read by this user: its directory is read-only, and SQLite must create ${basename(file)}-shm ` +
          `to read the changes in ${basename(file)}-wal (${String(code)})`,
        'let this user write the directory, or have a user who can open the database once (its writer folds the -wal in when it closes)',
      );
    if (code !== 'SQLITE_READONLY_DIRECTORY' || walHoldsChanges) throw toDatabaseError(file, error);
  }
  let immutable: Database.Database | undefined;
  try {
    immutable = new Database(`${pathToFileURL(file).href}?immutable=1`, { readonly: true, fileMustExist: true });
    immutable.prepare('SELECT count(*) FROM sqlite_master').get();
    return immutable;
  } catch (error) {
    immutable?.close();
    throw toDatabaseError(file, error);
  }
}

function openReadOnly(file: string, allowPending: boolean): OpenedDatabase {
  const sqlite = connectReadOnly(file);
  try {
    sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    refuseForeignDatabase(sqlite, file);
    const state = migrationState(sqlite, file);
    if (allowPending) return { sqlite, db: drizzle(sqlite), path: file };
    if (state.applied === 0) throw new DatabaseError(file, 'is empty: nothing has been synced into it', NO_DATA_HINT);
    if (state.pending.length > 0)
      throw new DatabaseError(
        file,
        `needs ${state.pending.length} migration(s) before this version can read it`,
        MIGRATE_HINT,
      );
    return { sqlite, db: drizzle(sqlite), path: file };
  } catch (error) {
    sqlite.close();
    throw toDatabaseError(file, error);
  }
}

let nzOffsetRows: ReturnType<typeof nzOffsetTransitions> | undefined;

/**
 * Written once per database, from luxon's Pacific/Auckland rules (computed once per process), and
 * again when the table starts later than NZ_OFFSET_YEARS (a database filled from 2000 by an
 * earlier version): the rows it lacks are added, those it holds kept.
 */
function fillNzOffsets(db: BankdataDb): void {
  const first = db.select({ utcFrom: nzOffsets.utcFrom }).from(nzOffsets).orderBy(nzOffsets.utcFrom).limit(1).all()[0];
  // nzOffsetTransitions' first row is the start of NZ_OFFSET_YEARS: held, the table is whole.
  if (first !== undefined && first.utcFrom <= new Date(Date.UTC(NZ_OFFSET_YEARS.from, 0, 1)).toISOString()) return;
  nzOffsetRows ??= nzOffsetTransitions(NZ_OFFSET_YEARS.from, NZ_OFFSET_YEARS.to);
  const rows = nzOffsetRows;
  // One statement for all rows (about 330: two changes a year in most years 1900–2100, two values each; far below SQLite's 32,766).
  db.transaction(
    (tx) => {
      tx.insert(nzOffsets).values(rows).onConflictDoNothing().run();
    },
    { behavior: 'immediate' },
  );
}
