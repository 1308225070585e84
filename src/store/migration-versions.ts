/**
 * Which schema a database holds, read from drizzle's migrations table, for both dialects
 * (docs/security.md "Versions and migrations").
 *
 * drizzle records one row per migration it applied: `hash` (the SHA-256 of the migration's .sql
 * file) and `created_at` (the journal entry's `when`, the millisecond drizzle-kit generated it).
 * It keeps no tag. Before migrating it reads only the newest `created_at` and applies the
 * journal's entries newer than it; a database that a newer bankdata migrated therefore looks
 * current to an older one (nothing in its journal is newer), and would be read and written with
 * the wrong schema. Here a row is known when its `created_at` is the `when` of an entry of this
 * binary's journal (the hash is not the key: it changes with any byte of the file, even a
 * comment). A row that is not known is a migration this binary does not have: every open of
 * either dialect refuses the database (exit 6), naming the newest migration this binary knows
 * and the unknown one by the time drizzle-kit gave it and its hash, the two things stored.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseError } from '../errors';

/** One entry of a migrations journal, with the hash drizzle stores for it. */
export interface KnownMigration {
  tag: string;
  /** The journal's `when`: what drizzle stores as created_at. */
  when: number;
  /** SHA-256 of the .sql file, as drizzle computes it. */
  hash: string;
  /** The file's statements, as drizzle splits them. */
  statements: string[];
}

/** A row of drizzle's migrations table. */
export interface AppliedMigration {
  hash: string;
  createdAt: number;
}

export interface SchemaState {
  /** Rows in the migrations table (0: nothing applied, or no table yet). */
  applied: number;
  /** The newest known migration applied (null when none is). */
  current: KnownMigration | null;
  /** The journal's entries drizzle would apply: those newer than the newest row. */
  pending: KnownMigration[];
  /** Rows that are not one of the journal's entries, oldest first. */
  unknown: AppliedMigration[];
  /** The newest entry of this binary's journal. */
  newest: KnownMigration;
}

const journals = new Map<string, KnownMigration[]>();

/** The journal of a migrations folder (meta/_journal.json) with each file's hash; read once. */
export function readJournal(folder: string): KnownMigration[] {
  const cached = journals.get(folder);
  if (cached) return cached;
  const journal = JSON.parse(readFileSync(join(folder, 'meta', '_journal.json'), 'utf8')) as {
    entries: { tag: string; when: number }[];
  };
  const entries = journal.entries.map((e) => {
    const text = readFileSync(join(folder, `${e.tag}.sql`), 'utf8');
    return {
      tag: e.tag,
      when: e.when,
      hash: createHash('sha256').update(text).digest('hex'),
      statements: text.split('--> statement-breakpoint'),
    };
  });
  if (entries.length === 0) throw new RangeError(`no migration in ${folder}`);
  journals.set(folder, entries);
  return entries;
}

/** What the rows of a migrations table say about the database, against a journal. */
export function schemaState(journal: readonly KnownMigration[], rows: readonly AppliedMigration[]): SchemaState {
  const byWhen = new Map(journal.map((m) => [m.when, m]));
  const newest = journal.reduce((a, b) => (b.when > a.when ? b : a));
  const last = rows.reduce((max, r) => Math.max(max, r.createdAt), -Infinity);
  let current: KnownMigration | null = null;
  for (const row of rows) {
    const known = byWhen.get(row.createdAt);
    if (known && (!current || known.when > current.when)) current = known;
  }
  return {
    applied: rows.length,
    current,
    pending: journal.filter((m) => rows.length === 0 || m.when > last),
    unknown: rows.filter((r) => !byWhen.has(r.createdAt)).sort((a, b) => a.createdAt - b.createdAt),
    newest,
  };
}

/** The unknown migration as far as drizzle's row tells it: when it was generated, and its hash. */
export function describeApplied(row: AppliedMigration): string {
  const at = Number.isFinite(row.createdAt) ? new Date(row.createdAt) : null;
  const when = at && !Number.isNaN(at.getTime()) ? at.toISOString().replace(/\.\d+Z$/, 'Z') : String(row.createdAt);
  return `a migration of ${when} (hash ${row.hash.slice(0, 12)})`;
}

/**
 * Throws exit 6 when the database holds a migration this binary does not know. `restore` says
 * where the copy before it would be (SQLite: the .before-migrate- copies; PostgreSQL: a dump).
 */
export function refuseUnknownMigrations(location: string, state: SchemaState, restore: string): void {
  const found = state.unknown.at(-1);
  if (!found) return;
  const more = state.unknown.length > 1 ? ` and ${state.unknown.length - 1} more` : '';
  throw new DatabaseError(
    location,
    `was migrated by a newer bankdata: it holds ${describeApplied(found)}${more}, which this bankdata does not know ` +
      `(the newest it knows is ${state.newest.tag})`,
    `use the newer bankdata that migrated it, or restore ${restore}`,
  );
}

/**
 * A migration that failed (drizzle rolled it back: it runs them in one transaction) as exit 6:
 * which migration, and the database's own message and code. drizzle wraps the driver's error
 * in one whose `cause` is it and that names the statement that failed.
 */
export function migrationFailed(
  location: string,
  error: unknown,
  pending: readonly KnownMigration[],
  hint: string,
): DatabaseError {
  if (error instanceof DatabaseError) return error;
  const wrapper = error as { cause?: unknown; query?: unknown; message?: unknown } | null;
  const cause = (wrapper?.cause ?? error) as { message?: unknown; code?: unknown } | null;
  // PostgreSQL's session gives the statement as `query`; SQLite's sync session only in its message.
  const quoted =
    typeof wrapper?.message === 'string' ? /^Failed to run the query '([\s\S]*)'$/.exec(wrapper.message) : null;
  const statement = (typeof wrapper?.query === 'string' ? wrapper.query : (quoted?.[1] ?? '')).trim();
  const failed = statement ? pending.find((m) => m.statements.some((s) => s.trim() === statement)) : undefined;
  const message = typeof cause?.message === 'string' ? cause.message.split('\n')[0] : String(cause);
  const code = typeof cause?.code === 'string' ? ` (${cause.code})` : '';
  const which = failed ? `migration ${failed.tag}` : `a migration (of ${pending.map((m) => m.tag).join(', ')})`;
  return new DatabaseError(location, `${which} failed and was rolled back: ${message}${code}`, hint);
}
