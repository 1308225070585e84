/**
 * The commands that can change what alerts judge (docs/alerts.md "When alerts are judged") each
 * end with the judgement: the registry (src/cli/main.ts COMMANDS, every command loaded) is walked
 * and the commands declared with `raisesAlerts` must be exactly those that write runs, consents'
 * statuses, continuity findings or payments' statuses, each named here with what it writes. A
 * new command that writes any of them fails this test until it is declared (and named here).
 * test/cli/alerts.test.ts runs sync, check and consents revoke and sees their alerts delivered.
 */
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildFullProgram } from '../../src/cli/main';
import { raisesAlertsOf } from '../../src/cli/command-needs';

const leaves: { path: string; command: Command }[] = [];
const walk = (command: Command, path: string[]) => {
  if (path.length > 0) leaves.push({ path: path.join(' '), command });
  for (const sub of command.commands) walk(sub, [...path, sub.name()]);
};
walk(await buildFullProgram(), []);

/** Every command that changes alertable state, and what it changes. */
const CHANGES_ALERTABLE_STATE: Record<string, string> = {
  sync: 'a run (runs), consents read live, the closing continuity check, the payments pass',
  check: 'continuity_findings',
  'payments create': 'a payment and its status (Rejected)',
  'payments track': "payments' statuses",
  'consents list': 'consents read live (status, ended)',
  'consents show': 'the consent read live',
  'consents create': 'the consent created and its status',
  'consents revoke': 'the consent ended',
};

describe('alerts are judged after every command that can change alertable state', () => {
  it('the commands declared with raisesAlerts are exactly those that change it', () => {
    expect(
      leaves
        .filter((l) => raisesAlertsOf(l.command))
        .map((l) => l.path)
        .sort(),
    ).toEqual(Object.keys(CHANGES_ALERTABLE_STATE).sort());
  });

  it('commands that only read (status, export, report, alerts list) do not judge', () => {
    for (const path of ['status', 'export', 'report', 'alerts', 'alerts list', 'meta', 'pacing'])
      expect(raisesAlertsOf(leaves.find((l) => l.path === path)!.command), path).toBe(false);
  });
});
