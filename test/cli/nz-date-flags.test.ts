/**
 * Every command reads an NZ date one way (src/export/filters.ts `nzDateFlag`; docs/exports.md
 * "Filters"): the options are found in the registry (src/cli/main.ts), each one whose description
 * names an NZ date and not a date-time (`consents create --start` takes either: the consent's own
 * reader, src/sync/consent-request.ts). Each refuses a date that is no date with exit 2 and the
 * same message; export and report take the ends of the calendar, 9999-12-31 as "no end" (export
 * ended in exit 70 there while report exited 0).
 */
import { join } from 'node:path';
import { Option, type Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFullProgram } from '../../src/cli/main';
import { createFixtureStore, type FixtureStore } from '../export/fixture-store';
import { runCliInProcess } from './cli-process';

let fx: FixtureStore;
beforeAll(async () => {
  fx = await createFixtureStore();
});
afterAll(() => fx.cleanup());

/** Every option of every command whose value is an NZ date, as `bankdata CMD --flag`. */
function dateOptions(program: Command): string[] {
  const found: string[] = [];
  const walk = (command: Command, path: string[]) => {
    for (const option of command.options as Option[])
      if (/NZ date/.test(option.description) && !/date-time/.test(option.description))
        found.push(['bankdata', ...path, option.long ?? option.flags].join(' '));
    for (const sub of command.commands) walk(sub, [...path, sub.name()]);
  };
  walk(program, []);
  return found;
}

/**
 * What runs each command up to reading its date: one found above and missing here fails. `ends`:
 * what the calendar's ends (9999-12-31, 0000-01-01) give: `exit 0` where the command then runs on
 * the fixture; `read` where it then meets a server nothing answers (the date was read: no usage
 * error); none where it would then wait on a bank (`sync`: its retries).
 */
const RUNS: Record<
  string,
  { args: (value: string) => string[]; env?: Record<string, string>; ends: 'exit 0' | 'read' | null }
> = {
  'bankdata export --from': { args: (v) => ['export', 'transactions', '--format', 'csv', '--from', v], ends: 'exit 0' },
  'bankdata export --to': { args: (v) => ['export', 'transactions', '--format', 'csv', '--to', v], ends: 'exit 0' },
  'bankdata report --from': { args: (v) => ['report', '--out', join(fx.dir, 'r.html'), '--from', v], ends: 'exit 0' },
  'bankdata report --to': { args: (v) => ['report', '--out', join(fx.dir, 'r.html'), '--to', v], ends: 'exit 0' },
  // Reached with credentials (checked first) that nothing is sent to: the date is refused before.
  'bankdata sync --since': {
    args: (v) => ['sync', '--since', v],
    env: { BANKDATA_DATA_BASE_URL: 'http://127.0.0.1:9', BANKDATA_CLIENT_ID: 'x', BANKDATA_CLIENT_SECRET: 'y' },
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
};

const found = dateOptions(await buildFullProgram());

describe('every NZ date option reads its date one way', () => {
  it('finds them all, each with a way to run it', () => {
    expect(found.length).toBeGreaterThan(0);
    expect(found.filter((name) => RUNS[name] === undefined)).toEqual([]);
  });

  describe.each(found)('%s', (name) => {
    const flag = name.split(' ').at(-1)!;
    it.each(['2025-02-30', '2025-2-3', '10000-01-01', '2025-03-01T00:00:00+13:00'])(
      '%s: exit 2, the same message',
      async (value) => {
        const run = RUNS[name]!;
        const r = await runCliInProcess(['--db', fx.path, ...run.args(value)], { cwd: fx.dir, env: run.env ?? {} });
        expect(r.code, r.stderr).toBe(2);
        expect(r.stderr).toContain(`bankdata: ${flag} is not a date: ${JSON.stringify(value)}`);
      },
    );
  });

  const atTheEnds = found.filter((name) => RUNS[name]?.ends);
  it.each(atTheEnds)('%s 9999-12-31 and 0000-01-01: read as dates', async (name) => {
    const run = RUNS[name]!;
    for (const value of ['9999-12-31', '0000-01-01']) {
      const r = await runCliInProcess(['--db', fx.path, ...run.args(value)], { cwd: fx.dir, env: run.env ?? {} });
      expect(r.stderr).not.toContain('is not a date');
      if (run.ends === 'exit 0') expect(r.code, `${value}: ${r.stderr}`).toBe(0);
      else {
        // The date read, the command goes on to the server nothing answers: exit 6, that server named.
        expect(r.code, `${value}: ${r.stderr}`).toBe(6);
        expect(r.stderr).toContain('cannot be reached');
      }
    }
  });
});
