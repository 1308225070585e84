/**
 * Issue 31, items 8 and 9 (docs/security.md "Unix use"), each driven as a user would: the real
 * `bankdata` binary spawned against the emulator over HTTP and a SQLite database on disk.
 *   - a closed pipe: every command of the registry (src/cli/main.ts COMMANDS) whose stdout's reader
 *     is gone before its first byte ends with 141 and nothing on stderr;
 *   - SIGHUP stops a sync as SIGTERM does (lease released, run recorded interrupted, 129), except
 *     under `nohup`, where it stays ignored;
 *   - a deep or huge configuration or input file is exit 2 naming the file;
 *   - an export filter naming an account, consent or bank the database does not hold is exit 2;
 *   - a right-to-left override in a nickname stays inside its <bdi> in the report;
 *   - a server `Date` decades from ours is warned about once per run, naming both clocks.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RequestLogEntry, type StartedEmulator } from '@bankdata/emulator';
import { BANKS, type ConsentId } from '@bankdata/core/schemas';
import { COMMANDS } from '../../src/cli/main';
import { openStore, type SqliteStore } from '../../src/store';
import { emulatorEnv } from '../fixtures/cli-env';
import { endpointOf, requestHook } from '../fixtures/request-log';
import { BIN, runCli } from './cli-process';

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

const children: ChildProcess[] = [];
const stores: SqliteStore[] = [];
let emu: StartedEmulator;
let onRequest: (entry: Omit<RequestLogEntry, 'time'>) => void = () => {};
/** A database synced once from the emulator, and the environment that points the CLI at both. */
let synced: { dir: string; dataDir: string; env: Record<string, string>; store: SqliteStore };

/** A fresh data dir whose database has these consents registered. */
async function freshStore(consentIds: readonly string[]) {
  const dir = mkdtempSync(join(tmpdir(), 'bankdata-unix-'));
  const dataDir = join(dir, 'data');
  const store = await openStore(join(dataDir, 'bankdata.sqlite'));
  stores.push(store);
  for (const id of consentIds) await store.consents.add(id as ConsentId);
  return { dir, dataDir, store, env: emulatorEnv(emu, dataDir) };
}

/** Spawns `command args…` (the bin by default); `closeStdout`: our end of its stdout is closed at once. */
function start(
  args: string[],
  options: { cwd: string; env: Record<string, string>; closeStdout?: boolean; command?: string[] },
): { child: ChildProcess; exit: Promise<Exit> } {
  const [file, ...pre] = options.command ?? [process.execPath, BIN];
  const child = spawn(file!, [...pre, ...args], {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  // The reader is gone before the first byte: every write the command makes meets a closed pipe.
  if (options.closeStdout) child.stdout.destroy();
  else child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const exit = once(child, 'close').then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
    stdout,
    stderr,
  }));
  return { child, exit };
}

const consentWith = (status: string, permission?: string) =>
  emu.consentIds.find((id) => {
    const c = emu.consent(id)!;
    return c.status === status && (!permission || c.permissions.includes(permission as never));
  })!;

beforeAll(async () => {
  emu = await startEmulator({ seed: 11, customersPerBank: 1, logger: requestHook((entry) => onRequest(entry)) });
  synced = await freshStore([consentWith('Authorised', 'ReadStatements')]);
  const sync = await runCli(['sync'], { cwd: synced.dir, env: synced.env });
  expect(sync.code, sync.stderr).toBe(0);
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const store of stores) await store.close();
  await emu?.close();
});

describe('item 8: a closed pipe', () => {
  /**
   * One invocation per command of the registry that prints on stdout, in a state where it does
   * (the synced database, the emulator). A command added to COMMANDS without a case fails below.
   */
  const cases = (dir: string): Record<string, string[]> => ({
    demo: ['demo'],
    sync: ['sync'],
    status: ['status'],
    check: ['check'],
    categorise: ['categorise', '--dry-run'],
    transfers: ['transfers'],
    report: ['report', '--out', join(dir, 'report.html')],
    emulator: ['emulator', '--port', '0'],
    export: ['export', 'transactions', '--format', 'csv'],
    payments: ['payments', 'reconcile'],
    consents: ['consents', 'list', '--offline'],
    meta: ['meta'],
    pacing: ['pacing'],
    alerts: ['alerts'],
    changes: ['changes'],
    schedule: ['schedule'],
    // `db backup` and `db migrate` report on stderr; `db copy` needs PostgreSQL: its help is what prints.
    db: ['db', '--help'],
    completion: ['completion', 'bash'],
  });

  it('every command of the registry has a case', () => {
    expect(Object.keys(cases(synced.dir)).sort()).toEqual(COMMANDS.map((c) => c.name).sort());
  });

  it.each(COMMANDS.map((c) => c.name))('bankdata %s | (reader gone): exit 141, nothing on stderr', async (name) => {
    const args = cases(synced.dir)[name]!;
    const { exit } = start(args, { cwd: synced.dir, env: synced.env, closeStdout: true });
    const result = await exit;
    expect({ code: result.code, signal: result.signal, stderr: result.stderr }).toEqual({
      code: 141,
      signal: null,
      stderr: '',
    });
  });
});

describe('item 8: SIGHUP', () => {
  const leaseRows = (store: SqliteStore) => store.sqlite.prepare('SELECT holder_pid AS pid FROM lease').all();

  /** Starts `sync --json` and sends SIGHUP as the first transactions window is answered. */
  async function syncHungUp(command?: string[]) {
    const fresh = await freshStore([consentWith('Authorised', 'ReadStatements')]);
    const run = start(['sync', '--json'], { cwd: fresh.dir, env: fresh.env, ...(command ? { command } : {}) });
    let sent = false;
    onRequest = (entry) => {
      if (sent || endpointOf(entry.path) !== 'transactions' || entry.status !== 200) return;
      sent = true;
      // Later requests take longer, so the run is still going when the signal lands.
      emu.updateSettings({ latencyMs: 40 });
      run.child.kill('SIGHUP');
    };
    try {
      const result = await run.exit;
      expect(sent).toBe(true);
      return { result, store: fresh.store };
    } finally {
      onRequest = () => {};
      emu.updateSettings({ latencyMs: 0 });
    }
  }

  it('stops a sync as SIGTERM does: the run recorded partial (interrupted), the lease released, exit 129', async () => {
    const { result, store } = await syncHungUp();
    expect(result.signal).toBeNull();
    expect(result.code, result.stderr).toBe(129);
    expect(JSON.parse(result.stdout)).toMatchObject({ outcome: 'partial', interrupted: true });
    const runs = await store.runs.list();
    expect(runs).toHaveLength(1);
    expect(runs[0]!.finishedAt).not.toBeNull();
    expect(runs[0]!.errorSummary).toContain('interrupted');
    expect(leaseRows(store)).toEqual([]);
  });

  it('under nohup SIGHUP stays ignored: the sync runs to its end, exit 0', async () => {
    // `nohup bankdata sync`: the bin itself is executed, as a shell runs the installed command.
    const { result, store } = await syncHungUp(['nohup', BIN]);
    expect(result.signal).toBeNull();
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ outcome: 'ok', interrupted: false });
    expect(leaseRows(store)).toEqual([]);
  });
});

describe('item 9: deep or huge input files', () => {
  const oneLine = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('bankdata:'));

  it('config/local.json of 100 000 nested objects: exit 2, one line naming the file and the depth limit', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bankdata-deep-'));
    mkdirSync(join(dir, 'config'));
    const file = join(dir, 'config', 'local.json');
    writeFileSync(file, `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`);
    const r = await runCli(['status'], { cwd: dir });
    expect(r.code, r.stderr).toBe(2);
    expect(oneLine(r.stderr)).toEqual([`bankdata: configuration file ${file}: nested deeper than 64 levels; refused`]);
  });

  it('config/local.json over 1 MiB: exit 2 naming the file and the size limit', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bankdata-huge-'));
    mkdirSync(join(dir, 'config'));
    const file = join(dir, 'config', 'local.json');
    writeFileSync(file, `{"dataDir":"${'x'.repeat(1024 * 1024)}"}`);
    const r = await runCli(['status'], { cwd: dir });
    expect(r.code, r.stderr).toBe(2);
    expect(oneLine(r.stderr)).toEqual([`bankdata: configuration file ${file}: larger than 1048576 bytes; refused`]);
  });

  it('a secret file that never ends (/dev/zero): exit 2 naming it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bankdata-secret-'));
    const r = await runCli(['status'], { cwd: dir, env: { BANKDATA_CLIENT_SECRET_FILE: '/dev/zero' } });
    expect(r.code, r.stderr).toBe(2);
    expect(oneLine(r.stderr)).toEqual([
      'bankdata: BANKDATA_CLIENT_SECRET_FILE /dev/zero: larger than 65536 bytes; refused',
    ]);
  });
});

describe('item 9: export filters naming what the database does not hold', () => {
  const exportCsv = (...filters: string[]) =>
    runCli(['export', 'transactions', '--format', 'csv', ...filters], { cwd: synced.dir, env: synced.env });

  it('--account, --consent or --bank that does not exist: exit 2 in the words of check; nothing on stdout', async () => {
    const held = new Set((await synced.store.consents.list()).map((c) => c.bank));
    const absentBank = BANKS.find((b) => !held.has(b))!;
    const unknownConsent = '00000000-0000-4000-8000-000000000000';
    const checkSays = await runCli(['check', '--account', 'no-such'], { cwd: synced.dir, env: synced.env });
    expect(checkSays.code).toBe(2);
    for (const [flags, line] of [
      [['--account', 'no-such'], 'bankdata: --account no-such: no such account in the database'],
      [['--consent', unknownConsent], `bankdata: --consent ${unknownConsent}: no such consent in the database`],
      [['--bank', absentBank], `bankdata: --bank ${absentBank}: no such bank in the database`],
    ] as const) {
      const r = await exportCsv(...flags);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.split('\n')[0]).toBe(line);
    }
    expect(checkSays.stderr.split('\n')[0]).toBe('bankdata: --account no-such: no such account in the database');
  });

  it('an empty date range of existing filters stays a valid empty export (header only, exit 0)', async () => {
    const account = synced.store.sqlite.prepare('SELECT account_id AS id FROM accounts LIMIT 1').get() as {
      id: string;
    };
    const r = await exportCsv('--account', account.id, '--from', '2001-01-01', '--to', '2001-01-02');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trimEnd().split('\r\n')).toHaveLength(1);
  });
});

describe('item 9: bidi controls in the report', () => {
  it('a right-to-left override in a nickname stays inside its <bdi>: the heading reads as the bank wrote it', async () => {
    const account = synced.store.sqlite.prepare('SELECT account_id AS id FROM accounts LIMIT 1').get() as {
      id: string;
    };
    // The bank's nickname with U+202E RIGHT-TO-LEFT OVERRIDE and no closing U+202C.
    const nickname = 'Bills \u202Eevas';
    synced.store.sqlite.prepare('UPDATE accounts SET nickname = ? WHERE account_id = ?').run(nickname, account.id);
    const out = join(synced.dir, 'bidi-report.html');
    const r = await runCli(['report', '--out', out], { cwd: synced.dir, env: synced.env });
    expect(r.code, r.stderr).toBe(0);
    const html = readFileSync(out, 'utf8');
    const heading = new RegExp(`<h3 id="acct-\\d+-h">(.*?) <span class="muted">[^<]*${account.id}`).exec(html);
    // The override ends with its <bdi> (and its isolate): the bank, id and currency after it keep their order.
    expect(heading?.[1]).toBe(`<bdi>\u2068${nickname}\u2069</bdi>`);
    // In a sentence of ours (the chart's caption), only the nickname is isolated, not our words.
    expect(html).toMatch(
      new RegExp(`<figcaption id="acct-\\d+-\\w+-cap"><bdi>\u2068${nickname}\u2069: (balance at|money in)`),
    );
    expect(html).not.toMatch(/\u202E(?![^\u2069]*\u2069)/);
  });
});

describe("item 9: a server's clock decades from ours", () => {
  it('one warning per run naming both clocks, however many requests', async () => {
    const far = await startEmulator({ seed: 11, customersPerBank: 1, start: '1996-03-01T00:00:00Z' });
    try {
      const dir = mkdtempSync(join(tmpdir(), 'bankdata-clock-'));
      const r = await runCli(['meta', '--log-format', 'json'], { cwd: dir, env: emulatorEnv(far, join(dir, 'data')) });
      expect(r.code, r.stderr).toBe(0);
      expect(far.requests().length).toBeGreaterThan(1);
      const warnings = r.stderr
        .split('\n')
        .filter((l) => l.includes('clock'))
        .map((l) => JSON.parse(l) as Record<string, string>);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({
        level: 'warn',
        msg: "the server's clock is more than a year from ours: one of them is wrong",
        serverDate: expect.stringMatching(/^1996-03-01T/) as string,
        ourDate: expect.stringMatching(/^\d{4}-/) as string,
      });
      expect(Math.abs(Date.parse(warnings[0]!.ourDate!) - Date.now())).toBeLessThan(3_600_000);
    } finally {
      await far.close();
    }
  });
});
