/**
 * Repeated statements are prepared once per connection (src/store/pg/named-statements.ts): a
 * parameterised text sent a second time runs as a named statement (pg_prepared_statements lists
 * it), with the same results; a text sent once, a text without parameters, a cursor and a view's
 * `*` stay unnamed; and one connection names at most 256 texts.
 */
import { expect, it } from 'vitest';
import Cursor from 'pg-cursor';
import { createPool } from '../../../src/store/pg/open';
import { createTestDatabase, describePostgres } from '../../support/postgres';

describePostgres('named statements for repeated texts', () => {
  it('prepares a text the second time it is sent, on that connection, with the same results', async () => {
    const pool = createPool(await createTestDatabase({ migrated: false }), { max: 1 });
    try {
      const client = await pool.connect();
      try {
        const prepared = async () =>
          (
            await client.query<{ statement: string }>('SELECT statement FROM pg_prepared_statements ORDER BY statement')
          ).rows.map((r) => r.statement);
        const text = 'SELECT $1::int + 1 AS n';
        expect((await client.query<{ n: number }>({ text, values: [1] })).rows).toEqual([{ n: 2 }]);
        expect(await prepared()).toEqual([]);
        expect((await client.query<{ n: number }>({ text, values: [2] })).rows).toEqual([{ n: 3 }]);
        // drizzle's form: the config and its values apart.
        expect((await client.query<{ n: number }>({ text }, [41])).rows).toEqual([{ n: 42 }]);
        expect(await prepared()).toEqual([text]);
        // No parameters, or a cursor: never named.
        await client.query('SELECT 1');
        await client.query('SELECT 1');
        for (let i = 0; i < 2; i++) {
          const cursor = client.query(new Cursor('SELECT $1::int AS n', [i]));
          expect(await cursor.read(1)).toEqual([{ n: i }]);
          await cursor.close();
        }
        expect(await prepared()).toEqual([text]);
        // A view's `*` (a newer binary may redefine the view under a running process): never named.
        await client.query('CREATE VIEW v_probe AS SELECT 1 AS a');
        for (let i = 0; i < 2; i++) await client.query({ text: 'SELECT * FROM v_probe WHERE a = $1', values: [i] });
        for (let i = 0; i < 2; i++)
          await client.query({ text: 'SELECT * FROM (SELECT $1::int AS a) AS q LIMIT 0', values: [i] });
        expect(await prepared()).toEqual([text]);
        await client.query('CREATE OR REPLACE VIEW v_probe AS SELECT 1 AS a, 2 AS b');
        expect((await client.query({ text: 'SELECT * FROM v_probe WHERE a = $1', values: [1] })).rows).toEqual([
          { a: 1, b: 2 },
        ]);
        // At most 256 names a connection.
        for (let i = 0; i < 300; i++) {
          for (let twice = 0; twice < 2; twice++)
            await client.query({ text: `SELECT $1::int + ${i} AS n`, values: [twice] });
        }
        expect((await prepared()).length).toBe(256);
        expect((await client.query<{ n: number }>({ text: 'SELECT $1::int + 299 AS n', values: [1] })).rows).toEqual([
          { n: 300 },
        ]);
      } finally {
        client.release();
      }
    } finally {
      await pool.end();
    }
  });
  it("plans a named statement for its own values every time: never a generic plan that cannot see an array's size", async () => {
    const pool = createPool(await createTestDatabase({ migrated: false }), { max: 1 });
    try {
      const client = await pool.connect();
      try {
        // The shape of the store's reads of stored rows among a window's or a check's ids: one
        // account's rows, an array of thousands of ids (a generic plan takes it for a few).
        await client.query('CREATE TABLE probe (k text, id text, PRIMARY KEY (k, id))');
        await client.query("INSERT INTO probe SELECT 'a', 'id-' || g FROM generate_series(1, 20000) g");
        await client.query('ANALYZE probe');
        const text = 'SELECT count(*)::int AS n FROM probe WHERE k = $1 AND id = ANY($2::text[])';
        for (let i = 0; i < 10; i++) {
          const ids = Array.from({ length: 5000 }, (_, j) => `id-${i * 1000 + j + 1}`);
          const { rows } = await client.query({ text, values: ['a', ids] });
          expect(rows).toEqual([{ n: 5000 }]);
        }
        const plans = await client.query<{ generic_plans: string; custom_plans: string }>(
          'SELECT generic_plans::text, custom_plans::text FROM pg_prepared_statements WHERE statement = $1',
          [text],
        );
        // Named from its second run on: nine runs, each planned for its values.
        expect(plans.rows).toEqual([{ generic_plans: '0', custom_plans: '9' }]);
      } finally {
        client.release();
      }
    } finally {
      await pool.end();
    }
  });
});
