/**
 * The emulator's command line (src/cli.ts, docs/emulator.md): the flags and their checks, the
 * usage text, and the built `bankdata-emulator` command (bin + dist, as the tarball ships them)
 * printing its ready line, serving /v1/meta to a client with a token, logging JSON lines on
 * stderr and stopping cleanly on SIGTERM.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMULATOR_FLAGS, EmulatorUsageError, emulatorOptionsFromFlags, flagKey, main, usage } from '../src/cli';
import { DEFAULTS, REFUSALS } from './cli-cases';
import { expectReadyAndServing } from './helpers';

const PACKAGE = join(__dirname, '..');

describe('emulatorOptionsFromFlags', () => {
  it('maps the flags, splitting the whitelist on commas, with a running clock', () => {
    expect(
      emulatorOptionsFromFlags({
        ...DEFAULTS,
        seed: '9',
        start: '2026-01-01T00:00:00Z',
        redirectWhitelist: 'https://a.nz/x, https://*.b.nz/',
      }),
    ).toEqual({
      port: 0,
      seed: 9,
      start: '2026-01-01T00:00:00Z',
      faults: 'none',
      environment: 'sandbox',
      latencyMs: 0,
      redirectWhitelist: ['https://a.nz/x', 'https://*.b.nz/'],
      clock: 'running',
    });
  });

  it.each(REFUSALS)('refuses %j with an EmulatorUsageError: %s', (flags, message) => {
    const attempt = () => emulatorOptionsFromFlags({ ...DEFAULTS, ...flags });
    expect(attempt).toThrow(EmulatorUsageError);
    expect(attempt).toThrow(message);
  });

  it('keys each flag as commander does (camelCase of its name), a default for each required one', () => {
    expect(EMULATOR_FLAGS.map((f) => flagKey(f.name))).toEqual([
      'port',
      'seed',
      'start',
      'faults',
      'redirectWhitelist',
      'environment',
      'latencyMs',
    ]);
    const defaulted = EMULATOR_FLAGS.filter((f) => f.default !== undefined).map((f) => flagKey(f.name));
    expect(defaulted.sort()).toEqual(Object.keys(DEFAULTS).sort());
  });
});

/** main() in this process, its output captured (no serving: nothing here starts an emulator). */
async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, {
    stdout: { write: (s: string) => ((out += s), true) },
    stderr: { write: (s: string) => ((err += s), true) },
  });
  return { code, out, err };
}

describe('bankdata-emulator: usage', () => {
  it('--help prints the usage text listing every flag, exit 0', async () => {
    const { code, out, err } = await run(['--help']);
    expect(code).toBe(0);
    expect(err).toBe('');
    expect(out).toBe(usage());
    expect(out).toMatch(/^Usage: bankdata-emulator \[options\]\n/);
    for (const flag of EMULATOR_FLAGS) expect(out).toContain(`--${flag.name} <${flag.value}>`);
    expect(out).toContain('--version');
  });

  it('--version prints the package version', async () => {
    const { version } = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')) as { version: string };
    expect(await run(['--version'])).toEqual({ code: 0, out: `${version}\n`, err: '' });
    expect((await run(['-V'])).out).toBe(`${version}\n`);
  });

  it.each([
    [['--port', 'x'], 'bankdata-emulator: --port must be an integer from 0 to 65535: x'],
    [['--faults', 'some'], 'bankdata-emulator: --faults must be none, light or heavy: some'],
    [['--start', '2999-01-01T00:00:00Z'], 'bankdata-emulator: --start must not be in the future'],
    [['--bogus'], 'bankdata-emulator: unknown option --bogus'],
    [['--seed'], 'bankdata-emulator: '],
    [['serve'], 'bankdata-emulator: '],
    // A value with a line break and an escape sequence is one line, shown escaped.
    [
      ['--faults', 'x\n\u001b[2Jbankdata-emulator: forged'],
      'bankdata-emulator: --faults must be none, light or heavy: x\\u{a}\\u{1b}[2J',
    ],
  ])('%j: exit 2 with one bankdata-emulator line on stderr', async (argv, start) => {
    const { code, out, err } = await run(argv);
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err.startsWith(start)).toBe(true);
    expect(err.endsWith('\n')).toBe(true);
    expect(err.trimEnd().split('\n')).toHaveLength(1);
  });
});

describe('bankdata-emulator: the built command', () => {
  // bin/ and a fresh dist/ beside a copy of package.json, laid out as the tarball installs them.
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'emulator-cli-'));
    const built = spawnSync(process.execPath, ['scripts/build.mjs', '--outdir', join(dir, 'dist')], {
      cwd: PACKAGE,
      encoding: 'utf8',
    });
    expect(built.status, built.stderr).toBe(0);
    mkdirSync(join(dir, 'bin'));
    copyFileSync(join(PACKAGE, 'bin', 'bankdata-emulator.js'), join(dir, 'bin', 'bankdata-emulator.js'));
    copyFileSync(join(PACKAGE, 'package.json'), join(dir, 'package.json'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('prints the ready line, serves /v1/meta with a token, logs JSON on stderr, stops on SIGTERM', async () => {
    const child: ChildProcessWithoutNullStreams = spawn(
      process.execPath,
      [join(dir, 'bin', 'bankdata-emulator.js'), '--seed', '3', '--environment', 'production'],
      { stdio: 'pipe' },
    );
    const stderr: string[] = [];
    createInterface({ input: child.stderr }).on('line', (line) => stderr.push(line));
    const stdout: string[] = [];
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => stdout.push(line));
    try {
      const [first] = (await once(lines, 'line')) as [string];
      const { ready, token, banks } = await expectReadyAndServing(first);
      expect(banks).toEqual(expect.arrayContaining(['PNZ', 'ANZ', 'ASB', 'BNZ', 'Westpac', 'Kiwibank', 'NZHL']));

      child.kill('SIGTERM');
      const [code] = (await once(child, 'exit')) as [number | null];
      expect(code).toBe(0);
      const logs = stderr.map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(logs.some((l) => l.msg === 'request' && l.path === '/v1/meta' && l.status === 200)).toBe(true);
      expect(logs.at(-1)).toMatchObject({ msg: 'stopping', signal: 'SIGTERM', component: 'emulator' });
      expect(stderr.join('\n')).not.toContain(ready.client_secret);
      expect(stderr.join('\n')).not.toContain(token);
      expect(stdout).toHaveLength(1);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
