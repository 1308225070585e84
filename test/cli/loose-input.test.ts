/**
 * Item 10 of the hardening review, through the `bankdata` command (run in process, test/cli/cli-process.ts): loose input is refused with exit 2
 * naming what is wrong (never a silent default), an endless input stream stops at its ceiling,
 * a config path that is a directory is named as such, a symbolic link planted inside the data
 * directory is never followed, and a secret file others can read is warned about.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAtomicFile } from '../../src/sync/files';
import { runCliInProcess } from './cli-process';

const dir = mkdtempSync(join(tmpdir(), 'bankdata-loose-'));
const db = join(dir, 'absent.sqlite');
const bankdata = (args: string[], env: Record<string, string> = {}, cwd = dir) =>
  runCliInProcess(['--db', db, ...args], { cwd, env });

describe('item 10: loose input', () => {
  it.each([
    [['--log-level', 'verbose', 'status'], "argument 'verbose' is invalid"],
    [['status', '--runs', 'abc'], '--runs must be a whole number from 1 to 1000: "abc"'],
    [['status', '--runs', '-1'], '--runs must be a whole number'],
    [['status', '--runs', '99999999999999999999'], '--runs must be a whole number'],
    [['demo', '--seed', '-1'], '--seed must be a whole number'],
    [['payments', 'track', "a'b;--"], 'not a payment id'],
    [['payments', 'show', "a'b;--"], 'not a payment id'],
  ])('%j exits 2: %s; nothing is created', async (args, message) => {
    const r = await bankdata(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stderr.trimEnd().split('\n').length).toBeLessThanOrEqual(2);
    expect(existsSync(db)).toBe(false);
  });

  it('--amount 99999999999999 says it has more than 13 digits, not "at most 2 decimals"; leading zeros count', async () => {
    const { checkPaymentRequest } = await import('../../src/payments/request');
    const consent = { consent_id: 'c', type: 'enduring' } as never;
    expect(() =>
      checkPaymentRequest(consent, {
        consentId: 'c',
        amount: { total: '99999999999999', currency: 'NZD' },
        pcr: { particulars: 'X' },
      }),
    ).toThrow(/more than 13 digits before the point/);
    // The wire's pattern counts the digits as written: 16 with leading zeros is refused for that,
    // not called zero.
    expect(() =>
      checkPaymentRequest(consent, {
        consentId: 'c',
        amount: { total: '0000000000000025', currency: 'NZD' },
        pcr: { particulars: 'X' },
      }),
    ).toThrow(/more than 13 digits before the point/);
    expect(() =>
      checkPaymentRequest(consent, {
        consentId: 'c',
        amount: { total: '1.234', currency: 'NZD' },
        pcr: { particulars: 'X' },
      }),
    ).toThrow(/more than 2 decimals/);
  });

  it('consents add --from-file on an endless device stops at 1 MiB with exit 2', async () => {
    const r = await bankdata(['consents', 'add', '--from-file', '/dev/zero']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--from-file /dev/zero: larger than 1048576 bytes');
  });

  it('a directory at config/local.json is named as not a file, not "not valid JSON"', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'bankdata-cfg-'));
    mkdirSync(join(cwd, 'config', 'local.json'), { recursive: true });
    const r = await runCliInProcess(['--db', db, 'status'], { cwd });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('local.json is not a file');
    expect(r.stderr).not.toContain('not valid JSON');
  });

  it('a world-readable secret file is accepted with a warning naming it', async () => {
    const secret = join(dir, 'secret.txt');
    writeFileSync(secret, 'a-long-secret-value\n');
    chmodSync(secret, 0o644);
    const r = await bankdata(['status'], { BANKDATA_CLIENT_SECRET_FILE: secret });
    expect(r.stderr).toContain(`BANKDATA_CLIENT_SECRET_FILE: ${secret} is readable by others (mode 0644)`);
    expect(r.stderr).not.toContain('a-long-secret-value');
    // Once, though the preflight and the command's context both use the configuration.
    expect(r.stderr.split('is readable by others').length).toBe(2);
  });

  it("the secret file's warning goes through the logger: a JSON record with the json format, silenced by -q", async () => {
    const secret = join(dir, 'shared-secret.txt');
    writeFileSync(secret, 'another-long-secret\n');
    chmodSync(secret, 0o644);
    const env = { BANKDATA_CLIENT_SECRET_FILE: secret };
    for (const r of [
      await bankdata(['--log-format', 'json', 'status'], env),
      await bankdata(['status'], { ...env, BANKDATA_LOG_FORMAT: 'json' }),
    ]) {
      const records = r.stderr
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(records.filter((record) => record.level === 'warn')).toEqual([
        expect.objectContaining({
          msg: expect.stringContaining(
            `BANKDATA_CLIENT_SECRET_FILE: ${secret} is readable by others (mode 0644)`,
          ) as string,
        }),
      ]);
    }
    for (const quiet of [['-q'], ['--log-level', 'silent'], ['--log-level', 'error']]) {
      const r = await bankdata([...quiet, 'status'], env);
      expect(r.stderr, quiet.join(' ')).not.toContain('readable by others');
    }
  });

  it('a symbolic link planted inside data/statements is never followed', async () => {
    const data = mkdtempSync(join(tmpdir(), 'bankdata-data-'));
    const elsewhere = mkdtempSync(join(tmpdir(), 'bankdata-elsewhere-'));
    mkdirSync(join(data, 'statements'), { recursive: true });
    symlinkSync(elsewhere, join(data, 'statements', 'PNZ'));
    await expect(createAtomicFile(join(data, 'statements', 'PNZ', 'abc', 'x.pdf'), data)).rejects.toThrow(
      /is a symbolic link inside the data directory/,
    );
    expect(existsSync(join(elsewhere, 'abc'))).toBe(false);
  });
});
