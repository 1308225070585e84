/**
 * A SQLite database as an older bankdata left it: every migration but the last applied (drizzle
 * applies a copy of the migrations folder whose journal stops one short). The SQLite twin of
 * postgres.ts `createOlderTestDatabase`. Returned open, for a test to plant rows; the caller closes it.
 */
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { MIGRATIONS_DIR } from '../../src/store/sqlite/open';

export function createOlderSqliteDatabase(file: string): Database.Database {
  const folder = join(mkdtempSync(join(tmpdir(), 'bankdata-older-migrations-')), 'migrations');
  cpSync(MIGRATIONS_DIR, folder, { recursive: true });
  const journalPath = join(folder, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: unknown[] };
  journal.entries.pop();
  writeFileSync(journalPath, JSON.stringify(journal));
  const old = new Database(file);
  migrate(drizzle(old), { migrationsFolder: folder });
  return old;
}
