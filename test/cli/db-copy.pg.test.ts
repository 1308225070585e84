/**
 * `bankdata db copy` (the command; the copy functions are tested in test/store/pg/copy.pg.test.ts):
 * a synced SQLite file into an empty PostgreSQL database and one consent of it back into a new
 * file, through the compiled CLI; the refusals (a target with data, an existing file, filters
 * into PostgreSQL, two files) with their exit codes, and no password in any message (those run
 * in process: test/cli/cli-process.ts `runCliInProcess`).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startHarness, type Harness } from '../fixtures/sync-harness';
import { tempDir } from '../store/helpers';
import { readJournal } from '../../src/store/migration-versions';
import { PG_MIGRATIONS_DIR } from '../../src/store/pg/open';
import { createOlderTestDatabase, createTestDatabase, describePostgres } from '../support/postgres';
import { runCli, runCliInProcess } from './cli-process';

const rows = (file: string, sql: string, ...params: unknown[]) => {
  const db = new Database(file, { readonly: true });
  try {
    return db
      .prepare(sql)
      .raw(true)
      .all(...params);
  } finally {
    db.close();
  }
};

describePostgres('bankdata db copy', () => {
  let harness: Harness;
  let url = '';

  beforeAll(async () => {
    harness = await startHarness({ seed: 11, historyDays: 150 });
    expect((await harness.sync()).outcome).toBe('ok');
    url = await createTestDatabase({ migrated: false });
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('copies a SQLite file into an empty PostgreSQL database, then one consent back into a new file with its statement files', async () => {
    const into = await runCli(['db', 'copy', '--from', harness.store.path, '--to', url, '--data-dir', harness.dataDir]);
    expect(into.stderr).toMatch(/^bankdata: copied \d+ row\(s\) and \d+ statement file\(s\) from /);
    expect(into.code).toBe(0);
    const counts = JSON.parse(into.stdout) as Record<string, number>;
    const total = rows(harness.store.path, 'SELECT count(*) FROM transactions')[0] as [number];
    expect(counts['transactions']).toBe(total[0]);

    // The consent that owns the most transactions: a row read through two consents belongs to the
    // one that first returned it (docs/data-model.md "Which consent a row belongs to"), and the
    // consents sync in parallel, so a given consent may own none.
    const [consent] = rows(
      harness.store.path,
      'SELECT consent_id FROM v_transactions GROUP BY consent_id ORDER BY count(*) DESC, consent_id LIMIT 1',
    )[0] as [string];
    const dir = tempDir();
    const file = join(dir, 'data', 'one.sqlite');
    const back = await runCli(['db', 'copy', '--from', url, '--to', file, '--consent', consent]);
    expect(back.stderr).toContain('copied');
    expect(back.code).toBe(0);
    // The summary goes through the logger (README "Output"): none with -q, a JSON record with --log-format json.
    const quiet = await runCli([
      '-q',
      'db',
      'copy',
      '--from',
      url,
      '--to',
      join(dir, 'quiet.sqlite'),
      '--consent',
      consent,
    ]);
    expect([quiet.code, quiet.stderr]).toEqual([0, '']);
    const json = await runCli([
      '--log-format',
      'json',
      'db',
      'copy',
      '--from',
      url,
      '--to',
      join(dir, 'json.sqlite'),
      '--consent',
      consent,
    ]);
    expect(json.code, json.stderr).toBe(0);
    expect(
      json.stderr
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    ).toEqual([
      expect.objectContaining({ level: 'notice', msg: expect.stringMatching(/^copied \d+ row\(s\)/) as string }),
    ]);
    const query =
      'SELECT bank, account_id, transaction_id, amount_text, description, status FROM v_transactions WHERE consent_id = ? ORDER BY 1, 2, 3';
    const copied = rows(file, query, consent);
    expect(copied.length).toBeGreaterThan(0);
    expect(copied).toEqual(rows(harness.store.path, query, consent));
    // Only the consent's accounts travel (an account another consent also reads comes whole).
    const accounts = `SELECT account_id FROM accounts WHERE consent_id = ?
                      UNION SELECT account_id FROM sync_state WHERE consent_id = ? ORDER BY 1`;
    expect(rows(file, 'SELECT DISTINCT account_id FROM v_transactions ORDER BY 1')).toEqual(
      rows(harness.store.path, accounts, consent, consent),
    );
    const files = rows(file, 'SELECT file_path FROM statements WHERE file_path IS NOT NULL') as [string][];
    for (const [path] of files) {
      expect(readFileSync(join(dir, 'data', path)).equals(readFileSync(join(harness.dataDir, path))), path).toBe(true);
    }
  });

  it('takes the data directory from BANKDATA_DATA_DIR for a SQLite file kept elsewhere (its statement files copied)', async () => {
    // The file away from its data directory: only the configured data directory finds the statement files.
    const elsewhere = join(tempDir(), 'moved.sqlite');
    const source = new Database(harness.store.path, { readonly: true });
    try {
      await source.backup(elsewhere);
    } finally {
      source.close();
    }
    const target = await createTestDatabase({ migrated: false });
    const copy = await runCliInProcess(['db', 'copy', '--from', elsewhere, '--to', target], {
      env: { BANKDATA_DATA_DIR: harness.dataDir },
    });
    expect(copy.code, copy.stderr).toBe(0);
    const counts = JSON.parse(copy.stdout) as Record<string, number>;
    const withFile = rows(elsewhere, 'SELECT count(*) FROM statements WHERE file_path IS NOT NULL')[0] as [number];
    expect(withFile[0]).toBeGreaterThan(0);
    expect(counts['statementFiles']).toBe(withFile[0]);
  });

  it('refuses what would merge or overwrite data, and never shows the password', async () => {
    const secretUrl = url.replace('://', '://copyuser:s3cret-pw@');
    const again = await runCliInProcess([
      'db',
      'copy',
      '--from',
      harness.store.path,
      '--to',
      url,
      '--data-dir',
      harness.dataDir,
    ]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('already holds data');

    // A database as the target is refused by the output guard (src/fs/output-path.ts) before anything opens.
    const existing = await runCliInProcess(['db', 'copy', '--from', url, '--to', harness.store.path]);
    expect(existing.code).toBe(7);
    expect(existing.stderr).toContain(`${harness.store.path}: is a SQLite database`);
    const other = join(tempDir(), 'other.txt');
    writeFileSync(other, 'not mine to replace');
    const existingFile = await runCliInProcess(['db', 'copy', '--from', url, '--to', other]);
    expect(existingFile.code).toBe(2);
    expect(existingFile.stderr).toContain('exists; a copy goes into a new file');

    const filtered = await runCliInProcess(['db', 'copy', '--from', harness.store.path, '--to', url, '--consent', 'x']);
    expect(filtered.code).toBe(2);

    const nothing = join(tempDir(), 'nothing.sqlite');
    const noMatch = await runCliInProcess([
      'db',
      'copy',
      '--from',
      url,
      '--to',
      nothing,
      '--account',
      'acc-no-such-account',
    ]);
    expect(noMatch.code).toBe(2);
    expect(noMatch.stderr).toContain('select no account');
    expect(existsSync(nothing)).toBe(false);

    const twoFiles = await runCliInProcess([
      'db',
      'copy',
      '--from',
      harness.store.path,
      '--to',
      join(tempDir(), 'b.sqlite'),
    ]);
    expect(twoFiles.code).toBe(2);

    const target = join(tempDir(), 'c.sqlite');
    const refused = await runCliInProcess(['db', 'copy', '--from', secretUrl, '--to', target]);
    expect(refused.code).toBe(6);
    expect(refused.stderr).not.toContain('s3cret-pw');
    expect(refused.stderr).toContain('refused the login');
    expect(existsSync(target)).toBe(false);
  });
  it('refuses a PostgreSQL source one migration behind or empty (exit 6) and leaves it as it was (never migrated)', async () => {
    const journal = readJournal(PG_MIGRATIONS_DIR);
    const older = await createOlderTestDatabase(journal.length - 1);
    const migrationRows = async () => {
      const pool = new pg.Pool({ connectionString: older, max: 1 });
      pool.on('error', () => undefined);
      try {
        return (await pool.query('SELECT hash, created_at::text FROM drizzle.__drizzle_migrations ORDER BY 2')).rows;
      } finally {
        await pool.end();
      }
    };
    const before = await migrationRows();
    expect(before).toHaveLength(journal.length - 1);
    const target = join(tempDir(), 'from-older.sqlite');
    const r = await runCliInProcess(['db', 'copy', '--from', older, '--to', target]);
    expect(r.code, r.stderr).toBe(6);
    expect(r.stderr).toMatch(/^bankdata: database .*: needs 1 migration\(s\) before this version can read it\n/);
    expect(r.stderr).toContain('bankdata db migrate');
    expect(existsSync(target)).toBe(false);
    expect(await migrationRows()).toEqual(before);

    // An empty database as the source: refused as an empty SQLite source is, and not migrated.
    const empty = await createTestDatabase({ migrated: false });
    const fromEmpty = await runCliInProcess(['db', 'copy', '--from', empty, '--to', target]);
    expect(fromEmpty.code, fromEmpty.stderr).toBe(6);
    expect(fromEmpty.stderr).toContain('is empty: nothing has been synced into it');
    const pool = new pg.Pool({ connectionString: empty, max: 1 });
    pool.on('error', () => undefined);
    try {
      const found = await pool.query<{ t: string | null }>(
        "SELECT to_regclass('drizzle.__drizzle_migrations')::text AS t",
      );
      expect(found.rows[0]!.t).toBeNull();
    } finally {
      await pool.end();
    }
    expect(existsSync(target)).toBe(false);
  });
  it("an older SQLite file holding a NUL (U+0000): its rows go to the target's rejects with the reason, the other texts escaped, and the command says how many (exit 1: partial)", async () => {
    // A file written before the sync kept such records aside: a nickname and a run's error summary
    // with a NUL in them, written straight into the file.
    const dir = tempDir();
    const file = join(dir, 'old.sqlite');
    const source = new Database(harness.store.path, { readonly: true });
    await source.backup(file);
    source.close();
    const old = new Database(file);
    const [bank, accountId] = old
      .prepare('SELECT bank, account_id FROM accounts ORDER BY bank, account_id LIMIT 1')
      .raw(true)
      .get() as [string, string];
    old
      .prepare('UPDATE accounts SET nickname = ? WHERE bank = ? AND account_id = ?')
      .run('Every\u0000day', bank, accountId);
    const [runId] = old.prepare('SELECT run_id FROM runs LIMIT 1').raw(true).get() as [string];
    old.prepare('UPDATE runs SET error_summary = ? WHERE run_id = ?').run('a server said \u0000', runId);
    const count = (table: string) =>
      (
        old
          .prepare(`SELECT count(*) FROM ${table} WHERE bank = ? AND account_id = ?`)
          .raw(true)
          .get(bank, accountId) as [number]
      )[0];
    const owned = {
      balances: count('balances'),
      transactions: count('transactions'),
      statements: count('statements'),
      parties: count('parties'),
    };
    old.close();
    expect(owned.transactions).toBeGreaterThan(0);

    const target = await createTestDatabase({ migrated: false });
    const copy = await runCli(['db', 'copy', '--from', file, '--to', target, '--data-dir', harness.dataDir]);
    expect(copy.code, copy.stderr).toBe(1);
    // The account and every row of it (its balances, transactions, statements, its owner's party).
    const aside = 1 + owned.balances + owned.transactions + owned.statements + owned.parties;
    expect(copy.stderr).toContain(
      `${aside} row(s) holding a NUL character (U+0000) kept aside in the target's rejects table, with the reason`,
    );
    expect(copy.stderr).toContain('1 row(s) with a NUL character (U+0000) written with it escaped as \\u0000');
    expect((JSON.parse(copy.stdout) as { nul: unknown }).nul).toEqual({ keptAside: aside, escaped: 1 });

    const pool = new pg.Pool({ connectionString: target, max: 1 });
    try {
      const rejects = await pool.query<{ resource: string; reason: string; raw_payload: string }>(
        'SELECT resource, reason, raw_payload FROM rejects WHERE bank = $1 AND account_id = $2 ORDER BY id',
        [bank, accountId],
      );
      const account = rejects.rows.filter((r) => r.resource === 'account');
      expect(account).toHaveLength(1);
      expect(account[0]!.reason).toBe(
        'copied from SQLite: nickname holds a NUL character (U+0000), which PostgreSQL cannot store as text',
      );
      expect((JSON.parse(account[0]!.raw_payload) as { AccountId: string }).AccountId).toBe(accountId);
      expect(rejects.rows.filter((r) => r.resource === 'transaction')).toHaveLength(owned.transactions);
      expect(rejects.rows.filter((r) => r.resource === 'transaction')[0]!.reason).toBe(
        `copied from SQLite: its account ${accountId} was kept aside (a NUL character)`,
      );
      const held = await pool.query('SELECT 1 FROM v_transactions WHERE bank = $1 AND account_id = $2', [
        bank,
        accountId,
      ]);
      expect(held.rows).toHaveLength(0);
      const run = await pool.query<{ error_summary: string }>('SELECT error_summary FROM runs WHERE run_id = $1', [
        runId,
      ]);
      expect(run.rows[0]!.error_summary).toBe('a server said \\u0000');
    } finally {
      await pool.end();
    }
  });
});
