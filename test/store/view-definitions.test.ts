/**
 * Views defined once (src/store/view-definitions.ts): the newest `CREATE VIEW` of each defined
 * view in the committed migrations of each dialect is the SQL the definition generates (so a view
 * changed in one dialect's migration only, or in the definition only, fails here).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS_PATH, PG_MIGRATIONS_PATH } from '../../src/paths';
import { createViewSql, VIEW_DEFINITIONS } from '../../src/store/view-definitions';

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

describe('views defined once for both dialects', () => {
  it('defines at least one view, each named once', () => {
    const names = VIEW_DEFINITIONS.map((v) => v.name);
    expect(names.length).toBeGreaterThan(0);
    expect(new Set(names).size).toBe(names.length);
  });

  for (const dialect of ['sqlite', 'postgres'] as const) {
    for (const view of VIEW_DEFINITIONS) {
      it(`[${dialect}] the newest committed CREATE VIEW of ${view.name} is the generated one`, () => {
        const quoted = dialect === 'sqlite' ? `\`${view.name}\`` : `"${view.name}"`;
        const creates = statements(dialect).filter((s) => s.startsWith(`CREATE VIEW ${quoted} AS`));
        expect(creates.length, `no migration creates ${view.name}`).toBeGreaterThan(0);
        expect(creates.at(-1)).toBe(createViewSql(view, dialect));
      });
    }
  }
});
