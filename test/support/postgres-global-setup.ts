/**
 * vitest globalSetup: one throwaway PostgreSQL server for the whole test run, with a template
 * database that has the migrations applied, when the run has a file named *.pg.test.ts. Each test
 * file makes its own database from the template (test/support/postgres.ts), so files running in
 * parallel never share rows. BANKDATA_TEST_PG_URL points the tests at a server of one's own
 * instead (a superuser URL).
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
  if (!(await runHasPostgresFiles(project))) {
    project.provide('postgres', { reason: 'no *.pg.test.ts file in this run' });
    return async () => {};
  }
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

/**
 * Whether the files selected by the command line's filters include a *.pg.test.ts (all files when
 * there are none): `npx vitest run test/export` starts no server. vitest keeps the filters in
 * `filenamePattern`, which its typings mark internal: without it, the server is started.
 */
async function runHasPostgresFiles(project: TestProject): Promise<boolean> {
  const filters: unknown = (project.vitest as unknown as { filenamePattern?: unknown }).filenamePattern;
  if (!Array.isArray(filters) || !filters.every((f) => typeof f === 'string')) return true;
  const { testFiles } = await project.globTestFiles(filters);
  return testFiles.some((file) => file.endsWith('.pg.test.ts'));
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
