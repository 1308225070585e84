/**
 * `bankdata pacing`, `bankdata pacing reset` and the pacing in `bankdata meta --offline`, run in
 * process against a database holding stored pacing: output, exit codes, and the rows left.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store';
import { runCliInProcess } from './cli-process';

const dir = mkdtempSync(join(tmpdir(), 'bankdata-pacing-cli-'));
const dataDir = join(dir, 'data');
const db = join(dataDir, 'bankdata.sqlite');
const env = { PATH: process.env.PATH ?? '', HOME: dir, BANKDATA_DATA_DIR: dataDir, BANKDATA_DB: db };
const BANK = 'https://api.bank.example.nz/open-banking';
const OTHER = 'http://127.0.0.1:4010';

afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeEach(async () => {
  const store = await openStore(db);
  await store.pacing.reset();
  await store.pacing.save({
    api: BANK,
    clientId: 'client-1',
    rate: 48.254,
    ceiling: 50.1,
    now: '2026-11-01T10:00:00Z',
  });
  await store.pacing.save({ api: OTHER, clientId: 'client-2', rate: 9.5, ceiling: null, now: '2026-11-02T10:00:00Z' });
  await store.close();
});

const rows = async () => {
  const store = await openStore(db);
  try {
    return (await store.pacing.list()).map((p) => p.api);
  } finally {
    await store.close();
  }
};

describe('bankdata pacing', () => {
  it('shows the stored rate and ceiling per bank API and client, as a table and as JSON', async () => {
    const table = await runCliInProcess(['pacing'], { env });
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^API\s+CLIENT\s+RATE \(req\/s\)\s+CEILING \(req\/s\)\s+UPDATED$/);
    expect(table.stdout).toMatch(/http:\/\/127\.0\.0\.1:4010\s+client-2\s+9\.50\s+-\s+2026-11-02 23:00 \+13:00/);
    expect(table.stdout).toMatch(/open-banking\s+client-1\s+48\.25\s+50\.10\s/);
    const json = await runCliInProcess(['pacing', '--json'], { env });
    expect(JSON.parse(json.stdout)).toEqual([
      { api: OTHER, client_id: 'client-2', rate: 9.5, ceiling: null, updated_at: '2026-11-02T10:00:00.000Z' },
      { api: BANK, client_id: 'client-1', rate: 48.254, ceiling: 50.1, updated_at: '2026-11-01T10:00:00.000Z' },
    ]);
  });

  it('meta --offline shows the stored pacing after the banks, and in --json beside them', async () => {
    const table = await runCliInProcess(['meta', '--offline'], { env });
    expect(table.code).toBe(0);
    expect(table.stdout).toContain('pacing stored (bankdata pacing reset forgets it):\nAPI ');
    expect(table.stdout).toMatch(/client-1\s+48\.25\s+50\.10/);
    const json = JSON.parse((await runCliInProcess(['meta', '--offline', '--json'], { env })).stdout) as {
      banks: unknown[];
      pacing: { client_id: string }[];
    };
    expect(json.banks).toEqual([]);
    expect(json.pacing.map((p) => p.client_id)).toEqual(['client-2', 'client-1']);
  });

  it('reset --api forgets one bank API, reset every one; each says what it did (exit 0)', async () => {
    const none = await runCliInProcess(['pacing', 'reset', '--api', 'https://elsewhere.example'], { env });
    expect([none.code, none.stdout]).toEqual([0, 'no pacing stored of https://elsewhere.example: nothing to reset\n']);
    expect(await rows()).toEqual([OTHER, BANK]);
    // Written with a trailing slash, the API is the one stored without it.
    const one = await runCliInProcess(['pacing', 'reset', '--api', `${BANK}/`], { env });
    expect([one.code, one.stdout]).toEqual([0, `forgot the pacing of ${BANK}/ (1 client)\n`]);
    expect(await rows()).toEqual([OTHER]);
    // Written in another form of the same URL (scheme and host in capitals, the default port,
    // slashes doubled), the API is the one stored.
    const other = await runCliInProcess(['pacing', 'reset', '--api', 'HTTP://127.0.0.1:4010//'], { env });
    expect([other.code, other.stdout]).toEqual([0, 'forgot the pacing of HTTP://127.0.0.1:4010// (1 client)\n']);
    expect(await rows()).toEqual([]);
    const all = await runCliInProcess(['pacing', 'reset'], { env });
    expect([all.code, all.stdout]).toEqual([0, 'no pacing stored: nothing to reset\n']);
    expect(await rows()).toEqual([]);
    const shown = await runCliInProcess(['pacing'], { env });
    expect(shown.stdout).toBe("no pacing stored: the next run learns the bank's rate from its refusals\n");
  });

  it('reset refuses a database that does not exist (exit 6) and creates none', async () => {
    const missing = join(dir, 'nowhere', 'bankdata.sqlite');
    const result = await runCliInProcess(['pacing', 'reset'], { env: { ...env, BANKDATA_DB: missing } });
    expect(result.code).toBe(6);
    expect(existsSync(missing)).toBe(false);
  });
});
