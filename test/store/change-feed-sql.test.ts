/**
 * The change feed's triggers are generated from one list (src/store/change-feed.ts): the committed
 * migrations of each dialect hold that SQL (the newest statement creating each trigger is the
 * generated one), and the list watches every v_transactions column but the key and bookkeeping, so
 * a column added to the view without its line in the list fails here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS_PATH, PG_MIGRATIONS_PATH } from '../../src/paths';
import { VIEW_COLUMNS } from '../../src/store';
import { CHANGE_SOURCES, changeFeedTriggersSql, UNWATCHED_COLUMNS, WATCHED_COLUMNS } from '../../src/store/change-feed';
import { createViewSql, viewDefinition } from '../../src/store/view-definitions';

const MIGRATIONS = { sqlite: MIGRATIONS_PATH, postgres: PG_MIGRATIONS_PATH } as const;

/** Every statement of the dialect's migrations in the order they apply, comment lines left out. */
function statements(dialect: keyof typeof MIGRATIONS): string[] {
  const dir = MIGRATIONS[dialect];
  const journal = JSON.parse(readFileSync(join(dir, 'meta', '_journal.json'), 'utf8')) as {
    entries: { tag: string }[];
  };
  return journal.entries.flatMap(({ tag }) =>
    readFileSync(join(dir, `${tag}.sql`), 'utf8')
      .split('--> statement-breakpoint')
      .map((statement) =>
        statement
          .split('\n')
          .filter((line) => !line.trimStart().startsWith('--'))
          .join('\n')
          .trim(),
      ),
  );
}

const created = (statement: string) => /^CREATE (?:TRIGGER|FUNCTION) (\w+)/.exec(statement)?.[0];

describe('the change feed generated from one list', () => {
  it('watches every column of v_transactions but the key and bookkeeping, and only columns of it', () => {
    const view: readonly string[] = VIEW_COLUMNS.v_transactions;
    expect([...WATCHED_COLUMNS, ...UNWATCHED_COLUMNS].sort()).toEqual([...view].sort());
    expect(new Set(CHANGE_SOURCES.map((s) => s.table)).size).toBe(CHANGE_SOURCES.length);
  });

  it("compares a joined row inserted or deleted with the view's defaults (its COALESCE), so the two cannot drift", () => {
    const categories = CHANGE_SOURCES.find((s) => s.table === 'transaction_categories')!;
    for (const dialect of ['sqlite', 'postgres'] as const) {
      const view = createViewSql(viewDefinition('v_transactions')!, dialect);
      const coalesced = [...view.matchAll(/COALESCE\(c\.(\w+), '([^']*)'\)/g)].map(([, column, value]) => [
        column,
        value,
      ]);
      expect(coalesced.length).toBeGreaterThan(0);
      expect(Object.fromEntries(coalesced)).toEqual(categories.defaults);
      // The view's suspected_duplicate is an open suspicion; the feed logs a suspicion's presence by the same test.
      const suspicions = CHANGE_SOURCES.find((s) => s.table === 'duplicate_suspicions')!;
      expect(view).toContain(suspicions.shownWhen!('s'));
    }
  });

  for (const dialect of ['sqlite', 'postgres'] as const) {
    it(`[${dialect}] the newest committed statement creating each trigger is the generated one`, () => {
      const committed = statements(dialect);
      const generated = changeFeedTriggersSql(dialect)
        .split('--> statement-breakpoint')
        .map((s) => s.trim());
      expect(generated.length).toBeGreaterThan(2);
      for (const statement of generated) {
        const head = created(statement)!;
        const newest = committed.filter((c) => created(c) === head).at(-1);
        expect(newest, head).toBe(statement);
      }
    });
  }
});
