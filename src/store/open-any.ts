/**
 * Opens the store `BANKDATA_DB` / `--db` names: a `postgres://` or `postgresql://` URL opens the
 * PostgreSQL store (pg/pg-store.ts), anything else the SQLite file (sqlite-store.ts). A writer
 * migrates the PostgreSQL database as the SQLite writer creates its file; a read-only open never
 * migrates. Callers get a `Store` and never branch on the dialect.
 */
import { DatabaseError } from '../errors';
import {
  checkPostgresUrl,
  describeUnusablePostgres,
  isPostgresUrl,
  notePostgresOpened,
  redactPostgresUrl,
} from '../database-url';
import { openStore, type OpenStoreOptions } from './sqlite/sqlite-store';
import type { Store } from './store';

export async function openDatabaseStore(
  location: string,
  options: OpenStoreOptions & {
    /** PostgreSQL: told how many migrations the open applied (SQLite's are `db migrate`'s, after a backup). */
    onMigrated?: (applied: number) => void;
  } = {},
): Promise<Store> {
  if (!isPostgresUrl(location)) return openStore(location, options);
  checkPostgresUrl(location);
  try {
    // Loaded only here: a command on a SQLite file never loads the PostgreSQL driver.
    const { openPgStore } = await import('./pg/pg-store');
    const store = await openPgStore(location, {
      now: options.now,
      migrate: !options.readOnly,
      ...(options.onMigrated ? { onMigrated: options.onMigrated } : {}),
    });
    if (options.readOnly) {
      // A writer checked under the migration lock (migratePostgres); a reader checks here.
      const { checkPostgresSchema } = await import('./pg/open');
      await checkPostgresSchema(store.pool).catch(async (error: unknown) => {
        await store.close();
        throw error;
      });
    }
    // A connection lost later is reported naming this database (src/cli/handle-error.ts).
    notePostgresOpened(location);
    return store;
  } catch (error) {
    // Reaching or using the server failed: exit 6, naming where, never the password.
    const reason = describeUnusablePostgres(error, location);
    throw reason ? new DatabaseError(redactPostgresUrl(location), reason) : error;
  }
}

/** The database's location for messages: a PostgreSQL URL without its password. */
export function displayLocation(location: string): string {
  return isPostgresUrl(location) ? redactPostgresUrl(location) : location;
}

/** True when the location is a PostgreSQL URL (for the SQLite-only commands). */
export { isPostgresUrl };
