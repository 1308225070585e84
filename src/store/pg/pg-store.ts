/**
 * The PostgreSQL implementation of the Store (../store.ts): the shared operations
 * (../store-of.ts) bound to a runner over a node-postgres pool, and the few PostgreSQL parts,
 * each where its SQL or its meaning truly differs from SQLite's.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import type pg from 'pg';
import { redactPostgresUrl } from '../../database-url';
import type { Store } from '../store';
import { storeOf } from '../store-of';
import { systemClock, type Clock } from '../time';
import { createPool, migratePostgres, type PgDb } from './open';
import { postgresRunner } from './pg-runner';
import { beginPostgresRun, LocalWorkers } from './run-work';
import { fencedRunner } from '../run-work';
import type { SqlRunner } from '../sql-runner';
import { commitTransactionWindowPg } from './window-commit';
import { countRefusal, reserveRequestSlotAt } from './work-queue';

export interface OpenPgStoreOptions {
  /** The clock for every `now` left out (tests fix it). */
  now?: Clock;
  /** Apply the committed migrations (a writer); a reader never migrates. Default true. */
  migrate?: boolean;
  /** Told how many migrations the open applied (`db migrate` reports it). */
  onMigrated?: (applied: number) => void;
  /** Pool size. */
  max?: number;
}

/** The PostgreSQL store with its raw handles, for tests. */
export interface PgStore extends Store {
  readonly pool: pg.Pool;
  readonly db: PgDb;
}

export async function openPgStore(url: string, options: OpenPgStoreOptions = {}): Promise<PgStore> {
  const pool = createPool(url, { max: options.max });
  try {
    if (options.migrate !== false) {
      // Called first, then told: `onMigrated?.(await …)` would skip the call when no one listens.
      const applied = await migratePostgres(pool);
      options.onMigrated?.(applied);
    } else await pool.query('SELECT 1');
  } catch (error) {
    await pool.end();
    throw error;
  }
  const runner = postgresRunner(pool);
  // This process's workers, by run: a unit of theirs commits only while its worker holds its
  // consent (docs/postgres.md "Cooperating workers"): one taken over while its unit was in flight
  // (paused past its term) must not write over what the consent's new holder wrote.
  const local = new LocalWorkers();
  const unitRunner = (unit: Parameters<LocalWorkers['fenceOf']>[0]): SqlRunner =>
    fencedRunner(runner, local.fenceOf(unit));
  const store = storeOf({
    path: redactPostgresUrl(url),
    dialect: 'postgres',
    runner,
    exact: postgresRunner(pool, { safeIntegers: true }),
    clock: options.now ?? systemClock,
    // Workers of one client share its pacing budget in the database (work-queue.ts).
    rateBudget: {
      reserve: (key, intervalMs) => reserveRequestSlotAt(pool, { key, intervalMs, burst: 1 }),
      refuse: (key) => countRefusal(pool, key),
    },
    close: () => pool.end(),
    // An advisory lock per account and one statement per window (not per row): window-commit.ts.
    commitTransactionWindow: (input) => commitTransactionWindowPg(unitRunner(input), input),
    unitRunner,
    // The file's bytes live in the database (docs/postgres.md "Statement files"), checked first.
    statementFileAlongside: async (input) => {
      if (!input.localPath)
        throw new RangeError(`statement file ${input.filePath}: the PostgreSQL store needs its bytes (localPath)`);
      const content = await readFile(input.localPath);
      const sha256 = createHash('sha256').update(content).digest('hex');
      if (sha256 !== input.sha256 || content.byteLength !== input.bytes) {
        throw new Error(`statement file ${input.filePath}: the bytes on disk differ from those recorded`);
      }
      return async (tx, now) => {
        await tx.run(sql`INSERT INTO statement_files (file_path, content_type, sha256, bytes, content, stored_at)
          VALUES (${input.filePath}, ${input.contentType}, ${sha256}, ${input.bytes}, ${content}, ${now})
          ON CONFLICT (file_path) DO UPDATE SET content_type = excluded.content_type, sha256 = excluded.sha256,
            bytes = excluded.bytes, content = excluded.content, stored_at = excluded.stored_at`);
      };
    },
    // The files' bytes go with their rows.
    forgetAlongside: async (tx, report) => {
      if (report.files.length === 0) return;
      const n = await tx.changes(
        sql`DELETE FROM statement_files WHERE file_path = ANY(${sql.param(report.files)}::text[])`,
      );
      if (n) report.deleted.statement_files = n;
    },
    // Any number of workers share a run through the work queue (run-work.ts, work-queue.ts).
    beginRun: (input) => beginPostgresRun(pool, input, local),
  });
  return { ...store, pool, db: drizzle(pool) };
}
