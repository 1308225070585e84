/** balance-last-seen-migration.ts on PostgreSQL: a database migrated up to the migration before it. */
import { expect, it } from 'vitest';
import { openDatabaseStore } from '../../../src/store';
import { readJournal } from '../../../src/store/migration-versions';
import { createPool, PG_MIGRATIONS_DIR } from '../../../src/store/pg/open';
import { createOlderTestDatabase, describePostgres } from '../../support/postgres';
import { expectMigrated, LAST_SEEN_TAG, PLANTED } from '../balance-last-seen-migration';

describePostgres(`PostgreSQL migration ${LAST_SEEN_TAG.postgres}`, () => {
  it('keeps every balance, each seen last when first fetched; a later fetch of one is then recorded', async () => {
    const at = readJournal(PG_MIGRATIONS_DIR).findIndex((e) => e.tag === LAST_SEEN_TAG.postgres);
    expect(at).toBeGreaterThan(0);
    const url = await createOlderTestDatabase(at);
    const older = createPool(url, { max: 1 });
    try {
      for (const statement of PLANTED) await older.query(statement);
    } finally {
      await older.end();
    }
    const store = await openDatabaseStore(url);
    try {
      await expectMigrated(store);
    } finally {
      await store.close();
    }
  });
});
