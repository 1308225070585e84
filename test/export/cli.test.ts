import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFixtureStore, type FixtureStore } from './fixture-store';

const BIN = resolve('bin/bankdata.js');
let fx: FixtureStore;
beforeAll(async () => {
  fx = await createFixtureStore();
});
afterAll(() => fx.cleanup());

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

async function bankdata(args: string[], env: Record<string, string> = {}): Promise<Outcome> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [BIN, ...args], {
      cwd: fx.dir,
      env: { ...process.env, BANKDATA_DB: '', ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('bankdata export (the command)', () => {
  it('writes CSV to stdout by default and exits 0', async () => {
    const r = await bankdata([
      'export',
      'transactions',
      '--format',
      'csv',
      '--db',
      fx.path,
      '--account',
      'acc-card-77',
    ]);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\r\n');
    expect(lines[0]).toMatch(/^consent_id,bank,account_id,transaction_id,/);
    expect(lines[1]).toContain(',card-1,Booked,');
    expect(lines).toHaveLength(3);
  });

  it('--out writes the file, reports rows and bytes on stderr; BANKDATA_DB names the database', async () => {
    mkdirSync(join(fx.dir, 'exports'), { recursive: true });
    const r = await bankdata(['export', 'accounts', '--format', 'json', '--out', 'exports/accounts.json'], {
      BANKDATA_DB: fx.path,
    });
    expect(r.code).toBe(0);
    const out = join(fx.dir, 'exports', 'accounts.json');
    expect(JSON.parse(readFileSync(out, 'utf8'))).toHaveLength(3);
    expect(r.stderr).toMatch(/^exported 3 accounts rows to .*accounts\.json \(\d+ bytes\)\n$/);
    expect(r.stdout).toBe('');
  });

  it('a bad filter exits 2 and names the problem, before any output', async () => {
    const r = await bankdata([
      'export',
      'transactions',
      '--format',
      'csv',
      '--db',
      fx.path,
      '--from',
      '2025-03-05',
      '--to',
      '2025-03-01',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--from 2025-03-05 is after --to 2025-03-01');
    expect(r.stdout).toBe('');
  });

  it('--format ofx without --account exits 2', async () => {
    const r = await bankdata(['export', 'transactions', '--format', 'ofx', '--db', fx.path, '--out', 'x.ofx']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--format ofx needs --account');
    expect(existsSync(join(fx.dir, 'x.ofx'))).toBe(false);
  });

  it('an unknown dataset exits 2; a missing database exits 6, named, and is not created', async () => {
    const unknown = await bankdata(['export', 'ledger', '--format', 'csv', '--db', fx.path]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown dataset: "ledger"');
    const missing = await bankdata(['export', 'runs', '--format', 'csv', '--db', 'nowhere/bankdata.sqlite']);
    expect(missing.code).toBe(6);
    expect(missing.stderr).toContain(`database ${join(fx.dir, 'nowhere', 'bankdata.sqlite')}: does not exist`);
    expect(existsSync(join(fx.dir, 'nowhere'))).toBe(false);
  });
});
