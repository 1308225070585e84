import { execFile } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORMATS, STATEMENT_FORMATS } from '../../src/export/datasets';
import { spawnCli } from '../cli/cli-process';
import { ended, fifoWithReader } from '../support/fifo-reader';
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
    expect(r.stderr).toMatch(/^bankdata: exported 3 accounts rows to .*accounts\.json \(\d+ bytes\)\n$/);
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

/**
 * `--out` a stream (src/fs/output-path.ts `outputStream`; docs/exports.md "Output"): written
 * straight through as `-` is, never replaced. Before, `--out /dev/stdout >> sync.log` renamed the
 * export's temp file over the log (its earlier lines gone, its inode and mode changed, exit 0),
 * and a FIFO became a regular file its reader never saw. One writer serves every format
 * (src/export/output.ts `writeOutput`); each is run.
 */
describe('bankdata export --out a stream', () => {
  const argvOf = (format: string) =>
    (STATEMENT_FORMATS as readonly string[]).includes(format)
      ? ['export', 'transactions', '--format', format, '--account', 'acc-card-77', '--db', fx.path]
      : ['export', 'accounts', '--format', format, '--db', fx.path];
  const EARLIER = 'earlier line 1\nearlier line 2\n';

  it.each(FORMATS)(
    '%s to /dev/stdout appended to a log: the log keeps its lines, inode and mode',
    async (format) => {
      const dir = mkdtempSync(join(tmpdir(), 'bankdata-devstdout-'));
      const log = join(dir, 'sync.log');
      writeFileSync(log, EARLIER);
      chmodSync(log, 0o644);
      const inode = statSync(log).ino;
      const fd = openSync(log, 'a');
      const run = spawnCli([...argvOf(format), '--out', '/dev/stdout'], { cwd: dir, stdout: fd });
      closeSync(fd);
      expect(await ended(run.child), run.stderr()).toBe(0);
      const text = readFileSync(log, 'utf8');
      expect(text.startsWith(EARLIER), text.slice(0, 200)).toBe(true);
      expect(text.length).toBeGreaterThan(EARLIER.length + 20);
      if (format === 'csv') expect(text.slice(EARLIER.length)).toMatch(/^bank,account_id,/);
      expect(statSync(log).ino).toBe(inode);
      expect(statSync(log).mode & 0o777).toBe(0o644);
      expect(run.stderr()).toContain('rows to /dev/stdout');
    },
    90_000,
  );

  it.each(FORMATS)(
    '%s to a FIFO: the reader gets the export and the FIFO stays a FIFO',
    async (format) => {
      const { dir, fifo, stillFifo: isFifo, stop } = fifoWithReader();
      const run = spawnCli([...argvOf(format), '--out', fifo], { cwd: dir });
      const code = await ended(run.child);
      const stillFifo = isFifo();
      // An export that never opened the FIFO (it replaced it) leaves the reader waiting: stopped by its pid.
      const bytes = await stop(code === 0 && stillFifo);
      expect(code, run.stderr()).toBe(0);
      expect(stillFifo).toBe(true);
      expect(bytes.length).toBeGreaterThan(20);
      if (format === 'csv') expect(bytes).toMatch(/^bank,account_id,/);
    },
    90_000,
  );
});
