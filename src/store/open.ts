/**
 * Opens (and creates) the database: directory 0700 when we create it, file 0600, WAL,
 * foreign keys on, a busy timeout, migrations applied with drizzle's migrator.
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import type { BankdataDb } from './db';
import { nzOffsets } from './schema';
import { nzOffsetTransitions } from './time';

export const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations', import.meta.url));
const BUSY_TIMEOUT_MS = 10_000;
/** Years covered by nz_offsets (v_consents.days_to_expiry); NULL outside them. */
const NZ_OFFSET_YEARS = { from: 2000, to: 2100 } as const;

export interface OpenedDatabase {
  sqlite: Database.Database;
  db: BankdataDb;
  path: string;
}

export function openDatabase(path: string): OpenedDatabase {
  const file = resolve(path);
  const dir = dirname(file);
  // A directory we create is private. One that exists is the user's (it could be /tmp): left as is.
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
  chmodSync(file, 0o600);

  const sqlite = new Database(file);
  try {
    sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    const db = drizzle(sqlite);
    migrate(db, { migrationsFolder: MIGRATIONS_DIR });
    fillNzOffsets(db);
    for (const side of ['-wal', '-shm']) if (existsSync(file + side)) chmodSync(file + side, 0o600);
    return { sqlite, db, path: file };
  } catch (error) {
    sqlite.close();
    throw error;
  }
}

let nzOffsetRows: ReturnType<typeof nzOffsetTransitions> | undefined;

/** Written once per database, from luxon's Pacific/Auckland rules (computed once per process). */
function fillNzOffsets(db: BankdataDb): void {
  const present = db.select({ utcFrom: nzOffsets.utcFrom }).from(nzOffsets).limit(1).all();
  if (present.length > 0) return;
  nzOffsetRows ??= nzOffsetTransitions(NZ_OFFSET_YEARS.from, NZ_OFFSET_YEARS.to);
  const rows = nzOffsetRows;
  db.transaction((tx) => {
    for (const row of rows) tx.insert(nzOffsets).values(row).onConflictDoNothing().run();
  }, { behavior: 'immediate' });
}
