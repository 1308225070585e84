import { readFileSync } from 'node:fs';
import { chmodSync, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ConsentId } from '@bankdata/core/schemas';
import { openStore } from '../../src/store';
import { CONSENT, tempDir } from './helpers';

/** Every migration in src/store/sqlite/migrations/meta/_journal.json. */
const MIGRATIONS = (
  JSON.parse(
    readFileSync(new URL('../../src/store/sqlite/migrations/meta/_journal.json', import.meta.url), 'utf8'),
  ) as {
    entries: unknown[];
  }
).entries.length;

const mode = (path: string) => statSync(path).mode & 0o777;

describe('openStore on SQLite: its file, directory, pragmas and migrations', () => {
  it('SQLite: creates a private directory (0700) and database file (0600) and applies the migrations', async () => {
    const root = tempDir();
    const file = join(root, 'data', 'nested', 'bankdata.sqlite');
    const store = await openStore(file);
    await store.consents.add(CONSENT); // a write, so that -wal and -shm exist
    expect(mode(join(root, 'data'))).toBe(0o700);
    expect(mode(join(root, 'data', 'nested'))).toBe(0o700);
    expect(mode(file)).toBe(0o600);
    for (const side of ['-wal', '-shm']) {
      expect(existsSync(file + side)).toBe(true);
      expect(mode(file + side)).toBe(0o600);
    }
    const tables = store.sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all();
    expect(tables.map((t) => (t as { name: string }).name)).toEqual(
      expect.arrayContaining([
        'accounts',
        'balances',
        'consents',
        'lease',
        'rejects',
        'runs',
        'statements',
        'transactions',
      ]),
    );
    expect(store.sqlite.prepare('SELECT count(*) AS n FROM __drizzle_migrations').get()).toEqual({ n: MIGRATIONS });
    await store.close();
  });

  it('SQLite: runs in WAL mode with foreign keys on and a busy timeout', async () => {
    const store = await openStore(join(tempDir(), 'bankdata.sqlite'));
    expect(store.sqlite.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(store.sqlite.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(store.sqlite.pragma('busy_timeout', { simple: true })).toBeGreaterThanOrEqual(5000);
    await expect(
      store.consents.recordOutcome('e2c0234a-9f5d-4b7a-9c83-4d1b6e3f0a92' as ConsentId, 'ok'),
    ).rejects.toThrow();
    await store.close();
  });

  it('reopens an existing database without migrating again and keeps its rows', async () => {
    const file = join(tempDir(), 'bankdata.sqlite');
    const first = await openStore(file);
    await first.consents.add(CONSENT);
    await first.close();
    const second = await openStore(file);
    expect((await second.consents.list()).map((c) => c.consentId)).toEqual([CONSENT]);
    expect(second.sqlite.prepare('SELECT count(*) AS n FROM __drizzle_migrations').get()).toEqual({ n: MIGRATIONS });
    await second.close();
  });

  it('SQLite: leaves the mode of an existing database file and directory as they are (it did not create them)', async () => {
    const dir = join(tempDir(), 'shared');
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    const file = join(dir, 'bankdata.sqlite');
    writeFileSync(file, '', { mode: 0o644 });
    chmodSync(file, 0o644);
    await (await openStore(file)).close();
    expect(mode(file)).toBe(0o644);
    expect(mode(dir)).toBe(0o755);
  });
});
