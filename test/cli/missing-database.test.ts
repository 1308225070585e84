/**
 * A typo in --db (docs/security.md "Local misuse"): a SQLite file that does not exist is refused
 * by every command of the registry that has nothing new to store in it (exit 6, one line naming
 * it, nothing created), writers whose writing is a by-product (`check`, `transfers`), a prune and
 * the live reads of consents and payments included, and `payments create` (its rerun guard finds
 * earlier attempts only in the database that holds them: a new one on purpose takes
 * `--new-database`, test/payments/cli.test.ts). Only the commands that bring something new to
 * store (a consent, the metadata, the scheduler's service: store-commands.ts `creates`) make it;
 * `sync` says that no consent is registered (exit 2) and makes nothing. The cases are every leaf of the
 * registered program (store-commands.ts); a missing database is SQLite's alone.
 */
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInProcess } from './cli-process';
import { STORE_COMMANDS } from './store-commands';

/** The bank unreachable: a command that got past the database would say so (exit 5), not 6. */
const ENV = {
  BANKDATA_DATA_BASE_URL: 'http://127.0.0.1:1',
  BANKDATA_CLIENT_ID: 'client',
  BANKDATA_CLIENT_SECRET: 'missing-database-test-secret-2b7e91',
  BANKDATA_PAYMENTS_BASE_URL: 'http://127.0.0.1:1',
  BANKDATA_PAYMENTS_CLIENT_ID: 'client',
  BANKDATA_PAYMENTS_CLIENT_SECRET: 'missing-database-test-secret-2b7e91',
};

const creating = STORE_COMMANDS.filter((c) => c.creates !== undefined);
const refusing = STORE_COMMANDS.filter((c) => c.creates === undefined && (c.dialects ?? ['sqlite']).includes('sqlite'));

describe('a SQLite database that does not exist', () => {
  it('is made only by the commands that bring something new to store', () => {
    expect(creating.map((c) => c.name)).toEqual([
      'payments create',
      'consents add',
      'consents create',
      'consents revoke',
      'meta',
      'schedule',
    ]);
    expect(refusing.length).toBeGreaterThan(20);
  });

  it.each(refusing.map((c) => [`${c.name} ${c.args('DIR', 'DB').join(' ')}`.trim(), c] as const))(
    'bankdata --db typo.sqlite %s: exit 6 naming it, one line and its hint, nothing created',
    async (_, c) => {
      const dir = mkdtempSync(join(tmpdir(), 'bankdata-missing-db-'));
      const typo = join(dir, 'typo.sqlite');
      const r = await runCliInProcess(['--db', typo, '--data-dir', dir, ...c.name.split(' '), ...c.args(dir, typo)], {
        cwd: dir,
        env: ENV,
      });
      const said = c.missing?.(typo);
      if (said) {
        expect(r.code, r.stderr).toBe(said.code);
        expect(r.stderr.trimEnd().split('\n')[0]).toBe(said.line);
      } else {
        expect(r.code, r.stderr).toBe(6);
        expect(r.stderr.trimEnd().split('\n')).toEqual([
          `bankdata: database ${typo}: does not exist`,
          expect.stringMatching(/^hint: /) as string,
        ]);
      }
      expect(existsSync(typo)).toBe(false);
      expect(readdirSync(dir)).toEqual([]);
    },
  );
});

/**
 * A command that makes a missing database refuses its arguments first: a bad value (exit 2) makes
 * no file, neither the database nor its -wal or -shm, and no data directory's content. Every case
 * that `creates` names its bad arguments (store-commands.ts `badArgs`), so a creating command
 * added later needs some.
 */
describe('a command that makes the database, refusing its arguments', () => {
  it('every command that makes a missing database has bad arguments to be refused with', () => {
    expect(creating.filter((c) => (c.badArgs ?? []).length === 0).map((c) => c.name)).toEqual([]);
  });

  // Every case with bad arguments, creating or not: refused for them first (exit 2), whatever the database.
  const cases = STORE_COMMANDS.flatMap((c) =>
    (c.badArgs ?? []).map(
      (bad) => [`${c.name} ${bad.args.join(' ')}`, [...c.name.split(' '), ...bad.args], bad.says] as const,
    ),
  );
  it.each(cases)('bankdata --db missing.sqlite %s: exit 2, saying so, nothing created', async (_, args, says) => {
    const dir = mkdtempSync(join(tmpdir(), 'bankdata-missing-db-args-'));
    const missing = join(dir, 'missing.sqlite');
    const r = await runCliInProcess(['--db', missing, '--data-dir', dir, ...args], { cwd: dir, env: ENV });
    expect(r.code, r.stderr).toBe(2);
    const [first = ''] = r.stderr.split('\n');
    expect(first).toMatch(/^bankdata: /);
    expect(first).toContain(says);
    for (const file of [missing, `${missing}-wal`, `${missing}-shm`]) expect(existsSync(file), file).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });
});
