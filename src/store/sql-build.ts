/**
 * The few statement shapes the store's operations need, built with drizzle `sql` from the SQLite
 * table definitions (sqlite/schema.ts) so that one operation is written once and runs on either
 * dialect's SqlRunner: the tables have the same names and columns on both (pg/schema.ts, held
 * equal by test/store/pg/schema.pg.test.ts), and every statement here is standard SQL that
 * SQLite and PostgreSQL read alike (INSERT … ON CONFLICT … DO UPDATE, RETURNING). Columns are
 * listed, never `*`, so a statement PostgreSQL has prepared (pg/named-statements.ts) keeps its
 * result type when a migration adds a column. Rows come back keyed by column name and are
 * mapped at this boundary to the table's row type (`rowOf`), the same JS types on both dialects
 * (PostgreSQL int8 arrives as a number: pg/open.ts).
 */
import { getTableColumns, sql, type Column, type SQL } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { SqlRow } from './sql-runner';

type Table = SQLiteTable;
type Values<T extends Table> = { [K in keyof T['$inferInsert']]?: T['$inferInsert'][K] | SQL };

const columnsCache = new WeakMap<Table, [string, Column][]>();

/** The table's columns as [row key, column], in the schema's order. */
function columnsOf(table: Table): [string, Column][] {
  let columns = columnsCache.get(table);
  if (!columns) {
    columns = Object.entries(getTableColumns(table));
    columnsCache.set(table, columns);
  }
  return columns;
}

function columnOf(table: Table, key: string): Column {
  const found = columnsOf(table).find(([k]) => k === key);
  if (!found) throw new Error(`no column ${key}`);
  return found[1];
}

/** A column by its bare name (an INSERT list, a SET, a conflict target). */
const bare = (column: Column): SQL => sql`${sql.identifier(column.name)}`;

/** The given values only (undefined is left out: the column keeps its default). */
function given<T extends Table>(table: T, values: Values<T>): [Column, unknown][] {
  return Object.entries(values)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => [columnOf(table, key), value]);
}

/** `SELECT <every column> FROM <table>`, to be followed by WHERE / ORDER BY. */
export function selectFrom(table: Table): SQL {
  const names = sql.join(
    columnsOf(table).map(([, column]) => bare(column)),
    sql`, `,
  );
  return sql`SELECT ${names} FROM ${table}`;
}

/** `RETURNING <every column>`. */
export function returningAll(table: Table): SQL {
  return sql`RETURNING ${sql.join(
    columnsOf(table).map(([, column]) => bare(column)),
    sql`, `,
  )}`;
}

/** `INSERT INTO <table> (…) VALUES (…)` of the given values. */
export function insertInto<T extends Table>(table: T, values: Values<T>): SQL {
  const pairs = given(table, values);
  return sql`INSERT INTO ${table} (${sql.join(
    pairs.map(([column]) => bare(column)),
    sql`, `,
  )}) VALUES (${sql.join(
    pairs.map(([, value]) => sql`${value}`),
    sql`, `,
  )})`;
}

/**
 * `ON CONFLICT (<target>) DO UPDATE SET …` of the given values; without them DO NOTHING (with no
 * target: whichever unique key the row conflicts on).
 */
export function onConflict<T extends Table>(table: T, target: readonly Column[], set?: Values<T>): SQL {
  const keys = target.length === 0 ? sql`` : sql`(${sql.join(target.map(bare), sql`, `)}) `;
  if (!set) return sql`ON CONFLICT ${keys}DO NOTHING`;
  return sql`ON CONFLICT ${keys}DO UPDATE SET ${assignments(table, set)}`;
}

/** `UPDATE <table> SET …` of the given values, to be followed by WHERE. */
export function updateSet<T extends Table>(table: T, set: Values<T>): SQL {
  return sql`UPDATE ${table} SET ${assignments(table, set)}`;
}

function assignments<T extends Table>(table: T, set: Values<T>): SQL {
  return sql.join(
    given(table, set).map(([column, value]) => sql`${bare(column)} = ${value}`),
    sql`, `,
  );
}

/** The new value a conflicting insert proposed for the column (`excluded.<column>`). */
export function excluded(column: Column): SQL {
  return sql`excluded.${bare(column)}`;
}

/** A row keyed by column name as the table's row type. */
export function rowOf<T extends Table>(table: T, row: SqlRow): T['$inferSelect'] {
  const out: Record<string, unknown> = {};
  for (const [key, column] of columnsOf(table)) out[key] = row[column.name] ?? null;
  return out;
}

export function rowsOf<T extends Table>(table: T, rows: readonly SqlRow[]): T['$inferSelect'][] {
  return rows.map((row) => rowOf(table, row));
}
