/** balance-last-seen-migration.ts on SQLite: a database migrated up to the migration before it. */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store';
import { MIGRATIONS_DIR } from '../../src/store/sqlite/open';
import { expectMigrated, LAST_SEEN_TAG, PLANTED } from './balance-last-seen-migration';

const dir = mkdtempSync(join(tmpdir(), 'bankdata-migrate-last-seen-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe(`SQLite migration ${LAST_SEEN_TAG.sqlite}`, () => {
  it('keeps every balance, each seen last when first fetched; a later fetch of one is then recorded', async () => {
    const folder = join(dir, 'migrations');
    cpSync(MIGRATIONS_DIR, folder, { recursive: true });
    const journalPath = join(folder, 'meta', '_journal.json');
    const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: { tag: string }[] };
    const at = journal.entries.findIndex((e) => e.tag === LAST_SEEN_TAG.sqlite);
    expect(at).toBeGreaterThan(0);
    writeFileSync(journalPath, JSON.stringify({ ...journal, entries: journal.entries.slice(0, at) }));
    const path = join(dir, 'db', 'bankdata.sqlite');
    mkdirSync(join(dir, 'db'), { mode: 0o700 });
    const old = new Database(path);
    migrate(drizzle(old), { migrationsFolder: folder });
    for (const statement of PLANTED) old.exec(statement);
    old.close();

    const store = await openStore(path);
    try {
      await expectMigrated(store);
    } finally {
      await store.close();
    }
  });
});
