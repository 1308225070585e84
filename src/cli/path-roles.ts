/**
 * The role of each option or argument that names a path, declared where the command registers it
 * (src/cli/output-paths.ts), and read back by the check that runs before every action
 * (src/cli/main.ts) and by test/cli/output-paths.test.ts. Imports nothing but commander, so the
 * global options (src/cli/globals.ts, loaded by `bankdata --help`) can declare theirs.
 */
import type { Argument, Command, Option } from 'commander';

/**
 * output: written, replaced or created (checked before the action); input: only read; data: the
 * database or data directory; none: the value is not a path (a date, an id, a number, a choice).
 * Every option that takes a value, and every argument, declares one (test/cli/output-paths.test.ts).
 */
export type PathRole = 'output' | 'input' | 'data' | 'none';

export interface OutputPathSpec {
  /** `-` means stdout and is not a path. */
  stdout?: boolean;
  /** A postgres:// URL is a database location, not a file. */
  postgresUrl?: boolean;
  /** The command creates missing directories on the way to the file. */
  createsDirectories?: boolean;
  /**
   * The command writes a stream (a FIFO, a device, /dev/stdout: src/fs/output-path.ts
   * `outputStream`) straight through; without it one is refused (exit 7), never replaced.
   */
  streams?: boolean;
  /** The default, from the configured data directory (checked like a value). */
  defaultPath?: (dataDir: string) => string;
}

const roles = new WeakMap<Option | Argument, PathRole>();
const outputSpecs = new WeakMap<Option | Argument, OutputPathSpec>();

export function declarePathRole<T extends Option | Argument>(target: T, role: PathRole, spec: OutputPathSpec = {}): T {
  roles.set(target, role);
  if (role === 'output') outputSpecs.set(target, spec);
  return target;
}

/** The role an option or argument was declared with, or undefined (not declared). */
export function pathRoleOf(target: Option | Argument): PathRole | undefined {
  return roles.get(target);
}

/** The outputs a command declares, with their specs. */
export function declaredOutputs(command: Command): { target: Option | Argument; spec: OutputPathSpec }[] {
  return [...command.options, ...command.registeredArguments].flatMap((target) => {
    const spec = outputSpecs.get(target);
    return spec ? [{ target, spec }] : [];
  });
}

/**
 * Declares the named options (`--since`) and arguments (`<id>`) of `command` as values that are
 * not paths (role `none`), beside the command's definition. A name the command does not have, or
 * one already declared, is a programming error.
 */
export function notPaths(command: Command, names: readonly string[]): Command {
  for (const name of names) {
    const target = name.startsWith('<')
      ? command.registeredArguments.find((a) => `<${a.name()}>` === name)
      : command.options.find((o) => o.long === name);
    if (!target) throw new Error(`${command.name()} has no ${name}`);
    if (roles.has(target)) throw new Error(`${command.name()} ${name} already has a role`);
    declarePathRole(target, 'none');
  }
  return command;
}
