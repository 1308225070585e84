/**
 * `bankdata meta --offline` on a database where no fetch stored any bank's meta: it says so and
 * names `bankdata meta`, never that the organisation has no banks; `--json` marks it
 * `"stored": false`. Run in process (cli-process.ts `runCliInProcess`), no service.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from './cli-process';

const dir = mkdtempSync(join(tmpdir(), 'bankdata-meta-offline-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('meta --offline with no meta stored', () => {
  it('says no meta is stored yet and that bankdata meta fetches it; --json: banks [] and stored false (exit 0)', async () => {
    const db = join(dir, 'bankdata.sqlite');
    const added = await runCliInProcess(['--db', db, 'consents', 'add', '3fa85f64-5717-4562-b3fc-2c963f66afa6']);
    expect(added.code, added.stderr).toBe(0);

    const table = await runCliInProcess(['--db', db, 'meta', '--offline']);
    expect([table.code, table.stderr]).toEqual([0, '']);
    expect(table.stdout).toMatch(/^no meta stored yet: bankdata meta fetches it \(GET \/v1\/meta\) and stores it\n/);
    expect(table.stdout).not.toContain('no banks are set up');
    expect(table.stdout).toContain('pacing stored (bankdata pacing reset forgets it):\n');

    const json = await runCliInProcess(['--db', db, 'meta', '--offline', '--json']);
    expect([json.code, json.stderr]).toEqual([0, '']);
    expect(JSON.parse(json.stdout)).toEqual({ banks: [], pacing: [], stored: false });
  });
});
