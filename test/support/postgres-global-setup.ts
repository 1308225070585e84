/**
 * vitest globalSetup: one throwaway PostgreSQL server for the whole test run, with a template
 * database that has the migrations applied. Each test file makes its own database from the template
 * (test/support/postgres.ts), so files running in parallel never share rows.
 * BANKDATA_TEST_PG_URL points the tests at a server of one's own instead (a superuser URL).
 */
import type { TestProject } from 'vitest/node';
import { createPool, migratePostgres } from '../../src/store/pg/open';
import { startPostgresServer, type PostgresServer } from './postgres-server';

export const TEMPLATE_DB = 'bankdata_template';

export type PostgresForTests = { url: string } | { reason: string };

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: PostgresForTests;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let server: PostgresServer | undefined;
  let provided: PostgresForTests;
  try {
    let adminUrl = process.env.BANKDATA_TEST_PG_URL;
    if (!adminUrl) {
      server = await startPostgresServer();
      adminUrl = server.adminUrl;
    }
    await makeTemplate(adminUrl);
    provided = { url: adminUrl };
  } catch (error) {
    await server?.stop();
    server = undefined;
    provided = { reason: error instanceof Error ? error.message : String(error) };
  }
  project.provide('postgres', provided);
  return async () => {
    await server?.stop();
  };
}

async function makeTemplate(adminUrl: string): Promise<void> {
  const admin = createPool(adminUrl, { max: 1 });
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${TEMPLATE_DB} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${TEMPLATE_DB} TEMPLATE template0 ENCODING 'UTF8'`);
  } finally {
    await admin.end();
  }
  const template = createPool(withDatabase(adminUrl, TEMPLATE_DB), { max: 1 });
  try {
    await migratePostgres(template);
  } finally {
    await template.end();
  }
}

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}
