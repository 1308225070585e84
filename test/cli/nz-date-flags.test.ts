/**
 * Every command reads an NZ date one way (src/export/filters.ts `nzDateFlag`; docs/exports.md
 * "Filters"): the options are found in the registry (src/cli/main.ts), each one whose description
 * names an NZ date, and the settings in the configuration's forms (src/config/schema.ts
 * EXPECTED_FORM: `sync.floor`). Each refuses a date that is no date with exit 2 and the same
 * message; each takes the ends of the calendar, 9999-12-31 as "no end" (export ended in exit 70
 * there while report exited 0). `consents create`'s dates take a date-time too, as the bank's
 * consent dates are (docs/bank-api.md §4.1): a plain date is read as the others read it (it was
 * the consent's own reader, with its own message, after the bank was asked for its meta).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Option, type Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFullProgram } from '../../src/cli/main';
import { EXPECTED_FORM } from '../../src/config/schema';
import { createFixtureStore, type FixtureStore } from '../export/fixture-store';
import { runCliInProcess } from './cli-process';
import { DECOUPLED } from './store-commands';

let fx: FixtureStore;
/** A bank that refuses every client (401): a command that got past its dates ends there, at once. */
let refusing: Server;
let refusingUrl: string;
beforeAll(async () => {
  fx = await createFixtureStore();
  refusing = createServer((_, res) => {
    res.writeHead(401, { 'content-type': 'application/json' });
    res.end('{"error":"invalid_client"}');
  });
  await new Promise<void>((done) => refusing.listen(0, '127.0.0.1', done));
  refusingUrl = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((done) => refusing.close(done));
  await fx.cleanup();
});

/**
 * Every option of every command whose value is an NZ date, as `bankdata CMD --flag`; `dateTime`
 * when its description says it takes a date-time too.
 */
function dateOptions(program: Command): Array<{ name: string; dateTime: boolean }> {
  const found: Array<{ name: string; dateTime: boolean }> = [];
  const walk = (command: Command, path: string[]) => {
    for (const option of command.options as Option[])
      if (/NZ date/.test(option.description))
        found.push({
          name: ['bankdata', ...path, option.long ?? option.flags].join(' '),
          dateTime: /date-time/.test(option.description),
        });
    for (const sub of command.commands) walk(sub, [...path, sub.name()]);
  };
  walk(program, []);
  return found;
}

/** A `consents create` whose other arguments pass every check made before anything is sent. */
const CONSENT_CREATE = ['consents', 'create', ...DECOUPLED, '--no-wait'];

/**
 * What runs each command up to reading its date: one found above and missing here fails. `ends`:
 * what the calendar's ends (9999-12-31, 0000-01-01) give: `exit 0` where the command then runs on
 * the fixture; `read` where it then meets a server nothing answers (the date was read: no usage
 * error); `refused` where it then asks a bank that refuses the client (exit 3); none where it
 * would then wait on a bank (`sync`: its retries).
 */
const RUNS: Record<
  string,
  {
    args: (value: string) => string[];
    env?: () => Record<string, string>;
    ends: 'exit 0' | 'read' | 'refused' | null;
  }
> = {
  'bankdata export --from': { args: (v) => ['export', 'transactions', '--format', 'csv', '--from', v], ends: 'exit 0' },
  'bankdata export --to': { args: (v) => ['export', 'transactions', '--format', 'csv', '--to', v], ends: 'exit 0' },
  'bankdata report --from': { args: (v) => ['report', '--out', join(fx.dir, 'r.html'), '--from', v], ends: 'exit 0' },
  'bankdata report --to': { args: (v) => ['report', '--out', join(fx.dir, 'r.html'), '--to', v], ends: 'exit 0' },
  // Reached with credentials (checked first) that nothing is sent to: the date is refused before.
  'bankdata sync --since': {
    args: (v) => ['sync', '--since', v],
    env: () => ({ BANKDATA_DATA_BASE_URL: 'http://127.0.0.1:9', BANKDATA_CLIENT_ID: 'x', BANKDATA_CLIENT_SECRET: 'y' }),
    ends: null,
  },
  // From a server never reached: the date is read before the copy connects.
  'bankdata db copy --since': {
    args: (v) => [
      'db',
      'copy',
      '--from',
      'postgres://nobody@127.0.0.1:9/x',
      '--to',
      join(fx.dir, 'c.sqlite'),
      '--since',
      v,
    ],
    ends: 'read',
  },
  // Read before the database is opened and anything sent; then on to a bank refusing the client.
  ...Object.fromEntries(
    ['--start', '--end', '--expires'].map((flag) => [
      `bankdata consents create ${flag}`,
      {
        args: (v: string) => [...CONSENT_CREATE, flag, v],
        env: () => ({
          BANKDATA_DATA_BASE_URL: refusingUrl,
          BANKDATA_CLIENT_ID: 'x',
          BANKDATA_CLIENT_SECRET: 'nz-date-flags-secret-5d21',
        }),
        ends: 'refused' as const,
      },
    ]),
  ),
};

const found = dateOptions(await buildFullProgram());
const names = found.map((o) => o.name);

/** A run's outcome when its date was read, not refused: `ends` says what comes next. */
function expectRead(run: (typeof RUNS)[string], value: string, r: { code: number; stderr: string }): void {
  expect(r.stderr).not.toContain('is not a date');
  if (run.ends === 'exit 0') expect(r.code, `${value}: ${r.stderr}`).toBe(0);
  else if (run.ends === 'refused') {
    // The date read, the command goes on to the bank, which refuses the client: exit 3.
    expect(r.code, `${value}: ${r.stderr}`).toBe(3);
    expect(r.stderr).toContain('token request refused (401)');
  } else {
    // The date read, the command goes on to the server nothing answers: exit 6, that server named.
    expect(r.code, `${value}: ${r.stderr}`).toBe(6);
    expect(r.stderr).toContain('cannot be reached');
  }
}

describe('every NZ date option reads its date one way', () => {
  it('finds them all, each with a way to run it', () => {
    expect(found.length).toBeGreaterThan(0);
    expect(names.filter((name) => RUNS[name] === undefined)).toEqual([]);
    // consents create's dates are among them (they said "date-time" and were left out).
    expect(found.filter((o) => o.dateTime).map((o) => o.name)).toEqual([
      'bankdata consents create --start',
      'bankdata consents create --end',
      'bankdata consents create --expires',
    ]);
  });

  describe.each(found)('$name', ({ name, dateTime }) => {
    const flag = name.split(' ').at(-1)!;
    // A date-time is no date where only a date is taken; where a date-time is taken too, one
    // without its seconds is neither.
    const refused = [
      '2025-02-30',
      '2025-2-3',
      '10000-01-01',
      dateTime ? '2025-03-01T00:00+13:00' : '2025-03-01T00:00:00+13:00',
    ];
    it.each(refused)('%s: exit 2, the same message', async (value) => {
      const run = RUNS[name]!;
      const r = await runCliInProcess(['--db', fx.path, ...run.args(value)], { cwd: fx.dir, env: run.env?.() ?? {} });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`bankdata: ${flag} is not a date: ${JSON.stringify(value)}`);
    });

    if (dateTime)
      it('2025-03-01T00:00:00+13:00: a date-time, read', async () => {
        const run = RUNS[name]!;
        const r = await runCliInProcess(['--db', fx.path, ...run.args('2025-03-01T00:00:00+13:00')], {
          cwd: fx.dir,
          env: run.env?.() ?? {},
        });
        expectRead(run, '2025-03-01T00:00:00+13:00', r);
      });
  });

  const atTheEnds = names.filter((name) => RUNS[name]?.ends);
  it.each(atTheEnds)('%s 9999-12-31 and 0000-01-01: read as dates', async (name) => {
    const run = RUNS[name]!;
    for (const value of ['9999-12-31', '0000-01-01']) {
      const r = await runCliInProcess(['--db', fx.path, ...run.args(value)], { cwd: fx.dir, env: run.env?.() ?? {} });
      expectRead(run, value, r);
    }
  });
});

/**
 * The settings whose value is an NZ date (`sync.floor`) take what the options take: the same
 * dates refused (exit 2, the setting and its file named, as every setting is), the calendar's
 * ends read. Any command loads the configuration first; `export` then runs on the fixture.
 */
describe('every NZ date setting reads its date as the options do', () => {
  const settings = Object.entries(EXPECTED_FORM)
    .filter(([, form]) => /NZ date/.test(form))
    .map(([key]) => key);

  it('finds them', () => {
    expect(settings).toEqual(['sync.floor']);
  });

  /** A working folder whose config/local.json sets `key` to `value`. */
  const withSetting = (key: string, value: string): string => {
    const cwd = mkdtempSync(join(fx.dir, 'setting-'));
    mkdirSync(join(cwd, 'config'));
    const layer = key
      .split('.')
      .reverse()
      .reduce<unknown>((inner, part) => ({ [part]: inner }), value);
    writeFileSync(join(cwd, 'config', 'local.json'), JSON.stringify(layer));
    return cwd;
  };
  const run = (cwd: string) =>
    runCliInProcess(['--db', fx.path, 'export', 'transactions', '--format', 'csv'], { cwd, env: {} });

  describe.each(settings)('%s', (key) => {
    it.each(['2025-02-30', '2025-2-3', '10000-01-01', '2025-03-01T00:00:00+13:00'])(
      '%s: exit 2, naming the setting',
      async (value) => {
        const r = await run(withSetting(key, value));
        expect(r.code, r.stderr).toBe(2);
        expect(r.stderr).toContain(
          `config/local.json: ${key}: expected an NZ date YYYY-MM-DD, or null, got ${JSON.stringify(value)}`,
        );
      },
    );

    it('9999-12-31 and 0000-01-01: read as dates', async () => {
      for (const value of ['9999-12-31', '0000-01-01']) {
        const r = await run(withSetting(key, value));
        expect(r.code, `${value}: ${r.stderr}`).toBe(0);
      }
    });
  });
});
