/**
 * What a command needs before its action may run, declared where the command registers it and
 * checked by src/cli/preflight.ts from the root program's `preAction` hook (src/cli/main.ts),
 * before any file is created:
 *
 * - the configuration (every command, unless declared with `readsNoConfig`: `emulator` and
 *   `completion` read none): loaded and validated, a bad value exits 2;
 * - API credentials (`needsCredentials(command, 'data' | 'payments', when?)`): the client id,
 *   secret and base URL, checked when `when(options)` holds (e.g. not with `--offline`); a
 *   missing one exits 2 naming the variables.
 *
 * test/cli/preflight.test.ts runs every command of the registry in an empty directory with a
 * bad configuration and with no credentials, and finds the directory unchanged. Imports nothing
 * but commander's types.
 */
import type { Command } from 'commander';

export type Api = 'data' | 'payments';

export interface CommandNeeds {
  config: boolean;
  credentials: { api: Api; when: (options: Record<string, unknown>) => boolean }[];
}

const needs = new WeakMap<Command, CommandNeeds>();

function needsOfOrNew(command: Command): CommandNeeds {
  let entry = needs.get(command);
  if (!entry) needs.set(command, (entry = { config: true, credentials: [] }));
  return entry;
}

/** The command calls `api` (when `when` holds for its options): its credentials are checked first. */
export function needsCredentials(
  command: Command,
  api: Api,
  when: (options: Record<string, unknown>) => boolean = () => true,
): Command {
  needsOfOrNew(command).credentials.push({ api, when });
  return command;
}

/** The command reads no configuration (it is not loaded before it runs). */
export function readsNoConfig(command: Command): Command {
  needsOfOrNew(command).config = false;
  return command;
}

export function needsOf(command: Command): CommandNeeds {
  return needs.get(command) ?? { config: true, credentials: [] };
}

/** The sub-command `name` of `parent`, as just registered (to declare its needs beside it). */
export function commandNamed(parent: Command, name: string): Command {
  const found = parent.commands.find((c) => c.name() === name);
  if (!found) throw new Error(`no command ${name} under ${parent.name()}`);
  return found;
}

/**
 * What a command prints on stdout. `outcome` (the default): the result of what it did, which
 * `--json` prints as one JSON document (test/cli/json-outcome.test.ts); `product`: the output is
 * the thing asked for (an export, a completion script); `service`: it runs until stopped, one JSON
 * line per event (`emulator`, `schedule`); `walkthrough`: a narrated run for a person (`demo`).
 */
export type StdoutKind = 'outcome' | 'product' | 'service' | 'walkthrough';

const stdoutKinds = new WeakMap<Command, StdoutKind>();

export function printsOnStdout(command: Command, kind: StdoutKind): Command {
  stdoutKinds.set(command, kind);
  return command;
}

export function stdoutKindOf(command: Command): StdoutKind {
  return stdoutKinds.get(command) ?? 'outcome';
}

/**
 * Commands that can change what alerts judge (runs, consents' statuses, continuity findings,
 * payments' statuses; docs/alerts.md "When alerts are judged"): after the action, whether it
 * ended well or threw, the alerts are judged and the outbox delivered (src/cli/main.ts). Not when
 * the command did not really run: `--offline` (no live read) and `--dry-run` (nothing written)
 * change nothing alerts judge. test/cli/alerts-registry.test.ts walks every command of the
 * registry and holds both to it.
 */
const alertRaisers = new WeakSet<Command>();

/** The options under which a command that raises alerts did not really run. */
export const NOT_A_REAL_RUN = ['offline', 'dryRun'] as const;

export function raisesAlerts(command: Command): Command {
  alertRaisers.add(command);
  return command;
}

/** Whether `command`, run with `options` (its parsed options unless given), raises alerts. */
export function raisesAlertsOf(command: Command, options: Record<string, unknown> = command.opts()): boolean {
  return alertRaisers.has(command) && !NOT_A_REAL_RUN.some((name) => options[name] === true);
}
