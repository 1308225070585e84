/**
 * Issue 34, "one output discipline" (README "Output"), driven as a user would: the real
 * `bankdata` binary against the emulator over HTTP and a SQLite database on disk, stdout and
 * stderr read apart.
 *   - every command of the registry (src/cli/main.ts COMMANDS), at the default level: no stderr
 *     line is JSON; with `-q`: nothing on stderr unless it fails (a summary line neither); with
 *     `--log-format json`: every stderr line a JSON record (a summary line too, level `notice`);
 *   - the warnings of a transactions export: one summary line at the default level, none with
 *     `-q` or `--log-level silent`, each one at `-v`, JSON lines with `--log-format json` or
 *     BANKDATA_LOG_FORMAT=json; of `-q`, `-v` and `--log-level`, the last one given wins;
 *   - `bankdata … | head -1` of a long output: the command ends with 141 and an empty stderr;
 *   - commander's messages: an unknown command or option named with a suggestion as a hint line, a
 *     password in an option's value never shown, one JSON line with the json format.
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAULT_PROFILES, startEmulator, type StartedEmulator } from '@bankdata/emulator';
import type { ConsentId } from '@bankdata/core/schemas';
import { COMMANDS } from '../../src/cli/main';
import { openStore, type SqliteStore } from '../../src/store';
import { emulatorEnv } from '../fixtures/cli-env';
import { BIN, runCli, spawnCli, waitFor } from './cli-process';

let emu: StartedEmulator;
let dir: string;
let env: Record<string, string>;
let store: SqliteStore;
const started: ReturnType<typeof spawnCli>[] = [];

/** The lines of a stream's text, the empty last one dropped. */
const lines = (text: string) => text.split('\n').filter((l) => l !== '');
const jsonLines = (text: string) => lines(text).filter((l) => l.trimStart().startsWith('{'));
const warnings = (text: string) => lines(text).filter((l) => /warning/.test(l));
const isJsonRecord = (line: string) => {
  try {
    return typeof (JSON.parse(line) as { level?: unknown }).level === 'string';
  } catch {
    return false;
  }
};

beforeAll(async () => {
  emu = await startEmulator({ seed: 11, customersPerBank: 1 });
  dir = mkdtempSync(join(tmpdir(), 'bankdata-output-'));
  const dataDir = join(dir, 'data');
  store = await openStore(join(dataDir, 'bankdata.sqlite'));
  for (const id of emu.consentIds.filter((c) => emu.consent(c)?.status === 'Authorised'))
    await store.consents.add(id as ConsentId);
  env = emulatorEnv(emu, dataDir);
  const sync = await runCli(['sync'], { cwd: dir, env });
  expect(sync.code, sync.stderr).toBe(0);
});

afterAll(async () => {
  for (const run of started) if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill();
  await store?.close();
  await emu?.close();
});

/**
 * One invocation per command of the registry, in a state where it works and, where it can,
 * warns: the export asks for dates before every consent starts. `serves`: the command runs until
 * stopped; it is stopped (by its pid) after its first line of stdout.
 */
const cases = (): Record<string, { args: string[]; serves?: boolean }> => ({
  demo: { args: ['demo'] },
  sync: { args: ['sync'] },
  status: { args: ['status'] },
  check: { args: ['check'] },
  categorise: { args: ['categorise', '--dry-run'] },
  transfers: { args: ['transfers'] },
  report: { args: ['report', '--out', join(mkdtempSync(join(tmpdir(), 'bankdata-output-report-')), 'r.html')] },
  changes: { args: ['changes', '--limit', '50'] },
  emulator: { args: ['emulator', '--port', '0'], serves: true },
  export: { args: ['export', 'transactions', '--format', 'csv', '--from', '2000-01-01'] },
  payments: { args: ['payments', 'reconcile'] },
  consents: { args: ['consents', 'list'] },
  meta: { args: ['meta'] },
  pacing: { args: ['pacing'] },
  alerts: { args: ['alerts'] },
  schedule: { args: ['schedule'], serves: true },
  db: { args: ['db', 'backup', join(mkdtempSync(join(tmpdir(), 'bankdata-output-db-')), 'copy.sqlite')] },
  completion: { args: ['completion', 'bash'] },
});

async function run(args: string[], serves = false, extraEnv: Record<string, string> = {}) {
  if (!serves) return runCli(args, { cwd: dir, env: { ...env, ...extraEnv } });
  const child = spawnCli(args, { cwd: dir, env: { ...env, ...extraEnv } });
  started.push(child);
  await waitFor(() => child.stdout().includes('\n'));
  child.child.kill('SIGTERM');
  const code = await child.exited;
  return { code, stdout: child.stdout(), stderr: child.stderr() };
}

describe('every command of the registry', () => {
  it('has a case', () => {
    expect(Object.keys(cases()).sort()).toEqual(COMMANDS.map((c) => c.name).sort());
  });

  it.each(COMMANDS.map((c) => c.name))(
    'bankdata %s: at the default level no stderr line is JSON; with -q nothing unless it fails; with --log-format json every stderr line is JSON',
    async (name) => {
      // Each run with its own output paths (a backup refuses a file that exists).
      const at = async (flags: string[]) => {
        const { args, serves } = cases()[name]!;
        return run([...flags, ...args], serves);
      };
      const plain = await at([]);
      expect(plain.code, plain.stderr).not.toBe(70);
      expect(jsonLines(plain.stderr)).toEqual([]);
      const quiet = await at(['-q']);
      expect(quiet.code, quiet.stderr).not.toBe(70);
      expect(warnings(quiet.stderr)).toEqual([]);
      // Its summary line included (`backed up …`, a report's path): -q is errors only.
      expect(quiet.code).toBe(plain.code);
      if (quiet.code === 0) expect(quiet.stderr).toBe('');
      const json = await at(['--log-format', 'json']);
      expect(json.code, json.stderr).not.toBe(70);
      expect(lines(json.stderr).filter((l) => !isJsonRecord(l))).toEqual([]);
    },
  );

  it.each([
    [
      'export --out',
      (out: string) => ['export', 'accounts', '--format', 'csv', '--out', join(out, 'accounts.csv')],
      /^exported \d+ accounts rows to /,
    ],
    ['db backup', (out: string) => ['db', 'backup', join(out, 'copy.sqlite')], /^backed up /],
    ['db migrate', () => ['db', 'migrate'], / is up to date$/],
  ])(
    'bankdata %s: its summary line through the logger: shown by default, not with -q, a JSON record with --log-format json',
    async (_, argsIn, said) => {
      const at = (flags: string[]) =>
        run([...flags, ...argsIn(mkdtempSync(join(tmpdir(), 'bankdata-output-summary-')))]);
      const plain = await at([]);
      expect(plain.code, plain.stderr).toBe(0);
      expect(lines(plain.stderr)).toEqual([expect.stringMatching(/^bankdata: /) as string]);
      expect(lines(plain.stderr)[0]!.replace(/^bankdata: /, '')).toMatch(said);
      const quiet = await at(['-q']);
      expect([quiet.code, quiet.stderr]).toEqual([0, '']);
      const json = await at(['--log-format', 'json']);
      expect(json.code, json.stderr).toBe(0);
      expect(lines(json.stderr).map((l) => JSON.parse(l) as Record<string, unknown>)).toEqual([
        expect.objectContaining({ level: 'notice', msg: expect.stringMatching(said) as string }),
      ]);
    },
  );
});

describe('the warnings of a transactions export', () => {
  const args = ['export', 'transactions', '--format', 'csv', '--from', '2000-01-01'];
  const header = (stdout: string) => lines(stdout)[0];

  it('default: one summary warning with its count and a hint; the CSV alone on stdout', async () => {
    const r = await runCli(args, { cwd: dir, env });
    expect(r.code, r.stderr).toBe(0);
    expect(header(r.stdout)).toMatch(/^consent_id,bank,account_id,/);
    expect(lines(r.stdout).every((l) => !l.includes('warning'))).toBe(true);
    expect(lines(r.stderr)).toEqual([
      expect.stringMatching(/^bankdata: warning: the export is partial by construction in \d+ ways \(/) as string,
      'hint: add -v to list each',
    ]);
  });

  it.each([
    [['-q']],
    [['--log-level', 'silent']],
    [['--log-level', 'error']],
    [['-v', '-q']],
    [['--log-level', 'info', '-q']],
  ])('%j: nothing on stderr, the same stdout', async (flags) => {
    const r = await runCli([...flags, ...args], { cwd: dir, env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(header(r.stdout)).toMatch(/^consent_id,bank,account_id,/);
  });

  it.each([[['-v']], [['-q', '-v']], [['--log-level', 'silent', '--verbose']], [['-q', '--log-level', 'info']]])(
    '%j: the summary and each warning at info level',
    async (flags) => {
      const r = await runCli([...flags, ...args], { cwd: dir, env });
      expect(r.code, r.stderr).toBe(0);
      const [summary, ...each] = lines(r.stderr);
      expect(summary).toMatch(/^bankdata: warning: the export is partial by construction in (\d+) ways/);
      const count = Number(/in (\d+) ways/.exec(summary!)![1]);
      expect(count).toBeGreaterThan(1);
      expect(each).toHaveLength(count);
      for (const line of each) expect(line).toMatch(/^bankdata: \S+ account \S+: its consent \S+ /);
    },
  );

  it('--log-format json and BANKDATA_LOG_FORMAT=json: every stderr line is a JSON record', async () => {
    for (const r of [
      await runCli(['--log-format', 'json', ...args], { cwd: dir, env }),
      await runCli(args, { cwd: dir, env: { ...env, BANKDATA_LOG_FORMAT: 'json' } }),
    ]) {
      expect(r.code, r.stderr).toBe(0);
      const records = lines(r.stderr).map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(records).toEqual([
        expect.objectContaining({ level: 'warn', msg: expect.stringMatching(/^the export is partial/) as string }),
      ]);
    }
  });

  it('BANKDATA_LOG_FORMAT=yaml: exit 2 naming the allowed values', async () => {
    const r = await runCli(args, { cwd: dir, env: { ...env, BANKDATA_LOG_FORMAT: 'yaml' } });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(lines(r.stderr)[0]).toMatch(
      /^bankdata: option '--log-format <format>' value 'yaml' from env 'BANKDATA_LOG_FORMAT' is invalid\. Allowed choices are text, json\.$/,
    );
  });
});

describe('a closed pipe after the first line', () => {
  /** `bankdata ARGS | head -1` in bash: the exit code of bankdata (PIPESTATUS) and its stderr. */
  function headOne(args: string[]) {
    const errFile = join(mkdtempSync(join(tmpdir(), 'bankdata-head-')), 'stderr');
    const script = `"$0" "$@" 2>"${errFile}" | head -1 >/dev/null; echo "\${PIPESTATUS[0]}"`;
    const out = execFileSync('bash', ['-c', script, process.execPath, BIN, ...args], {
      cwd: dir,
      env,
      encoding: 'utf8',
    });
    return { code: Number(out.trim()), stderr: readFileSync(errFile, 'utf8') };
  }

  it.each([
    [['export', 'transactions', '--format', 'csv', '--from', '2000-01-01']],
    [['export', 'transactions', '--format', 'json']],
  ])('bankdata %j | head -1: exit 141, stderr empty', (args) => {
    expect(headOne(args)).toEqual({ code: 141, stderr: '' });
  });
});

describe("commander's messages", () => {
  it('an unknown command: one line naming it, a hint with the suggestion, exit 2', async () => {
    const r = await runCli(['exprot'], { cwd: dir, env });
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: "bankdata: unknown command 'exprot'\nhint: did you mean 'export'?\n",
    });
  });

  it('a typo of an option beside a missing required one: the unknown option is named, with a suggestion', async () => {
    const r = await runCli(['export', 'transactions', '--fromat', 'csv'], { cwd: dir, env });
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: "bankdata: unknown option '--fromat'\nhint: did you mean '--format'?\n",
    });
  });

  it('a required option missing alone is still named', async () => {
    const r = await runCli(['export', 'transactions'], { cwd: dir, env });
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: "bankdata: required option '--format <format>' not specified\nhint: add --help to see the usage\n",
    });
  });

  it("an unknown option holding a database URL: commander's echo of it shows no password", async () => {
    const r = await runCli(['status', '--bd=postgres://bankdata:Hunter2Secret@db.example.nz/bankdata'], {
      cwd: dir,
      env,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).not.toContain('Hunter2Secret');
    expect(lines(r.stderr)).toEqual([
      "bankdata: unknown option '--bd=postgres://bankdata:[redacted]@db.example.nz/bankdata'",
      'hint: add --help to see the usage',
    ]);
  });

  it.each([
    [['--log-format', 'json', 'status', '--nope'], {}, "unknown option '--nope'", 'add --help to see the usage'],
    [['exprot', '--log-format=json'], {}, "unknown command 'exprot'", "did you mean 'export'?"],
    [
      ['export', 'transactions'],
      { BANKDATA_LOG_FORMAT: 'json' },
      "required option '--format <format>' not specified",
      'add --help to see the usage',
    ],
  ])('%j %j with the json format: one JSON line, as the final error of a command', async (args, extra, msg, hint) => {
    const r = await runCli(args, { cwd: dir, env: { ...env, ...extra } });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(lines(r.stderr)).toHaveLength(1);
    expect(JSON.parse(r.stderr)).toEqual({
      time: expect.any(String) as string,
      level: 'error',
      msg,
      hint,
      exit_code: 2,
    });
  });
});

describe('retries shown (the bank answers 503 with Retry-After: 0, every time, so the waits are the backoff)', () => {
  let down: StartedEmulator;
  let downEnv: Record<string, string>;
  beforeAll(async () => {
    down = await startEmulator({ seed: 11, customersPerBank: 1 });
    down.updateSettings({ faults: { ...FAULT_PROFILES.none, bdt601: 1 }, faultRetryAfterSeconds: 0 });
    downEnv = emulatorEnv(down, join(mkdtempSync(join(tmpdir(), 'bankdata-down-')), 'data'));
  });
  afterAll(async () => {
    await down?.close();
  });
  const retryLine = /^bankdata: attempt (\d) of 5 failed: .*BDT601.*; retrying in (\d+\.\d) s$/;
  /**
   * The waits the retry lines give: the first is the Retry-After (0 s); each later one adds a
   * backoff drawn under 1, 2 and 4 s (the bank: "the client waits, then backs off").
   */
  const expectWaits = (retries: string[]) => {
    const waits = retries.map((l) => Number(retryLine.exec(l)![2]));
    expect(waits[0]).toBe(0);
    waits.slice(1).forEach((w, i) => expect(w).toBeLessThanOrEqual(2 ** i));
  };

  it('-v: one line per retry with its attempt and wait, then the error; exit 5', async () => {
    const r = await runCli(['-v', 'meta'], { cwd: dir, env: downEnv });
    expect(r.code, r.stderr).toBe(5);
    expect(r.stdout).toBe('');
    const retries = lines(r.stderr).filter((l) => retryLine.test(l));
    expect(retries.map((l) => retryLine.exec(l)![1])).toEqual(['1', '2', '3', '4']);
    expectWaits(retries);
    expect(lines(r.stderr).filter((l) => !retryLine.test(l))[0]).toMatch(/^bankdata: .*BDT601/);
  });

  it('the default level off a terminal: no retry line, the error alone', async () => {
    const r = await runCli(['meta'], { cwd: dir, env: downEnv });
    expect(r.code, r.stderr).toBe(5);
    expect(lines(r.stderr).filter((l) => retryLine.test(l))).toEqual([]);
    expect(lines(r.stderr)[0]).toMatch(/^bankdata: .*BDT601/);
  });

  it('the default level on a terminal (script(1) gives the command a pty): each retry shown, then the error', async () => {
    // Not spawnSync: the emulator answers from this process.
    const child = spawn('script', ['-qfec', `"${process.execPath}" "${BIN}" meta`, '/dev/null'], {
      cwd: dir,
      env: downEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    const [status] = (await once(child, 'close')) as [number | null];
    const r = { status, stdout };
    // stdout and stderr are the one pty: its lines, the line-clearing escape of the display taken off.
    const shown = r.stdout
      .replaceAll('\r\x1b[K', '')
      .split(/\r?\n/)
      .filter((l) => l !== '');
    expect(r.status, r.stdout).toBe(5);
    const retries = shown.filter((l) => retryLine.test(l));
    expect(retries.map((l) => retryLine.exec(l)![1])).toEqual(['1', '2', '3', '4']);
    expectWaits(retries);
  });
});

describe('sync progress per consent (issue 34)', () => {
  /** A data dir with every Authorised consent of the emulator registered, nothing synced yet. */
  async function freshDir(): Promise<Record<string, string>> {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'bankdata-progress-')), 'data');
    const s = await openStore(join(dataDir, 'bankdata.sqlite'));
    for (const id of emu.consentIds.filter((c) => emu.consent(c)?.status === 'Authorised'))
      await s.consents.add(id as ConsentId);
    await s.close();
    return emulatorEnv(emu, dataDir);
  }
  const consentLine = /consent ([0-9a-f]{8})…: windows (\d+), rows (\d+), done/;

  it('on a terminal (script(1)): the progress line names a consent with its windows and rows', async () => {
    const child = spawn('script', ['-qfec', `"${process.execPath}" "${BIN}" sync`, '/dev/null'], {
      cwd: dir,
      env: await freshDir(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let shown = '';
    child.stdout.on('data', (d: Buffer) => (shown += d.toString('utf8')));
    const [status] = (await once(child, 'close')) as [number | null];
    expect(status, shown).toBe(0);
    const drawn = shown.split(/\r/).filter((l) => consentLine.test(l));
    expect(drawn.length, shown).toBeGreaterThan(0);
    const [, id, windows] = consentLine.exec(drawn.at(-1)!)!;
    expect(emu.consentIds.some((c) => c.startsWith(id!))).toBe(true);
    expect(Number(windows)).toBeGreaterThan(0);
  });

  it('off a terminal: nothing of it at the default level; a line per consent finished at -v; stdout only the summary', async () => {
    const quiet = await runCli(['sync'], { cwd: dir, env: await freshDir() });
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stderr).not.toMatch(/progress|windows \d/);
    expect(quiet.stdout).not.toMatch(/consent [0-9a-f]{8}…: windows/);
    const loud = await runCli(['-v', 'sync'], { cwd: dir, env: await freshDir() });
    expect(loud.code, loud.stderr).toBe(0);
    const finished = lines(loud.stderr).filter(
      (l) => /sync progress/.test(l) && /finished=true|finished: true/.test(l),
    );
    const authorised = emu.consentIds.filter((c) => emu.consent(c)?.status === 'Authorised');
    expect(finished).toHaveLength(authorised.length);
    expect(loud.stdout).not.toMatch(/sync progress/);
  });
});
