/**
 * An option declared both on a command and on one of its subcommands (`alerts --state` and
 * `alerts list --state`): commander gives the value written after the subcommand to the parent,
 * so an action that reads only its own options never sees it. Every such option of the registry
 * (src/cli/main.ts COMMANDS, subcommands included) is listed here with a run that gives it after
 * the subcommand and checks the outcome; one added later without a run fails the first case.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFullProgram } from '../../src/cli/main';
import { openStore } from '../../src/store';
import { runCliInProcess } from './cli-process';

const dir = mkdtempSync(join(tmpdir(), 'bankdata-shadowed-'));
const dataDir = join(dir, 'data');
const db = join(dataDir, 'bankdata.sqlite');
const env = { HOME: dir, BANKDATA_DATA_DIR: dataDir, BANKDATA_DB: db };
const run = (args: string[]) => runCliInProcess(args, { env, cwd: dir });

beforeAll(async () => {
  // A command hook that succeeds (`alerts test`), run without a shell.
  mkdirSync(join(dir, 'config'));
  writeFileSync(
    join(dir, 'config', 'local.json'),
    JSON.stringify({ alerts: { command: [process.execPath, '-e', '0'] } }),
  );
  const store = await openStore(db);
  const now = '2026-11-01T10:00:00Z';
  for (const eventId of ['pending-1', 'delivered-1', 'failed-1'])
    await store.alerts.enqueue(
      { eventId, type: 'test', subject: 'test', payloadJson: '{}', destinations: ['command'] },
      now,
    );
  for (const [eventId, delivered] of [
    ['delivered-1', true],
    ['failed-1', false],
  ] as const) {
    const [row] = await store.alerts.claimDue({
      now,
      claimUntil: '2026-11-01T10:01:00Z',
      limit: 5,
      eventIds: [eventId],
    });
    await store.alerts.recordAttempt(row!.id, {
      delivered,
      status: delivered ? 0 : 3,
      error: delivered ? null : 'exit code 3',
      nextAttemptAt: null,
      now,
    });
  }
  await store.pacing.save({ api: 'http://127.0.0.1:4010', clientId: 'c', rate: 9.5, ceiling: null, now });
  await store.close();
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Each shadowing option, `subcommand words --option`: a run giving it after the subcommand. They
 * run in this order: `alerts test` queues (and delivers) one more event, after the lists.
 */
const CASES: Record<string, () => Promise<void>> = {
  'alerts list --state': async () => {
    for (const state of ['failed', 'delivered', 'pending']) {
      const r = await run(['alerts', 'list', '--state', state, '--json']);
      expect(r.code).toBe(0);
      const events = (JSON.parse(r.stdout) as { events: { event_id: string; state: string }[] }).events;
      expect(events.map((e) => [e.event_id, e.state])).toEqual([[`${state}-1`, state]]);
    }
    // Given before the subcommand, the parent's, it filters the same.
    const before = await run(['alerts', '--state', 'failed', 'list', '--json']);
    expect((JSON.parse(before.stdout) as { events: { event_id: string }[] }).events.map((e) => e.event_id)).toEqual([
      'failed-1',
    ]);
  },
  'alerts list --json': async () => {
    const r = await run(['alerts', 'list', '--json']);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { counts: unknown }).counts).toEqual({ pending: 1, delivered: 1, failed: 1 });
  },
  'alerts test --json': async () => {
    const r = await run(['alerts', 'test', '--json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { attempts: { destination: string; delivered: boolean }[] };
    expect(out.attempts.map((a) => [a.destination, a.delivered])).toEqual([['command', true]]);
  },
  'pacing reset --json': async () => {
    const r = await run(['pacing', 'reset', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toBeTypeOf('object');
  },
};

/** Every `words --option` of a subcommand whose option (long or short name) is also an ancestor's. */
async function shadowingOptions(): Promise<string[]> {
  const found: string[] = [];
  const walk = (command: Command, ancestors: readonly Command[], words: readonly string[]) => {
    for (const sub of command.commands) {
      const subWords = [...words, sub.name()];
      const above = [command, ...ancestors];
      for (const option of sub.options)
        if (
          above.some((a) =>
            a.options.some(
              (o) =>
                (o.long !== undefined && o.long === option.long) || (o.short !== undefined && o.short === option.short),
            ),
          )
        )
          found.push(`${subWords.join(' ')} ${option.long ?? option.short}`);
      walk(sub, above, subWords);
    }
  };
  walk(await buildFullProgram(), [], []);
  return found.sort();
}

describe('an option a subcommand shares with its parent', () => {
  it('every one has a run below', async () => {
    expect(await shadowingOptions()).toEqual(Object.keys(CASES).sort());
  });

  for (const [name, check] of Object.entries(CASES)) it(`${name}, given after the subcommand, is read`, check);
});
