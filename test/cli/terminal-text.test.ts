/**
 * Human output reaches a terminal only through src/cli/stdout.ts `printText` (each line passes
 * `terminalSafe`) and the error and log writers (docs/security.md "Hostile server"). A bank's
 * account and transaction ids are any text of 1 to 40 characters (packages/core/src/schemas.ts
 * `resourceId`), escape codes included, and its error messages are anything at all.
 *
 * - `bankdata check` printed an account id holding ESC/BEL/CR as it was (src/cli/check.ts `formatCheck`).
 * - `bankdata sync` printed a failed unit's reason, the bank's message, as it was on stdout
 *   (src/cli/sync.ts `formatSummary`), while stderr's line of the same failure was made visible.
 * - every command of the registry (test/cli/store-commands.ts `leafCommands`, a command without a
 *   case fails) is run on a database whose account id, nickname, transaction id and a failed
 *   run's reason hold ESC, BEL and CR: none of them reaches stdout or stderr raw.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccountId, ConsentId } from '@bankdata/core/schemas';
import type { StartedEmulator } from '@bankdata/emulator';
import { openStore, type AccountRow, type BalanceRow } from '../../src/store';
import { startTestEmulator } from '../api/emulator-helpers';
import { txn } from '../export/fixture-store';
import { startBankProxy } from '../fixtures/bank-proxy';
import { emulatorEnv } from '../fixtures/cli-env';
import { runCli, runCliInProcess } from './cli-process';
import { leafCommands } from './store-commands';

const NOW = new Date('2025-03-05T01:00:00.000Z');
const CONSENT = 'c0a8012e-7d3b-4f5e-9a61-2b9f4c1d8e70' as ConsentId;
// 34 characters: clear the screen, set the window title, then a forged line after a CR.
const HOSTILE_ID = 'a\u001b[2J\u001b]0;pwned\u0007\rbankdata: ok' as AccountId;
const HOSTILE_TXN = 't\u001b[31m\u0007\rbankdata: sent';
// A C1 CSI (0x9b, a one-byte ESC [) and a right-to-left override, which JSON.stringify leaves raw.
const HOSTILE_NICKNAME = 'Everyday\u001b]0;owned\u0007\r\u001b[2K\u009b2J\u202eyadyreve';
const HOSTILE_REASON =
  'BDT500 \u001b[2J\u001b[31mboom\r\nbankdata: payment sent to attacker\u0007\u009b2J\u202eyadyreve';
/** What must never reach a terminal: ESC, BEL, a CR that is not the end of a CRLF, a C1 CSI, a bidi override. */
// eslint-disable-next-line no-control-regex
const RAW = /\u001b|\u0007|\r(?!\n)|\u009b|\u202e/;
/** Every C0 and C1 control but LF. */
// eslint-disable-next-line no-control-regex
const ANY_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;
/** The same, and the bidirectional overrides and isolates. */
// eslint-disable-next-line no-control-regex
const ANY_CONTROL_OR_BIDI = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function scratch(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/** A database at `db` whose account, nickname, transaction and failed run hold escape codes. */
async function seedHostileDatabase(db: string): Promise<void> {
  const store = await openStore(db, { now: () => NOW });
  await store.consents.add(CONSENT);
  await store.consents.recordStatus({
    consent_id: CONSENT,
    status: 'Authorised',
    creation_date_time: '2025-01-10T09:00:00+13:00',
    status_update_date_time: '2025-01-10T09:05:00+13:00',
    flow: {
      detail: { type: 'redirect', redirect_uri: 'https://app.example.nz/r' },
      flow_hint: { type: 'redirect', bank: 'PNZ' },
    },
    permissions: ['ReadAccountsDetail', 'ReadBalances', 'ReadTransactionsDetail'],
    start_date_time: '2024-03-05T00:00:00+13:00',
    expiration_date_time: '2025-04-01T00:00:00+13:00',
  } as never);
  const account: AccountRow = {
    bank: 'PNZ',
    accountId: HOSTILE_ID,
    consentId: CONSENT,
    currency: 'NZD',
    nickname: HOSTILE_NICKNAME,
    description: HOSTILE_NICKNAME,
    accountType: 'Personal',
    accountSubtype: 'CurrentAccount',
    schemeName: null,
    identification: null,
    accountName: HOSTILE_NICKNAME,
    secondaryIdentification: null,
    servicerIdentification: null,
    rawJson: '{}',
  };
  await store.commitAccounts({ bank: 'PNZ', consentId: CONSENT, runId: null, rows: [account] });
  const balance = (type: string, amount: string, dateTime: string): BalanceRow => ({
    bank: 'PNZ',
    accountId: HOSTILE_ID,
    consentId: CONSENT,
    type,
    amount,
    amountMinor: Math.round(Number(amount) * 100),
    currency: 'NZD',
    creditDebitIndicator: 'Credit',
    dateTime: new Date(dateTime).toISOString(),
    rawJson: '{}',
    fetchedAt: NOW.toISOString(),
  });
  // 100.00 at the end of 28 February, +10.00 on 2 March, 250.00 on 4 March: a break of 140.00.
  await store.commitBalances({
    bank: 'PNZ',
    consentId: CONSENT,
    accountId: HOSTILE_ID,
    runId: null,
    rows: [
      balance('ClosingBooked', '100.00', '2025-02-28T23:59:59+13:00'),
      balance('InterimBooked', '250.00', '2025-03-04T12:05:00+13:00'),
    ],
  });
  await store.commitTransactionWindow({
    bank: 'PNZ',
    accountId: HOSTILE_ID,
    consentId: CONSENT,
    range: { from: '2025-02-01T00:00:00+13:00', to: '2025-03-05T00:00:00+13:00' },
    creditDebitFilter: null,
    rows: [txn('PNZ', HOSTILE_ID, CONSENT, { id: HOSTILE_TXN, at: '2025-03-02T09:00:00+13:00', amount: '10.00' })],
    checkpoint: null,
    runId: null,
  });
  const run = await store.runs.start({ now: NOW });
  await store.runs.finish(
    run,
    { outcome: 'partial', consents: 1, requests: 3, rowsWritten: 2, failedUnits: 1, errorSummary: HOSTILE_REASON },
    new Date(NOW.getTime() + 1_000),
  );
  await store.close();
}

async function databaseWithHostileAccount(): Promise<{ dir: string; db: string }> {
  const dir = scratch('bankdata-esc-');
  const db = join(dir, 'data', 'bankdata.sqlite');
  await seedHostileDatabase(db);
  return { dir, db };
}

describe('bankdata check: a bank id reaching the terminal', () => {
  it('an account id holding escape codes is shown as visible text, never as raw control characters', async () => {
    const { dir, db } = await databaseWithHostileAccount();
    const r = await runCli(['--db', db, 'check'], { cwd: dir });
    // The account is named in the output, its escape codes as visible text...
    expect(r.stdout, r.stderr).toContain('PNZ a\\u{1b}[2J\\u{1b}]0;pwned\\u{7}\\u{d}bankdata: ok');
    // ...and no control character of the bank's reaches the terminal.
    expect(r.stdout).not.toMatch(ANY_CONTROL);
    expect(r.stderr).not.toMatch(RAW);
  });

  it('--json documents carry the C1 and bidi controls JSON.stringify leaves raw as \\u escapes, the values unchanged', async () => {
    const { dir, db } = await databaseWithHostileAccount();
    for (const args of [['status', '--json']]) {
      const r = await runCli(['--db', db, ...args], { cwd: dir });
      expect(r.stdout, r.stderr).not.toMatch(ANY_CONTROL_OR_BIDI);
      expect(r.stdout, args.join(' ')).toContain('\\u009b2J\\u202eyadyreve');
      expect(JSON.stringify(JSON.parse(r.stdout))).toContain(JSON.stringify(HOSTILE_REASON).slice(1, -1));
    }
  });

  it('--json keeps the id exactly (JSON escapes the controls itself)', async () => {
    const { dir, db } = await databaseWithHostileAccount();
    const r = await runCli(['--db', db, 'check', '--json'], { cwd: dir });
    expect(r.stdout).not.toMatch(ANY_CONTROL);
    expect(JSON.stringify(JSON.parse(r.stdout))).toContain(JSON.stringify(HOSTILE_ID).slice(1, -1));
  });
});

describe("bankdata sync: a bank's error message in the summary", () => {
  it("a failed unit's reason is shown as visible text on stdout, as on stderr", async () => {
    const emu = await startTestEmulator();
    const forged = '\u001b[2J\u001b[31mboom\r\nbankdata: payment sent to attacker\u009b1;1H';
    // The bank refuses the balances with a message of escape codes and a forged line.
    const proxy = await startBankProxy(emu);
    proxy.answer = (path) =>
      /\/balances$/.test(path)
        ? {
            status: 400,
            body: { timestamp: new Date().toISOString(), path, status: 400, error: '400 BAD_REQUEST', message: forged },
          }
        : null;
    try {
      const dir = scratch('bankdata-esc-sync-');
      const data = join(dir, 'data');
      mkdirSync(data);
      const store = await openStore(join(data, 'bankdata.sqlite'));
      const authorised = emu.consentIds.find((id) => emu.consent(id)?.status === 'Authorised')!;
      await store.consents.add(authorised as ConsentId);
      await store.close();
      const r = await runCli(['sync'], { cwd: dir, env: emulatorEnv({ ...emu, baseUrl: proxy.baseUrl }, data) });
      // The failure is there, made visible on stderr by the logger and on stdout by the summary.
      expect(r.stderr, r.stderr).toContain('\\u{1b}[2J');
      expect(r.stdout).toContain('failed');
      expect(r.stdout).toContain('\\u{1b}[2J\\u{1b}[31mboom');
      expect(r.stdout).not.toMatch(ANY_CONTROL);
    } finally {
      await proxy.close();
      await emu.close();
    }
  }, 120_000);
});

describe('every command of the registry, on a database holding escape codes', () => {
  /**
   * One run per runnable command. `shows`: the run prints the seeded text (visible), proving it
   * was reached. Commands that serve or run forever are given arguments that end them.
   */
  const CASES: Record<string, { args: (dir: string) => string[]; shows?: boolean; data?: boolean }> = {
    demo: { args: () => ['demo'] },
    sync: { args: () => ['sync'] },
    status: { args: () => ['status'], shows: true },
    check: { args: () => ['check'], shows: true },
    categorise: { args: () => ['categorise'] },
    transfers: { args: () => ['transfers'] },
    report: { args: (dir) => ['report', '--out', join(dir, 'report.html')] },
    changes: { args: () => ['changes'] },
    // Serves until stopped: a refused port ends it.
    emulator: { args: () => ['emulator', '--port', 'none'] },
    // A product on stdout: the bytes exactly, the bank's included (its stderr is checked).
    export: { args: () => ['export', 'accounts', '--format', 'csv'], data: true },
    'payments create': { args: () => ['payments', 'create', '--consent', CONSENT, '--amount', '1.00'] },
    'payments track': { args: () => ['payments', 'track', '--once'] },
    'payments show': { args: () => ['payments', 'show', '7c9e6679-7425-40de-944b-e07fc1f90ae7'] },
    'payments reconcile': { args: () => ['payments', 'reconcile'] },
    'consents add': { args: () => ['consents', 'add', CONSENT] },
    'consents list': { args: () => ['consents', 'list', '--offline'] },
    'consents show': { args: () => ['consents', 'show', CONSENT, '--offline'] },
    'consents revoke': { args: () => ['consents', 'revoke', CONSENT] },
    'consents create': { args: () => ['consents', 'create', '--bank', 'PNZ', '--flow', 'redirect'] },
    'consents forget': { args: () => ['consents', 'forget', CONSENT, '--dry-run'] },
    meta: { args: () => ['meta', '--offline'] },
    // `pacing` runs itself as well as `pacing reset`.
    pacing: { args: () => ['pacing'] },
    'pacing reset': { args: () => ['pacing', 'reset'] },
    'alerts list': { args: () => ['alerts', 'list'] },
    'alerts test': { args: () => ['alerts', 'test'] },
    // Runs until stopped: refused for an argument it does not take.
    schedule: { args: () => ['schedule', 'now'] },
    'db backup': { args: (dir) => ['db', 'backup', join(dir, 'backup.sqlite')] },
    'db migrate': { args: () => ['db', 'migrate'] },
    'db copy': { args: (dir) => ['db', 'copy', '--to', join(dir, 'copy.sqlite')] },
    completion: { args: () => ['completion', 'bash'] },
  };

  let seeded = '';
  let emu: StartedEmulator;
  beforeAll(async () => {
    seeded = join(scratch('bankdata-esc-seed-'), 'seed.sqlite');
    await seedHostileDatabase(seeded);
    emu = await startTestEmulator();
  });
  afterAll(async () => {
    await emu?.close();
  });

  it('every runnable command has a case', async () => {
    expect((await leafCommands()).filter((name) => !(name in CASES))).toEqual([]);
  });

  it.each(Object.keys(CASES))(
    'bankdata %s: no raw ESC, BEL or bare CR on stdout or stderr',
    async (name) => {
      const dir = scratch('bankdata-esc-run-');
      const data = join(dir, 'data');
      mkdirSync(data);
      copyFileSync(seeded, join(data, 'bankdata.sqlite'));
      const r = await runCliInProcess(CASES[name]!.args(dir), { cwd: dir, env: emulatorEnv(emu, data) });
      if (CASES[name]!.data) expect(r.stdout).toContain(HOSTILE_ID);
      else expect(r.stdout, r.stdout).not.toMatch(RAW);
      expect(r.stderr, r.stderr).not.toMatch(RAW);
      if (CASES[name]!.shows) expect(r.stdout + r.stderr).toContain('\\u{1b}');
    },
    60_000,
  );
});
