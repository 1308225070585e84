/**
 * The examples that end a command's `--help`, declared beside the command's definition with
 * `withExamples(command, [...])`. The man page (src/cli/man-page.ts, made by scripts/build.mjs)
 * prints the same ones. test/cli/help-examples.test.ts checks that every command of the
 * registry has two or three, and that each example parses: its command names and options exist.
 * Imports nothing but commander's types.
 */
import type { Command } from 'commander';

export interface Example {
  /** The command line, starting with `bankdata`. */
  line: string;
  /** What it does, one line. */
  says: string;
}

const examples = new WeakMap<Command, readonly Example[]>();

export function withExamples(command: Command, list: readonly Example[]): Command {
  examples.set(command, list);
  return command.addHelpText(
    'after',
    () => `\nExamples:\n${list.map((e) => `  $ ${e.line}\n      ${e.says}`).join('\n')}\n`,
  );
}

export function examplesOf(command: Command): readonly Example[] {
  return examples.get(command) ?? [];
}
