/**
 * Issue 34, "every message read as a user would": each item driven through the real `bankdata`
 * binary against the emulator, stdout and stderr asserted apart.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type StartedEmulator } from '@bankdata/emulator';
import type { ConsentId } from '@bankdata/core/schemas';
import { openStore, type SqliteStore } from '../../src/store';
import { PAYMENT_ACTION_HINTS } from '../../src/cli/payments';
import { emulatorEnv } from '../fixtures/cli-env';
import { runCli } from './cli-process';

let emu: StartedEmulator;
const stores: SqliteStore[] = [];

beforeAll(async () => {
  emu = await startEmulator({ seed: 11, customersPerBank: 1 });
});

afterAll(async () => {
  for (const store of stores) await store.close();
  await emu?.close();
});

const authorised = () => emu.consentIds.filter((c) => emu.consent(c)?.status === 'Authorised');
const lines = (text: string) => text.split('\n').filter((l) => l !== '');

/** A fresh data dir whose database has these consents registered; the env points at the emulator. */
async function fresh(consentIds: readonly string[], extra: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'bankdata-messages-'));
  const dataDir = join(dir, 'data');
  const store = await openStore(join(dataDir, 'bankdata.sqlite'));
  stores.push(store);
  for (const id of consentIds) await store.consents.add(id as ConsentId);
  return { dir, store, env: emulatorEnv(emu, dataDir, extra) };
}

const paymentsEnv = () => ({
  BANKDATA_PAYMENTS_BASE_URL: emu.paymentsBaseUrl,
  BANKDATA_PAYMENTS_CLIENT_ID: emu.paymentsClientId,
  BANKDATA_PAYMENTS_CLIENT_SECRET: emu.paymentsClientSecret,
});

describe('the first sync of an empty database', () => {
  it('reports every row added and none updated, though several consents share accounts', async () => {
    const { dir, env, store } = await fresh(authorised());
    const r = await runCli(['sync', '--json'], { cwd: dir, env });
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout) as { counters: { rowsAdded: number; rowsUpdated: number } };
    // A row written again within the run, by a second consent over the same account, is not
    // "updated": transactions (window-commit.ts countedOutcome), accounts, statements and parties
    // (window-commit.ts countedOutcome, used by resource-writes.ts); balances are only ever added. The counters sum every resource.
    expect(summary.counters.rowsUpdated).toBe(0);
    const stored = store.sqlite.prepare('SELECT count(*) AS n FROM transactions').get() as { n: number };
    expect(summary.counters.rowsAdded).toBeGreaterThanOrEqual(stored.n);
    // A second run with nothing new at the bank updates nothing either.
    const again = await runCli(['sync'], { cwd: dir, env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^ {2}rows {7}\d+ added, \d+ updated, 0 removed$/m);
  });
});

describe('sync with no consent registered', () => {
  it('says so with the next step as a hint; exit 2; nothing on stdout', async () => {
    const { dir, env } = await fresh([]);
    const r = await runCli(['sync'], { cwd: dir, env });
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'bankdata: no consent is registered: there is nothing to sync\n' +
        'hint: register a consent the customer authorised with `bankdata consents add CONSENT_ID`, or make one with `bankdata consents create`\n',
    });
  });
});

describe('the final error with --log-format json (issue 34)', () => {
  it('is one JSON line (msg, hint, exit_code) with the flag or BANKDATA_LOG_FORMAT=json; text lines otherwise', async () => {
    const { dir, env } = await fresh([]);
    const expected = {
      level: 'error',
      msg: 'no consent is registered: there is nothing to sync',
      hint: 'register a consent the customer authorised with `bankdata consents add CONSENT_ID`, or make one with `bankdata consents create`',
      exit_code: 2,
    };
    for (const [args, extra] of [
      [['--log-format', 'json', 'sync'], {}],
      [['sync', '--log-format=json'], {}],
      [['sync'], { BANKDATA_LOG_FORMAT: 'json' }],
    ] as const) {
      const r = await runCli([...args], { cwd: dir, env: { ...env, ...extra } });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(lines(r.stderr)).toHaveLength(1);
      expect(JSON.parse(r.stderr)).toEqual({ time: expect.any(String) as string, ...expected });
    }
    const text = await runCli(['--log-format', 'text', 'sync'], {
      cwd: dir,
      env: { ...env, BANKDATA_LOG_FORMAT: 'json' },
    });
    expect(lines(text.stderr)).toEqual([`bankdata: ${expected.msg}`, `hint: ${expected.hint}`]);
  });
});

describe('missing credentials', () => {
  it('names the variables, and the config keys in the hint; exit 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bankdata-nocreds-'));
    const r = await runCli(['meta'], { cwd: dir, env: { BANKDATA_DATA_DIR: join(dir, 'data') } });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(lines(r.stderr)).toEqual([
      expect.stringMatching(
        /^bankdata: Data API credentials missing: set BANKDATA_DATA_BASE_URL, BANKDATA_CLIENT_ID, BANKDATA_CLIENT_SECRET \(or BANKDATA_CLIENT_SECRET_FILE\)/,
      ) as string,
      expect.stringMatching(/^hint: dataBaseUrl and clientId may be set in config\/local\.json instead; /) as string,
    ]);
  });
});

describe('consents list: the wording by state', () => {
  it('an Authorised consent whose expiry has passed: "expired N days ago", not "expires within"', async () => {
    const id = authorised()[0]!;
    const { dir, env, store } = await fresh([id]);
    store.sqlite
      .prepare(
        `UPDATE consents SET status = 'Authorised', expiration_date_time = '2020-01-10T00:00:00Z',
         expiration_nz_date = '2020-01-10' WHERE consent_id = ?`,
      )
      .run(id);
    const r = await runCli(['consents', 'list', '--offline'], { cwd: dir, env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const row = lines(r.stdout).find((l) => l.startsWith(id))!;
    expect(row).toMatch(/ expired +- +expired \d+ days ago: a new consent is needed$/);
    expect(r.stdout).not.toContain('expires within');
    expect(r.stdout).not.toMatch(/ -\d+ /);
    const status = await runCli(['status'], { cwd: dir, env });
    expect(status.stdout).toMatch(/ended \(a new consent is needed\):\n {2}\S+(?: \S+)?: expired \d+ days ago/);
    expect(status.stdout).not.toMatch(/expiring within/);
  });
});

describe('payments', () => {
  it('payments track with nothing in flight says so on stderr; stdout empty; exit 0', async () => {
    const { dir, env } = await fresh([], paymentsEnv());
    const r = await runCli(['payments', 'track', '--once'], { cwd: dir, env });
    expect(r).toEqual({
      code: 0,
      stdout: '',
      stderr:
        'bankdata: warning: no payment is in flight: nothing to track\n' +
        'hint: bankdata payments show ID shows a stored payment; bankdata payments track ID reads one again\n',
    });
  });

  it('payments show: aligned key/value lines and an NZ-time history, no JSON; --json keeps UTC', async () => {
    const { dir, env } = await fresh([], paymentsEnv());
    const made = await runCli(['payments', 'create', '--consent', emu.paymentConsents['single-1'], '--json'], {
      cwd: dir,
      env,
    });
    expect(made.code, made.stderr).toBe(0);
    const id = (JSON.parse(made.stdout) as { payment_id: string }).payment_id;
    const r = await runCli(['payments', 'show', id], { cwd: dir, env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).not.toMatch(/[{}]/);
    const fields = lines(r.stdout.split('\n\n')[0]!);
    expect(fields[0]).toBe(`payment      ${id}`);
    // Every value starts in one column.
    expect(new Set(fields.map((l) => /^\S+(?: \S+)? +/.exec(l)![0].length))).toEqual(new Set([13]));
    expect(r.stdout).toMatch(/^created {6}\d{4}-\d\d-\d\d \d\d:\d\d [+]1[23]:00$/m);
    expect(r.stdout).toMatch(/^matched {6}no$/m);
    const json = await runCli(['payments', 'show', id, '--json'], { cwd: dir, env });
    expect((JSON.parse(json.stdout) as { payment: { created_at: string } }).payment.created_at).toMatch(/Z$/);
  });

  it('a refused payment consent: the hint is a sentence, not "client action: stop consent unusable"', async () => {
    const { dir, env } = await fresh([], paymentsEnv());
    const r = await runCli(['payments', 'create', '--consent', emu.paymentConsents['single-revoked']], {
      cwd: dir,
      env,
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(lines(r.stderr)).toEqual([
      expect.stringMatching(/^bankdata: consent cannot take this request, .*BP015/) as string,
      `hint: ${PAYMENT_ACTION_HINTS.stop_consent_unusable}`,
    ]);
    expect(r.stderr).not.toContain('client action');
  });

  it('every client action has a hint written as a sentence (no code words)', () => {
    for (const [action, hint] of Object.entries(PAYMENT_ACTION_HINTS)) {
      expect(hint, action).not.toMatch(/_/);
      expect(hint, action).not.toBe(action.replace(/_/g, ' '));
      expect(hint.split(' ').length, action).toBeGreaterThan(5);
    }
  });
});

describe('tables: NZ time and aligned columns', () => {
  /**
   * The header's columns (runs of capitals, single spaces inside a name) and, for every line of
   * the table under it, that each column starts where its header does: two spaces before it.
   */
  function expectAligned(table: string[]) {
    const [header, ...rows] = table;
    const starts = [...header!.matchAll(/\S+(?: \S+)*/g)].map((m) => m.index);
    expect(starts.length, header).toBeGreaterThan(1);
    for (const row of rows) {
      for (const start of starts.slice(1)) {
        if (row.length <= start) continue; // empty cells at the end of a line are trimmed
        expect(row.slice(start - 2, start), `${header}\n${row}`).toBe('  ');
        expect(row[start] ?? '', `${header}\n${row}`).not.toBe(' ');
      }
    }
  }
  /** The lines of the table whose header line starts with `first` (up to the first blank line). */
  function tableAt(stdout: string, first: RegExp): string[] {
    const all = stdout.split('\n');
    const at = all.findIndex((l) => first.test(l));
    expect(at, stdout).toBeGreaterThanOrEqual(0);
    const end = all.findIndex((l, i) => i > at && l.trim() === '');
    return all.slice(at, end === -1 ? undefined : end);
  }

  let synced: Awaited<ReturnType<typeof fresh>>;
  beforeAll(async () => {
    synced = await fresh(authorised(), paymentsEnv());
    const r = await runCli(['sync'], { cwd: synced.dir, env: synced.env });
    expect(r.code, r.stderr).toBe(0);
  });

  // Every command that prints a table in human mode, with the header its table starts with.
  const tables: [string, () => string[], RegExp][] = [
    ['status: last runs', () => ['status'], /^ {2}STARTED +JOB +OUTCOME/],
    ['status: consents', () => ['status'], /^ {2}CONSENT +BANK +STATUS/],
    ['consents list', () => ['consents', 'list', '--offline'], /^CONSENT +BANK +STATUS/],
  ];

  it.each(tables)('%s: columns aligned', async (_name, args, header) => {
    const r = await runCli(args(), { cwd: synced.dir, env: synced.env });
    expect(r.code, r.stderr).toBe(0);
    expectAligned(tableAt(r.stdout, header));
  });

  it('payments show: its history table aligned', async () => {
    const made = await runCli(['payments', 'create', '--consent', emu.paymentConsents['single-2'], '--json'], {
      cwd: synced.dir,
      env: synced.env,
    });
    expect(made.code, made.stderr).toBe(0);
    const id = (JSON.parse(made.stdout) as { payment_id: string }).payment_id;
    const r = await runCli(['payments', 'show', id], { cwd: synced.dir, env: synced.env });
    expect(r.code, r.stderr).toBe(0);
    const history = tableAt(r.stdout, /^ {2}STATUS SINCE +STATUS/);
    expect(history.length).toBeGreaterThan(1);
    expectAligned(history);
  });

  it('status: instants in NZ time with their offset; status --json keeps UTC Z', async () => {
    const r = await runCli(['status'], { cwd: synced.dir, env: synced.env });
    const run = tableAt(r.stdout, /^ {2}STARTED/)[1]!;
    expect(run).toMatch(/^ {2}\d{4}-\d\d-\d\d \d\d:\d\d \+1[23]:00 {2}sync +ok /);
    expect(r.stdout).not.toMatch(/\d\d:\d\d:\d\d(\.\d+)?Z/);
    const json = await runCli(['status', '--json'], { cwd: synced.dir, env: synced.env });
    expect((JSON.parse(json.stdout) as { runs: { started_at: string }[] }).runs[0]!.started_at).toMatch(/Z$/);
  });
});
