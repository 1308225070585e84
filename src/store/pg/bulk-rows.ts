/**
 * Many rows of one table in one statement whose text does not grow with the rows: each column
 * goes as one array parameter, `unnest`ed back into rows. Drizzle's multi-row `values()` builds a
 * statement of one parameter per value (34 a transaction row), each checked and typed by drizzle,
 * then sent and planned as a statement that differs with the row count; here that work is per
 * column (docs/benchmarks-history.md
 * "Cooperating workers on PostgreSQL: the bench, and where the CPU went"). Values are mapped as
 * drizzle maps them (the column's mapToDriverValue).
 */
import { getTableColumns, getTableName, sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';

type Tx = { run(query: SQL): Promise<void> };

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** `unnest($1::text[], …)` over every column of `table`, and the column names in that order. */
function unnestOf<T extends PgTable>(table: T, rows: readonly T['$inferInsert'][]): { names: string[]; from: SQL } {
  const columns = Object.entries(getTableColumns(table)) as [string, PgColumn][];
  const names = columns.map(([, column]) => column.name);
  const arrays = columns.map(([key, column]) => {
    const values = rows.map((row) => {
      const value = (row as Record<string, unknown>)[key];
      return value === undefined || value === null ? null : column.mapToDriverValue(value);
    });
    return sql`${sql.param(values)}::${sql.raw(`${column.getSQLType()}[]`)}`;
  });
  return { names, from: sql`unnest(${sql.join(arrays, sql`, `)})` };
}

/**
 * INSERT … ON CONFLICT (`key`) DO UPDATE: a row already stored takes every column of the new
 * one but the key and `keep` (database column names).
 */
export async function upsertRows<T extends PgTable>(
  tx: Tx,
  table: T,
  rows: readonly T['$inferInsert'][],
  options: { key: readonly string[]; keep?: readonly string[] },
): Promise<void> {
  if (rows.length === 0) return;
  const { names, from } = unnestOf(table, rows);
  const fixed = new Set([...options.key, ...(options.keep ?? [])]);
  const set = names.filter((n) => !fixed.has(n)).map((n) => `${quote(n)} = excluded.${quote(n)}`);
  await tx.run(
    sql`INSERT INTO ${sql.raw(quote(getTableName(table)))} (${sql.raw(names.map(quote).join(', '))}) SELECT * FROM ${from}
        ON CONFLICT (${sql.raw(options.key.map(quote).join(', '))}) DO UPDATE SET ${sql.raw(set.join(', '))}`,
  );
}
