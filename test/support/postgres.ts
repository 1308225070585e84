/**
 * PostgreSQL for one test file: `describePostgres` runs its tests against the server the global
 * setup started (test/support/postgres-global-setup.ts), or skips them with the reason when no
 * server could be had; with CI set it fails instead. `createTestDatabase` gives each test file
 * its own database, migrated (from the template) or empty, dropped after the file.
 */
import { randomBytes } from 'node:crypto';
import { describe, inject, it } from 'vitest';
import pg from 'pg';
import type { DialectSetup } from './dialects';
import { TEMPLATE_DB, withDatabase } from './postgres-global-setup';

const provided = inject('postgres');
export const postgresUrl: string | null = 'url' in provided ? provided.url : null;
const unavailable = 'reason' in provided ? provided.reason : null;

/** describe() for tests that need a real PostgreSQL server. */
export function describePostgres(name: string, body: () => void): void {
  if (postgresUrl) {
    describe(name, body);
    return;
  }
  if (process.env.CI) {
    describe(name, () => {
      it('needs a PostgreSQL server (CI is set, so this fails instead of skipping)', () => {
        throw new Error(`no PostgreSQL server: ${unavailable}`);
      });
    });
    return;
  }
  console.warn(`skipping "${name}": no PostgreSQL server (${unavailable})`);
  describe.skip(`${name} (skipped: no PostgreSQL server: ${unavailable})`, body);
}

const created: string[] = [];
const adminPools = new Map<string, pg.Pool>();
/**
 * One connection to the maintenance database per test worker for creating and dropping the files'
 * databases (most files make one; each new connection costs the client and the server a start-up
 * of their own). It closes
 * itself when idle and does not keep the worker alive.
 */
function admin(url: string): pg.Pool {
  let pool = adminPools.get(url);
  if (!pool) {
    pool = new pg.Pool({ connectionString: url, max: 1, idleTimeoutMillis: 2_000, allowExitOnIdle: true });
    pool.on('error', () => undefined);
    adminPools.set(url, pool);
  }
  return pool;
}

/** Drops the databases this file made; test/support/per-file-postgres.ts runs it after each file. */
export async function dropTestDatabases(): Promise<void> {
  if (!postgresUrl || created.length === 0) return;
  for (const name of created.splice(0)) await admin(postgresUrl).query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}

/** A database of this test file's own: migrated from the template, or empty. Returns its URL. */
export async function createTestDatabase(options: { migrated?: boolean } = {}): Promise<string> {
  if (!postgresUrl) throw new Error('createTestDatabase outside describePostgres');
  const name = `t_${process.pid}_${randomBytes(4).toString('hex')}`;
  const template = options.migrated === false ? 'template0' : TEMPLATE_DB;
  await admin(postgresUrl).query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  created.push(name);
  return withDatabase(postgresUrl, name);
}

/** The PostgreSQL side of a suite over both dialects (./dialects.ts): a fresh migrated database each time. */
export const postgresDialect: DialectSetup = {
  dialect: 'postgres',
  describe: (name, body) => describePostgres(`${name} [postgres]`, body),
  location: () => createTestDatabase(),
};

/**
 * A database of this file's own migrated only through the journal's first `count` entries, as an
 * older bankdata left it: drizzle applies a copy of the migrations folder whose journal stops there.
 */
export async function createOlderTestDatabase(count: number): Promise<string> {
  const { cpSync, mkdtempSync, readFileSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { drizzle } = await import('drizzle-orm/node-postgres');
  const { migrate } = await import('drizzle-orm/node-postgres/migrator');
  const { PG_MIGRATIONS_DIR } = await import('../../src/store/pg/open');
  const folder = join(mkdtempSync(join(tmpdir(), 'bankdata-older-migrations-')), 'migrations');
  cpSync(PG_MIGRATIONS_DIR, folder, { recursive: true });
  const journalFile = join(folder, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalFile, 'utf8')) as { entries: unknown[] };
  if (count < 1 || count >= journal.entries.length) throw new RangeError(`count ${count} out of range`);
  writeFileSync(journalFile, JSON.stringify({ ...journal, entries: journal.entries.slice(0, count) }));
  const url = await createTestDatabase({ migrated: false });
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  pool.on('error', () => undefined);
  try {
    await migrate(drizzle(pool), { migrationsFolder: folder });
  } finally {
    await pool.end();
  }
  return url;
}

/**
 * How many sessions of this database wait for a lock (a row's, an advisory one): what a lock-step
 * test polls before the next step. Read from a connection outside any transaction (pg_locks and
 * pg_stat_activity are read once per transaction).
 */
export async function lockWaiters(observer: pg.Pool | pg.PoolClient): Promise<number> {
  const { rows } = await observer.query<{ n: string }>(
    `SELECT count(DISTINCT pid) AS n FROM pg_locks
     WHERE NOT granted AND pid IN (SELECT pid FROM pg_stat_activity WHERE datname = current_database())`,
  );
  return Number(rows[0]!.n);
}
