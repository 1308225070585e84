/**
 * Which commands judge the alerts after they run (docs/alerts.md "When alerts are judged"),
 * checked over every command of the CLI's registry: src/cli/main.ts `buildFullProgram` loads each
 * entry of COMMANDS, and the walk below visits every command and sub-command it registers.
 *
 * - The commands declared with `raisesAlerts` are exactly those named in CHANGES_ALERTABLE_STATE,
 *   a list kept by hand with what each changes: a declaration added or lost, or a command renamed,
 *   fails here. That a command writes alertable state is not found by the test itself; whoever adds
 *   one that does declares it and names it here.
 * - Every command of the registry that has `--offline` or `--dry-run` (found by walking the
 *   options, not listed) does not judge when run with it, its options parsed by commander as on
 *   the command line: it did not really run.
 * - The read-only commands named below do not judge.
 *
 * That a declared command's alerts are delivered, on success and on failure, is
 * test/cli/alerts.test.ts's: it runs sync, check and consents revoke against a receiver.
 */
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildFullProgram } from '../../src/cli/main';
import { NOT_A_REAL_RUN, raisesAlertsOf } from '../../src/cli/command-needs';

/** Every command of a program: its path (`consents list`) and the command. */
function commandsOf(program: Command): { path: string; command: Command }[] {
  const out: { path: string; command: Command }[] = [];
  const walk = (command: Command, path: string[]) => {
    if (path.length > 0) out.push({ path: path.join(' '), command });
    for (const sub of command.commands) walk(sub, [...path, sub.name()]);
  };
  walk(program, []);
  return out;
}
const leaves = commandsOf(await buildFullProgram());

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

  it('a command run with --offline or --dry-run does not judge (it did not really run); without them it does', async () => {
    const notReal = new Set<string>(NOT_A_REAL_RUN);
    const found: string[] = [];
    // A fresh program each time: parsing sets the options on the command objects.
    for (const { path, command } of leaves)
      for (const option of command.options.filter((o) => notReal.has(o.attributeName()))) {
        const flag = option.long!;
        found.push(`${path} ${flag}`);
        const fresh = commandsOf(await buildFullProgram()).find((l) => l.path === path)!.command;
        fresh.parseOptions([flag]);
        expect(fresh.getOptionValue(option.attributeName()), `${path} ${flag}`).toBe(true);
        expect(raisesAlertsOf(fresh), `${path} ${flag}`).toBe(false);
        const plain = commandsOf(await buildFullProgram()).find((l) => l.path === path)!.command;
        plain.parseOptions([]);
        expect(raisesAlertsOf(plain), `${path} without ${flag}`).toBe(path in CHANGES_ALERTABLE_STATE);
      }
    // The walk found the flags of the commands that judge (and the others that have them).
    expect(found.filter((f) => f.split(' --')[0]! in CHANGES_ALERTABLE_STATE).sort()).toEqual([
      'consents list --offline',
      'consents show --offline',
      'sync --dry-run',
    ]);
  });

  it('commands that only read (status, export, report, alerts list) do not judge', () => {
    for (const path of ['status', 'export', 'report', 'alerts', 'alerts list', 'meta', 'pacing'])
      expect(raisesAlertsOf(leaves.find((l) => l.path === path)!.command), path).toBe(false);
  });
});
