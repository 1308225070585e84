/**
 * Online backup through SQLite's backup API (better-sqlite3 `backup`): a consistent copy, the
 * database at one instant (a read transaction held across the copy's steps), while other
 * connections read and write. `bankdata db backup FILE`, and the copy a migration of a database
 * that holds data takes first (`bankdata db migrate`, and `sync` by itself).
 *
 * A backup is written to a temporary file beside the target, checked (`PRAGMA quick_check`: a
 * damaged database is not passed off as a backup) and only then linked to its name, so the name
 * holds a whole, checked copy or nothing: a full disk or a damaged database leaves no file
 * behind to block the next attempt (docs/security.md "Versions and migrations").
 */
import { closeSync, existsSync, openSync, readdirSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { DatabaseError, LocalFileError } from '../../errors';
import { buildNewFile } from '../../fs/atomic-file';
import { toLocalFileError } from '../../fs/output-path';
import { SQLITE_LAST_SEQ } from '../changes';
import { migrationState, openDatabase, toDatabaseError } from './open';

/** Pre-migration copies kept beside a database: the newest ones, by modification time. */
export const KEPT_MIGRATION_COPIES = 3;

/** An error of SQLite writing the copy: the disk or the target's fault (7), or the database's (6). */
function backupError(from: string, to: string, error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^SQLITE_(CORRUPT|NOTADB)/.test(code))
    return new DatabaseError(from, `is damaged (${code}); no backup was written`, DAMAGED_HINT);
  const mapped = toDatabaseError(to, error);
  return mapped instanceof DatabaseError
    ? new LocalFileError(to, `${mapped.message.replace(`database ${to}: `, '')}; no backup was written`)
    : mapped;
}

const DAMAGED_HINT = 'restore an earlier backup; `sqlite3 DB .recover` may save what is readable';

/**
 * What `PRAGMA quick_check(N)` answered, as its problems: none when its only answer is "ok". Each
 * row holds one complaint, the first of a database after a banner (`*** in database main ***`)
 * in the same row or the row before; banners and empty lines are dropped, never the complaint
 * with them. An answer that is neither "ok" nor a complaint (no row, only banners, a row without
 * its `quick_check` column) is a problem too: the copy is not called sound on an answer that does
 * not say so.
 */
export function quickCheckProblems(rows: readonly unknown[]): string[] {
  const lines = rows
    .flatMap((row) => {
      const value = (row as { quick_check?: unknown } | null)?.quick_check;
      return typeof value === 'string'
        ? value.split('\n')
        : [`unexpected answer ${JSON.stringify(row) ?? String(row)}`];
    })
    .map((line) => line.trim())
    .filter((line) => line !== '' && !/^\*\*\* in database .*\*\*\*$/.test(line));
  const problems = lines.filter((line) => line !== 'ok');
  if (problems.length > 0) return problems;
  if (lines.length === 1) return [];
  return [lines.length === 0 ? 'no answer' : `"ok" ${lines.length} times where one answer is expected`];
}

/**
 * The copy's change log becomes a log of its own (docs/changes.md "Cursors"): a new id, and the
 * source's id and last position remembered, so that if the copy is ever put back in place of the
 * database, a consumer's cursor from the source is served only when it is at or before what the
 * copy holds (a later one would skip the changes the copy lacks, and those logged after it under
 * the same numbers). A copy of a database from before the log had an identity has nothing to do.
 */
function forkChangeLog(copy: Database.Database): void {
  const has = copy.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'change_log_identity'").get();
  if (!has) return;
  copy.exec(`UPDATE change_log_identity SET
      forked_from = log_id,
      forked_xid = 0,
      forked_seq = ${SQLITE_LAST_SEQ},
      log_id = lower(hex(randomblob(16)))
    WHERE id = 1`);
}

/**
 * The copy's own check: `PRAGMA quick_check` says "ok", else the copy is refused with its first
 * complaint; before it, the copy's change log is made its own (forkChangeLog).
 */
function checkCopy(from: string, temp: string): void {
  let problems: string[];
  // Opened for writing: the copy is ours, and closing it removes the -wal/-shm SQLite makes.
  const copy = new Database(temp, { fileMustExist: true });
  try {
    forkChangeLog(copy);
    problems = quickCheckProblems(copy.pragma('quick_check(3)') as unknown[]);
  } catch (error) {
    throw backupError(from, temp, error);
  } finally {
    copy.close();
  }
  const [first] = problems;
  if (first !== undefined)
    throw new DatabaseError(from, `is damaged (quick_check: ${first}); no backup was written`, DAMAGED_HINT);
}

/**
 * Copies the database at `source` to `target` (a new file, 0600); resolves to the target's path.
 * With `replace` (the copy before a migration, this program's own file), a file already at
 * `target` is replaced once the new copy is whole and checked, and kept when the copy fails.
 */
export async function backupDatabase(
  source: string,
  target: string,
  options: { replace?: boolean } = {},
): Promise<string> {
  const from = resolve(source);
  const to = resolve(target);
  if (from === to) throw new LocalFileError(to, 'is the database itself; name another file');
  if (!options.replace && existsSync(to))
    throw new LocalFileError(to, 'already exists; a backup never replaces a file');
  const opened = openDatabase(from, { readOnly: true, allowPending: true });
  try {
    // Built under a temp name, checked, and linked into place when whole (src/fs/atomic-file.ts
    // buildNewFile; renamed over the file with `replace`): a full disk or a damaged database
    // leaves nothing under FILE, or what was there before.
    await buildNewFile(
      to,
      async (temp) => {
        // Created here with 0600 so the copy is as private as the database.
        try {
          closeSync(openSync(temp, 'wx', 0o600));
        } catch (error) {
          throw toLocalFileError(to, error);
        }
        // One snapshot for the whole copy: a read transaction held across the backup's steps (100
        // pages each, the event loop free between them, so Ctrl-C still stops a long copy). Without
        // it each step read the database afresh, and SQLite starts an online backup again from page
        // 1 whenever another connection has written the source between two steps: under a sync
        // committing every few steps, a large database's copy never finished. In WAL mode a reader
        // never blocks a writer: a sync keeps committing while the copy is taken.
        try {
          opened.sqlite.exec('BEGIN');
          opened.sqlite.prepare('SELECT count(*) FROM sqlite_master').get();
        } catch (error) {
          throw toDatabaseError(from, error);
        }
        try {
          await opened.sqlite.backup(temp);
        } catch (error) {
          throw backupError(from, to, error);
        } finally {
          if (opened.sqlite.inTransaction) opened.sqlite.exec('ROLLBACK');
        }
        checkCopy(from, temp);
        return { keep: true, value: undefined };
      },
      options,
    );
    return to;
  } finally {
    opened.sqlite.close();
  }
}

export interface MigrateResult {
  /** Migrations applied (0: the database was current). */
  applied: number;
  /** Where the copy before the migration is; null when nothing needed one (current, or no data yet). */
  backup: string | null;
  /** Older pre-migration copies removed (only the newest KEPT_MIGRATION_COPIES are kept). */
  removed: string[];
}

/**
 * The pre-migration copy's name beside the database, one per step: the newest migration the
 * database holds and the newest this version brings, `<db>.before-migrate-<from>-to-<to>.sqlite`.
 */
export function stepBackupPath(database: string, fromTag: string, toTag: string): string {
  return `${resolve(database)}.before-migrate-${fromTag}-to-${toTag}.sqlite`;
}

/** The pre-migration copies beside `database` that this program names (stepBackupPath, and older stamps). */
export function migrationCopies(database: string): string[] {
  const file = resolve(database);
  const prefix = `${basename(file)}.before-migrate-`;
  return readdirSync(dirname(file))
    .filter((name) => name.startsWith(prefix) && name.endsWith('.sqlite'))
    .map((name) => join(dirname(file), name))
    .filter((path) => statSync(path, { throwIfNoEntry: false })?.isFile() ?? false);
}

/** Removes all but the newest `keep` pre-migration copies of `database`; returns what it removed. */
export function pruneMigrationCopies(database: string, keep = KEPT_MIGRATION_COPIES): string[] {
  const copies = migrationCopies(database)
    .map((path) => ({ path, mtime: statSync(path).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime || (a.path < b.path ? 1 : -1));
  const old = copies.slice(keep).map((c) => c.path);
  for (const path of old) rmSync(path, { force: true });
  return old;
}

/**
 * Applies pending migrations to the database at `path`, after an online backup when it
 * already holds migrated data. One copy is kept per step: an attempt that fails (the migration
 * is rolled back) leaves its copy, and the next attempt at the same step copies the database
 * again and replaces it once the new copy is whole (the database may have changed in between:
 * a sync of an older version, or one that held it busy; a copy from before would lack what it
 * wrote). After a migration that succeeds, only the newest KEPT_MIGRATION_COPIES copies beside
 * the database are kept (a copy named with `backupTo` is the user's and is never counted or
 * removed). A missing database is left missing.
 */
export async function migrateWithBackup(path: string, options: { backupTo?: string } = {}): Promise<MigrateResult> {
  const file = resolve(path);
  if (!existsSync(file)) return { applied: 0, backup: null, removed: [] };
  const state = (() => {
    const probe = openDatabase(file, { readOnly: true, allowPending: true });
    try {
      return migrationState(probe.sqlite, file);
    } finally {
      probe.sqlite.close();
    }
  })();
  if (state.pending.length === 0) return { applied: 0, backup: null, removed: [] };
  let backup: string | null = null;
  if (state.applied > 0) {
    const step = stepBackupPath(file, state.current?.tag ?? 'unknown', state.newest.tag);
    // Never the copy of an earlier attempt as it is: the database may hold more since. A fresh
    // copy replaces it only when whole and checked (backupDatabase), so one copy per step is kept.
    backup =
      options.backupTo === undefined
        ? await backupDatabase(file, step, { replace: true })
        : await backupDatabase(file, options.backupTo);
  }
  try {
    openDatabase(file, { migrate: 'apply' }).sqlite.close();
  } catch (error) {
    const mapped = toDatabaseError(file, error);
    if (mapped instanceof DatabaseError && backup)
      throw new DatabaseError(
        file,
        mapped.message.replace(`database ${file}: `, ''),
        `${mapped.hint ?? 'nothing was applied'}; the copy taken before is ${backup} (kept until the next attempt copies the database again)`,
      );
    throw mapped;
  }
  const removed = options.backupTo === undefined ? pruneMigrationCopies(file) : [];
  return { applied: state.pending.length, backup, removed };
}
