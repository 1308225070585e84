/**
 * `bankdata consents forget ID [--dry-run]` through the `bankdata` command (run in process) on a filled database:
 * only an ended consent is forgotten; a dry run changes nothing; the real run removes that
 * consent's rows and raw payloads and nothing of another consent.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANZ_CONSENT, createFixtureStore, PNZ_CONSENT, type FixtureStore } from '../export/fixture-store';
import { runCliInProcess } from './cli-process';

let fx: FixtureStore;
beforeAll(async () => {
  fx = await createFixtureStore();
  fx.store.sqlite.pragma('wal_checkpoint(TRUNCATE)');
  await fx.store.close();
});
afterAll(() => fx.cleanup());

const hash = () => createHash('sha256').update(readFileSync(fx.path)).digest('hex');
function count(sql: string, ...params: unknown[]): number {
  const db = new Database(fx.path, { readonly: true });
  try {
    return (db.prepare(sql).get(...params) as { n: number }).n;
  } finally {
    db.close();
  }
}
const rowsOf = (consent: string) =>
  ['accounts', 'balances', 'transactions', 'statements', 'parties'].map((t) =>
    count(`SELECT count(*) AS n FROM ${t} WHERE consent_id = ?`, consent),
  );

describe('consents forget', () => {
  it('refuses a consent that has not ended (exit 2), changing nothing', async () => {
    const before = hash();
    const r = await runCliInProcess(['--db', fx.path, 'consents', 'forget', PNZ_CONSENT], { cwd: fx.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('has not ended');
    expect(hash()).toBe(before);
  });

  it('--dry-run says what would go and changes nothing; the run removes that consent only', async () => {
    const db = new Database(fx.path);
    db.prepare("UPDATE consents SET status = 'Revoked' WHERE consent_id = ?").run(PNZ_CONSENT);
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    const anzBefore = rowsOf(ANZ_CONSENT);
    expect(rowsOf(PNZ_CONSENT).some((n) => n > 0)).toBe(true);
    const before = hash();

    const dry = await runCliInProcess(['--db', fx.path, 'consents', 'forget', PNZ_CONSENT, '--dry-run'], {
      cwd: fx.dir,
    });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/^would remove for consent .*transactions/);
    expect(hash()).toBe(before);

    const real = await runCliInProcess(['--db', fx.path, 'consents', 'forget', PNZ_CONSENT], { cwd: fx.dir });
    expect(real.code, real.stderr).toBe(0);
    expect(real.stdout).toMatch(/^removed for consent /);
    expect(rowsOf(PNZ_CONSENT)).toEqual([0, 0, 0, 0, 0]);
    expect(count('SELECT count(*) AS n FROM consents WHERE consent_id = ?', PNZ_CONSENT)).toBe(0);
    expect(count('SELECT count(*) AS n FROM rejects WHERE consent_id = ?', PNZ_CONSENT)).toBe(0);
    expect(rowsOf(ANZ_CONSENT)).toEqual(anzBefore);
  });
});
