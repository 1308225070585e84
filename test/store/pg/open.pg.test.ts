/** Opening PostgreSQL: the reasons it cannot be used, named by host and database, never with the password. */
import { expect, it } from 'vitest';
import { openPostgres } from '../../../src/store/pg/open';
import { describeUnusablePostgres, redactPostgresUrl } from '../../../src/database-url';
import { createTestDatabase, describePostgres, postgresUrl } from '../../support/postgres';

const SECRET = 's3cret-Pa55word';

async function openError(url: string): Promise<unknown> {
  try {
    const opened = await openPostgres(url);
    await opened.close();
  } catch (error) {
    return error;
  }
  throw new Error('opened');
}

describePostgres('opening a PostgreSQL database', () => {
  it('says a server that is not there cannot be reached, naming host and database', async () => {
    const url = `postgres://bankdata:${SECRET}@127.0.0.1:1/bankdata`;
    const message = describeUnusablePostgres(await openError(url), url);
    expect(message).toBe('PostgreSQL database 127.0.0.1:1/bankdata cannot be reached (ECONNREFUSED)');
  });

  it('says a wrong password was refused, without the password', async () => {
    const real = new URL(await createTestDatabase());
    real.password = SECRET;
    const message = describeUnusablePostgres(await openError(real.toString()), real.toString());
    expect(message).toMatch(/^PostgreSQL database 127\.0\.0\.1:\d+\/t_\w+ refused the login \(SQLSTATE 28P01/);
    expect(message).not.toContain(SECRET);
  });

  it('says a database that does not exist does not exist', async () => {
    const url = new URL(postgresUrl!);
    url.pathname = '/no_such_database';
    const message = describeUnusablePostgres(await openError(url.toString()), url.toString());
    expect(message).toMatch(/^PostgreSQL database 127\.0\.0\.1:\d+\/no_such_database does not exist \(SQLSTATE 3D000/);
  });

  it('runs every session in UTC on a server in another zone, keeping the options the URL gives', async () => {
    // The tests' server runs in Pacific/Auckland (test/support/postgres-server.ts).
    const plain = await createTestDatabase();
    const url = new URL(plain);
    url.searchParams.set('options', '-c statement_timeout=4321');
    // The host as a parameter (as for a socket directory), which `new URL` cannot read.
    const hostParameter = `postgres://${url.username}:${url.password}@/${url.pathname.slice(1)}?host=${url.hostname}&port=${url.port}&options=-c%20statement_timeout%3D4321`;
    for (const [given, timeout] of [
      [plain, '0'],
      [url.toString(), '4321ms'],
      [hostParameter, '4321ms'],
    ] as const) {
      const opened = await openPostgres(given);
      try {
        const { rows } = await opened.pool.query<{ zone: string; timeout: string }>(
          `SELECT current_setting('TimeZone') AS zone, current_setting('statement_timeout') AS timeout`,
        );
        expect(rows).toEqual([{ zone: 'UTC', timeout }]);
      } finally {
        await opened.close();
      }
    }
  });

  it('leaves other errors to the caller, and redacts a URL for logs', () => {
    expect(describeUnusablePostgres(new Error('boom'), 'postgres://h/db')).toBeNull();
    expect(redactPostgresUrl(`postgres://u:${SECRET}@h:5432/db`)).toBe('postgres://u:***@h:5432/db');
  });
});
