/**
 * Opens a PostgreSQL database (docs/postgres.md): a node-postgres pool, drizzle's pg dialect over
 * it, and the committed migrations applied under an advisory lock, so that workers starting
 * together migrate once and the others wait for it.
 */
import { PG_MIGRATIONS_PATH } from '../../paths';
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import { nameRepeatedStatements } from './named-statements';
import pg from 'pg';
import { parse as parseConnectionString } from 'pg-connection-string';
import { redactPostgresUrl } from '../../database-url';
import { DatabaseError, NO_DATA_HINT } from '../../errors';
import {
  migrationFailed,
  readJournal,
  refuseUnknownMigrations,
  schemaState,
  type SchemaState,
} from '../migration-versions';

/** Beside this file in the sources; the compiled program finds it through src/paths.ts. */
export const PG_MIGRATIONS_DIR = PG_MIGRATIONS_PATH;
/** An arbitrary constant: the advisory lock key "bankdata migrations". */
const MIGRATION_LOCK_KEY = 0x62616e6b;
const INT8_OID = 20;

export type PgDb = NodePgDatabase;

export interface OpenedPostgres {
  pool: pg.Pool;
  db: PgDb;
  /** The URL without its password, for messages. */
  displayUrl: string;
  close(): Promise<void>;
}

/**
 * bigint (int8) columns come back as numbers, as SQLite gives them: amount_minor is NULL beyond
 * 2^53−1 by the data model, and counts never approach it. A larger value is refused, not rounded.
 */
function parseInt8(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new RangeError(`int8 value ${text} is beyond 2^53-1`);
  return value;
}

const pgTypes = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    // pg types getTypeParser's result as any; the cast below gives the function its own type.
    // eslint-disable-next-line @typescript-eslint/no-unsafe-return
    oid === INT8_OID && format !== 'binary'
      ? parseInt8
      : pg.types.getTypeParser(oid, format ?? 'text')) as typeof pg.types.getTypeParser,
};

/**
 * Every connection's session runs in UTC (`-c TimeZone=UTC` at start-up, after any `options` the
 * URL gives): a `timestamptz` then adds days, casts to `date` and prints the same whatever the
 * server's or the database's own time zone (a cluster set up in NZ moved the continuity check's
 * 14-day bound by an hour across a DST change). NZ dates are always asked for explicitly,
 * `AT TIME ZONE 'Pacific/Auckland'` (docs/postgres.md "Schema"). node-postgres lets a URL's own
 * `options` replace the pool's: such a URL is given parsed as node-postgres parses it
 * (pg-connection-string, every form it takes: `user@/db?host=…` too), both options together.
 */
function sessionConfig(url: string): pg.PoolConfig {
  // UTC, and every statement planned for its own values: the named statements (named-statements.ts)
  // would otherwise get a generic plan after five runs, and one that cannot see an array
  // parameter's size filtered every row of an account against it (`transaction_id = ANY($3)`:
  // 7 s for 5,000 ids against 126,000 rows instead of 30 ms).
  const session = '-c TimeZone=UTC -c plan_cache_mode=force_custom_plan';
  let parsed: ReturnType<typeof parseConnectionString>;
  try {
    parsed = parseConnectionString(url);
  } catch {
    // Not a URL node-postgres reads either: its own error says so when the pool connects.
    return { connectionString: url, options: session };
  }
  if (!parsed.options) return { connectionString: url, options: session };
  // What node-postgres would make of the URL itself, with both options.
  return { ...(parsed as pg.PoolConfig), options: `${parsed.options} ${session}` };
}

/** Each pool's URL, for messages (a pool given a parsed URL has no connectionString). */
const poolUrls = new WeakMap<pg.Pool, string>();

export function createPool(url: string, options: { max?: number } = {}): pg.Pool {
  const pool = new pg.Pool({ ...sessionConfig(url), max: options.max ?? 10, types: pgTypes });
  poolUrls.set(pool, url);
  // An idle connection the server dropped (restart, failover, idle timeout): the pool discards it
  // and the next query connects again or fails with its own error. Without a listener, node would
  // end the process on this event.
  pool.on('error', () => undefined);
  pool.on('connect', nameRepeatedStatements);
  // A connection lost while checked out (a transaction open when the server went away): pg-pool
  // listens only to idle ones, so without this node ends the process on the event (exit 1 and a
  // stack trace). The loss reaches the query in flight, or the next one, as its own error, which
  // the CLI reports as the database lost (exit 6).
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/**
 * Runs `body` in one transaction on one pooled connection: committed when it returns, rolled back
 * when it throws (the rollback's own failure is ignored: the connection is released either way and
 * the body's error is the one that matters). `begin` may set the isolation (a read snapshot);
 * `end: 'ROLLBACK'` rolls back a body that succeeded (a dry run).
 */
export async function inPgTransaction<T>(
  pool: pg.Pool,
  body: (client: pg.PoolClient) => Promise<T>,
  options: { begin?: string; end?: 'COMMIT' | 'ROLLBACK' } = {},
): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query(options.begin ?? 'BEGIN');
    const result = await body(client);
    await client.query(options.end ?? 'COMMIT');
    return result;
  } catch (error) {
    // A connection that cannot even roll back is not given back to the pool: it is closed.
    broken = await client.query('ROLLBACK').then(
      () => false,
      () => true,
    );
    throw error;
  } finally {
    client.release(broken);
  }
}

/** SQLite's hint (sqlite/open.ts MIGRATE_HINT), but `db migrate` takes no backup of a PostgreSQL database. */
const PG_MIGRATE_HINT = 'run `bankdata db migrate` (take a pg_dump first: it takes no backup of PostgreSQL)';

/** Where a PostgreSQL database's pre-migration copy would be: the dump its owner takes. */
const PG_RESTORE = 'the dump taken before it (pg_dump)';

/**
 * What drizzle's migrations table (drizzle.__drizzle_migrations) says about the database against
 * this binary's journal; a database a newer bankdata migrated is refused (exit 6). Writers call it
 * through migratePostgres, readers through checkPostgresSchema.
 */
async function postgresSchemaState(queryable: pg.Pool | pg.PoolClient, location: string): Promise<SchemaState> {
  const table = await queryable.query<{ found: string | null }>(
    "SELECT to_regclass('drizzle.__drizzle_migrations')::text AS found",
  );
  const rows = table.rows[0]?.found
    ? (
        await queryable.query<{ hash: string; created_at: number | string }>(
          'SELECT hash, created_at FROM drizzle.__drizzle_migrations',
        )
      ).rows
    : [];
  const state = schemaState(
    readJournal(PG_MIGRATIONS_DIR),
    rows.map((r) => ({ hash: String(r.hash), createdAt: Number(r.created_at) })),
  );
  refuseUnknownMigrations(location, state, PG_RESTORE);
  return state;
}

/** The pool's database for messages: its URL without the password. */
export function poolLocation(pool: pg.Pool): string {
  const url = poolUrls.get(pool) ?? pool.options.connectionString;
  return url ? redactPostgresUrl(url) : 'PostgreSQL';
}

/**
 * A reader's check (it never migrates): refuses a database a newer bankdata migrated, and one
 * that needs migrations before this version can read it (exit 6, as a SQLite reader does). An
 * empty database (nothing applied) is let through unless `refuseEmpty` (a copy's source).
 */
export async function checkPostgresSchema(pool: pg.Pool, options: { refuseEmpty?: boolean } = {}): Promise<void> {
  const location = poolLocation(pool);
  const state = await postgresSchemaState(pool, location);
  if (state.applied === 0) {
    if (options.refuseEmpty)
      throw new DatabaseError(location, 'is empty: nothing has been synced into it', NO_DATA_HINT);
    return;
  }
  if (state.pending.length > 0)
    throw new DatabaseError(
      location,
      `needs ${state.pending.length} migration(s) before this version can read it`,
      PG_MIGRATE_HINT,
    );
}

/**
 * Applies the committed migrations (src/store/pg/migrations), one process at a time, after
 * refusing a database that holds a migration this binary does not know. drizzle runs them in one
 * transaction: one that fails is rolled back and reported as exit 6 with the server's message.
 * Returns how many it applied (0: the database was up to date).
 */
export async function migratePostgres(pool: pg.Pool): Promise<number> {
  const location = poolLocation(pool);
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      const state = await postgresSchemaState(client, location);
      if (state.pending.length === 0) return 0;
      try {
        await migrate(drizzle(client), { migrationsFolder: PG_MIGRATIONS_DIR });
      } catch (error) {
        throw migrationFailed(location, error, state.pending, 'the database is as it was before; nothing was applied');
      }
      return state.pending.length;
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    client.release();
  }
}

/**
 * A pool on the database, migrated first; with `readOnly` only checked (checkPostgresSchema: a
 * database that is empty, needs a migration or holds an unknown one is refused, exit 6), as a
 * copy's source is: a copy never migrates or writes what it reads.
 */
export async function openPostgres(
  url: string,
  options: {
    max?: number;
    readOnly?: boolean;
    /** A writer's own check of the database before anything is migrated into it (db copy's target). */
    beforeMigrate?: (pool: pg.Pool) => Promise<void>;
  } = {},
): Promise<OpenedPostgres> {
  const pool = createPool(url, options);
  try {
    if (options.readOnly) await checkPostgresSchema(pool, { refuseEmpty: true });
    else {
      await options.beforeMigrate?.(pool);
      await migratePostgres(pool);
    }
  } catch (error) {
    await pool.end();
    throw error;
  }
  return { pool, db: drizzle(pool), displayUrl: redactPostgresUrl(url), close: () => pool.end() };
}
