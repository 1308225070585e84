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
