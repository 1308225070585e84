/**
 * Server-side prepared statements for the statements a connection sends again and again: the
 * sync's per-unit reads and writes are the same few dozen texts with new values, and PostgreSQL
 * parses, analyses and plans an unnamed statement anew every time. A parameterised query whose
 * text this connection has sent before gets a name derived from its text, so node-postgres
 * prepares it once on the connection and then only binds and executes it. Texts sent once (a
 * migration, a copy) stay unnamed, so do texts whose columns are a view's `*` (below), and each
 * connection names at most MAX_NAMED texts (an `IN` list of a new length is a new text), so the
 * server's memory per connection stays bounded.
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';

const MAX_NAMED = 256;

/**
 * A text whose result columns are a view's or a subquery's `*` stays unnamed: a newer bankdata
 * may migrate and redefine the view while this process runs (a scheduler, a worker), and
 * PostgreSQL refuses to run a prepared statement whose result type has changed ("cached plan
 * must not change result type"). Texts that list their columns are safe.
 */
const SELECTS_STAR_OF_VIEW = /\bselect\s+\*\s+from\s+(?:v_\w+|\()/i;

interface QueryConfigLike {
  text?: unknown;
  values?: unknown;
  name?: unknown;
  submit?: unknown;
}

/** Wraps `client.query` of a new pooled connection (createPool's `connect` listener). */
export function nameRepeatedStatements(client: pg.PoolClient): void {
  const seen = new Set<string>();
  const named = new Map<string, string>();
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  const nameOf = (text: string): string | undefined => {
    const known = named.get(text);
    if (known) return known;
    if (SELECTS_STAR_OF_VIEW.test(text)) return undefined;
    if (!seen.has(text)) {
      if (seen.size < MAX_NAMED * 4) seen.add(text);
      return undefined;
    }
    if (named.size >= MAX_NAMED) return undefined;
    const name = `bankdata_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`;
    named.set(text, name);
    return name;
  };
  (client as { query: unknown }).query = (...args: unknown[]) => {
    const [first, second] = args;
    if (first !== null && typeof first === 'object') {
      const config = first as QueryConfigLike;
      // Values come in the config or as the second argument (drizzle, the pool). Only plain
      // configs with values: a Cursor (a submittable) and a text without parameters (BEGIN,
      // COMMIT, several statements at once) go through as they are.
      const values = Array.isArray(second) ? second : config.values;
      if (
        typeof config.text === 'string' &&
        Array.isArray(values) &&
        values.length > 0 &&
        config.name === undefined &&
        config.submit === undefined
      ) {
        const name = nameOf(config.text);
        if (name) return query({ ...config, name }, ...args.slice(1));
      }
    }
    return query(...args);
  };
}
