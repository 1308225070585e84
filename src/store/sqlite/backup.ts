/**
 * Online backup through SQLite's backup API (better-sqlite3 `backup`): a consistent copy while
 * other connections read and write. `bankdata db backup FILE`, and the backup every migration
 * of a database that holds data takes first (`bankdata db migrate`, and `sync` by itself).
 */
import { closeSync, existsSync, openSync } from 'node:fs';
import { resolve } from 'node:path';
import { DatabaseError, LocalFileError } from '../../errors';
import { buildNewFile } from '../../fs/atomic-file';
import { migrationState, openDatabase, toDatabaseError } from './open';

/** Copies the database at `source` to `target` (a new file, 0600); resolves to the target's path. */
export async function backupDatabase(source: string, target: string): Promise<string> {
  const from = resolve(source);
  const to = resolve(target);
  if (from === to) throw new LocalFileError(to, 'is the database itself; name another file');
  if (existsSync(to)) throw new LocalFileError(to, 'already exists; a backup never replaces a file');
  const opened = openDatabase(from, { readOnly: true, allowPending: true });
  try {
    // Built under a temp name and linked into place when whole (src/fs/atomic-file.ts): a failed
    // backup leaves nothing under FILE.
    await buildNewFile(to, async (temp) => {
      // Created here with 0600 so the copy is as private as the database.
      try {
        closeSync(openSync(temp, 'wx', 0o600));
      } catch (error) {
        throw new LocalFileError(to, `could not be created (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
      }
      try {
        await opened.sqlite.backup(temp);
      } catch (error) {
        const mapped = toDatabaseError(to, error);
        throw mapped instanceof DatabaseError
          ? new LocalFileError(to, mapped.message.replace(`database ${to}: `, ''))
          : mapped;
      }
      return { keep: true, value: undefined };
    });
    return to;
  } finally {
    opened.sqlite.close();
  }
}

export interface MigrateResult {
  /** Migrations applied (0: the database was current). */
  applied: number;
  /** Where the backup was written; null when nothing needed one (current, or no data yet). */
  backup: string | null;
}

/** Default backup name beside the database: `<db>.before-migrate-<UTC stamp>.sqlite`. */
export function defaultBackupPath(database: string, now: Date): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `${resolve(database)}.before-migrate-${stamp}.sqlite`;
}

/**
 * Applies pending migrations to the database at `path`, after an online backup when it
 * already holds migrated data. A missing database is left missing (nothing to migrate).
 */
export async function migrateWithBackup(
  path: string,
  options: { backupTo?: string; now: Date },
): Promise<MigrateResult> {
  const file = resolve(path);
  if (!existsSync(file)) return { applied: 0, backup: null };
  const state = (() => {
    const probe = openDatabase(file, { readOnly: true, allowPending: true });
    try {
      return migrationState(probe.sqlite);
    } finally {
      probe.sqlite.close();
    }
  })();
  if (state.pending === 0) return { applied: 0, backup: null };
  const backup =
    state.applied > 0 ? await backupDatabase(file, options.backupTo ?? defaultBackupPath(file, options.now)) : null;
  try {
    openDatabase(file, { migrate: 'apply' }).sqlite.close();
  } catch (error) {
    throw toDatabaseError(file, error);
  }
  return { applied: state.pending, backup };
}
