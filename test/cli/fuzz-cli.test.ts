/**
 * A property-based fuzz of the CLI's arguments and of the config file (docs/security.md
 * "Hostile input"): commands that only read, with generated flags and values, a generated
 * config/local.json, and no server reachable (the base URLs point at a closed loopback port).
 * Whatever the input: the exit code is one of the documented ones and never 70 (a bug); a
 * failure prints one `bankdata:` line on stderr plus at most one `hint:` line, no stack trace
 * and no raw control character; the database is byte for byte unchanged.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFixtureStore, type FixtureStore } from '../export/fixture-store';
import { runCliInProcess } from './cli-process';

const DOCUMENTED = new Set([0, 1, 2, 3, 4, 5, 6, 7]);
const UNREACHABLE = 'http://127.0.0.1:9';

let fx: FixtureStore;
let before: string;
const hash = () => createHash('sha256').update(readFileSync(fx.path)).digest('hex');
beforeAll(async () => {
  fx = await createFixtureStore();
  fx.store.sqlite.pragma('wal_checkpoint(TRUNCATE)');
  await fx.store.close();
  before = hash();
});
afterAll(() => fx.cleanup());

const value = fc.oneof(
  fc.constantFrom(
    '',
    '-1',
    '0',
    '1',
    '99999999999999999999',
    'abc',
    '1e3',
    '2025-02-30',
    '2025-03-01',
    '../../etc/passwd',
    '/dev/zero',
    '.',
    'NaN',
  ),
  fc.constantFrom(
    "a'b;--",
    '\u001b[2J',
    'x\r\nbankdata: forged',
    '\u202e',
    'c0a8012e-7d3b-4f5e-9a61-2b9f4c1d8e70',
    'acc-0001',
    'PNZ',
    'csv',
    'ofx',
    'json',
  ),
  fc.string({ maxLength: 12 }),
);

const flag = fc.constantFrom(
  '--format',
  '--from',
  '--to',
  '--account',
  '--consent',
  '--bank',
  '--status',
  '--runs',
  '--out',
  '--log-level',
  '--data-dir',
  '--json',
  '--offline',
  '--excel',
  '--lf',
  '--bogus',
  '-x',
  '--',
);

const command = fc.constantFrom(
  ['status'],
  ['export', 'transactions'],
  ['export', 'accounts'],
  ['export', 'ledger'],
  ['consents', 'list', '--offline'],
  ['consents', 'show'],
  ['payments', 'show'],
  ['payments', 'reconcile'],
  ['meta'],
  ['db', 'backup'],
  ['nonsense'],
);

/** Flags with values, each flag followed by a value half the time. */
const args = fc
  .array(fc.tuple(flag, fc.option(value, { nil: undefined })), { maxLength: 5 })
  .map((pairs) => pairs.flatMap(([f, v]) => (v === undefined ? [f] : [f, v])));

const configFile = fc.option(
  fc.oneof(
    fc.json({ maxDepth: 2 }),
    fc
      .record(
        {
          dataBaseUrl: fc.oneof(
            fc.constant('https://bank.example/x?client_secret=s3cr3t-canary'),
            fc.string(),
            fc.constant(UNREACHABLE),
          ),
          sync: fc.record(
            { windowDays: fc.oneof(fc.integer(), fc.string()), lookbakDays: fc.integer() },
            { requiredKeys: [] },
          ),
          clientSecret: fc.constant('s3cr3t-canary'),
          db: fc.string(),
        },
        { requiredKeys: [] },
      )
      .map((o) => JSON.stringify(o)),
    fc.constantFrom('{', '[]', 'null', '"x"', '{"dataDir": 5}'),
  ),
  { nil: undefined },
);

describe('fuzz: CLI arguments and config file, no server reachable', () => {
  it('exit code documented (never 70), one error line plus an optional hint, no stack trace, database unchanged', async () => {
    await fc.assert(
      fc.asyncProperty(command, args, configFile, async (cmd, extra, config) => {
        const cwd = mkdtempSync(join(tmpdir(), 'bankdata-fuzz-'));
        if (config !== undefined) {
          mkdirSync(join(cwd, 'config'));
          writeFileSync(join(cwd, 'config', 'local.json'), config);
        }
        const r = await runCliInProcess([...cmd, ...extra], {
          cwd,
          env: {
            BANKDATA_DB: fx.path,
            BANKDATA_DATA_BASE_URL: UNREACHABLE,
            BANKDATA_CLIENT_ID: 'fuzz-client',
            BANKDATA_CLIENT_SECRET: 'fuzz-secret-canary',
            BANKDATA_PAYMENTS_BASE_URL: UNREACHABLE,
          },
        });
        const label = JSON.stringify({ cmd, extra, config, code: r.code, stderr: r.stderr });
        expect(DOCUMENTED.has(r.code), label).toBe(true);
        expect(r.stderr, label).not.toMatch(/\n\s+at |Error: .*\n.*node:/);
        expect(r.stderr, label).not.toContain('canary');
        // eslint-disable-next-line no-control-regex
        expect(r.stderr, label).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
        if (r.code !== 0) {
          const lines = r.stderr
            .trimEnd()
            .split('\n')
            .filter((l) => !l.startsWith('bankdata: warning:'));
          expect(lines[0], label).toMatch(/^bankdata: /);
          expect(lines.length, label).toBeLessThanOrEqual(2);
          if (lines[1] !== undefined) expect(lines[1], label).toMatch(/^hint: /);
        }
        expect(hash(), label).toBe(before);
      }),
      { numRuns: 24, seed: 20261123, endOnFailure: true },
    );
  }, 400_000);
});
