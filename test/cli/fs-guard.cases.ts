/**
 * The findings of the second review about files (issue 31, items 1 and 3), one case each,
 * driven through the `bankdata` command (run in process) on both dialects: fs-guard.test.ts runs
 * them on SQLite, fs-guard.pg.test.ts on PostgreSQL (with the cases of `db copy` from
 * PostgreSQL, which only that dialect has). The database is the export fixture (a SQLite file
 * with every view filled), copied into PostgreSQL by `bankdata db copy` for that dialect.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDatabaseStore, openStore, type Store } from '../../src/store';
import { createFixtureStore, PNZ_CONSENT, type FixtureStore } from '../export/fixture-store';
import { execute, type DialectSetup } from '../support/dialects';
import { runCliInProcess } from './cli-process';

export const STATEMENT_PATH = 'statements/PNZ/abc/def.pdf';
export const STATEMENT_BYTES = Buffer.from('%PDF-1.4 the February statement\n');

/** The export fixture with its one statement file on disk (under `<fx.dir>/data`) and its hash in the row. */
export async function fixtureWithStatementFile(): Promise<FixtureStore & { dataDir: string }> {
  const fx = await createFixtureStore();
  const dataDir = join(fx.dir, 'data');
  mkdirSync(join(dataDir, 'statements', 'PNZ', 'abc'), { recursive: true });
  writeFileSync(join(dataDir, STATEMENT_PATH), STATEMENT_BYTES);
  fx.store.sqlite
    .prepare('UPDATE statements SET file_sha256 = ?, file_bytes = ? WHERE file_path = ?')
    .run(createHash('sha256').update(STATEMENT_BYTES).digest('hex'), STATEMENT_BYTES.byteLength, STATEMENT_PATH);
  return { ...fx, dataDir };
}

/** The fixture in a database of the dialect: the SQLite file itself, or a copy by `bankdata db copy`. */
export async function filledDatabase(
  setup: DialectSetup,
  fx: FixtureStore & { dataDir: string },
): Promise<{ location: string; store: Store }> {
  if (setup.dialect === 'sqlite') return { location: fx.path, store: fx.store };
  const location = await setup.location();
  const copied = await runCliInProcess(['db', 'copy', '--from', fx.path, '--to', location, '--data-dir', fx.dataDir]);
  expect(copied.code, copied.stderr).toBe(0);
  return { location, store: await openDatabaseStore(location) };
}

const unchanged = (path: string) => {
  const stat = statSync(path);
  return { bytes: readFileSync(path).toString('base64'), mtimeMs: stat.mtimeMs };
};

export function fsGuardCases(setup: DialectSetup): void {
  setup.describe('the file findings of the second review', () => {
    let fx: FixtureStore & { dataDir: string };
    let db: { location: string; store: Store };
    beforeAll(async () => {
      fx = await fixtureWithStatementFile();
      db = await filledDatabase(setup, fx);
    });
    afterAll(async () => {
      if (db?.store !== fx?.store) await db?.store.close();
      await fx?.cleanup();
    });
    const bankdata = (args: string[]) =>
      runCliInProcess(['--db', db.location, '--data-dir', fx.dataDir, ...args], { cwd: fx.dir });

    it('item 1: report --out a statement file (and on SQLite the database and its -shm) exits 7, each unchanged', async () => {
      const targets = [join(fx.dataDir, STATEMENT_PATH)];
      if (setup.dialect === 'sqlite') targets.push(fx.path, `${fx.path}-shm`);
      for (const target of targets) {
        expect(existsSync(target), target).toBe(true);
        const before = unchanged(target);
        const r = await bankdata(['report', '--out', target]);
        expect(r.code, `${target}: ${r.stderr}`).toBe(7);
        expect(r.stderr).toContain(target);
        expect(unchanged(target)).toEqual(before);
      }
    });

    it("item 1: export --out a statement file under another data directory (the demo's) exits 7, the file unchanged", async () => {
      // The demo's data directory: its own database (the store marks the directory) and statement files.
      const demoDir = join(fx.dataDir, 'demo');
      const demo = await openStore(join(demoDir, 'bankdata.sqlite'));
      await demo.close();
      const demoStatement = join(demoDir, 'statements', 'PNZ', 'ffe', 'a1.pdf');
      mkdirSync(join(demoDir, 'statements', 'PNZ', 'ffe'), { recursive: true });
      writeFileSync(demoStatement, '%PDF-1.4 the demo statement\n');
      const before = unchanged(demoStatement);
      const r = await bankdata(['export', 'accounts', '--format', 'csv', '--out', demoStatement]);
      expect(r.code, r.stderr).toBe(7);
      expect(r.stderr).toContain('where the statement files are');
      expect(unchanged(demoStatement)).toEqual(before);
      // The demo's database too, though it is not the configured one.
      const demoDb = join(demoDir, 'bankdata.sqlite');
      const dbBefore = unchanged(demoDb);
      const onDb = await bankdata(['report', '--out', demoDb]);
      expect(onDb.code, onDb.stderr).toBe(7);
      expect(unchanged(demoDb)).toEqual(dbBefore);
    });

    it('item 3: consents forget never deletes a file whose stored path climbs out of the data directory; it says so (exit 1)', async () => {
      const victim = join(fx.dir, 'outside', 'victim.pdf');
      mkdirSync(join(fx.dir, 'outside'), { recursive: true });
      writeFileSync(victim, 'not bankdata data');
      await execute(
        db.store,
        "UPDATE statements SET file_path = '../outside/victim.pdf' WHERE consent_id = ? AND file_path IS NOT NULL",
        PNZ_CONSENT,
      );
      await execute(db.store, "UPDATE consents SET status = 'Revoked' WHERE consent_id = ?", PNZ_CONSENT);
      const r = await bankdata(['consents', 'forget', PNZ_CONSENT]);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(
        /^bankdata: warning: statement file \.\.\/outside\/victim\.pdf: climbs out of the data directory/m,
      );
      expect(r.stdout).toContain('1 statement file(s) refused');
      expect(readFileSync(victim, 'utf8')).toBe('not bankdata data');
    });
  });
}
