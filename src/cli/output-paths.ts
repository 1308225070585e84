/**
 * How a command takes a path (docs/security.md "Local misuse"). Every option or argument that
 * names a file or directory is made here, with its role:
 *
 * - `outputPathOption(flags, description, spec?)` / `outputPathArgument(name, description, spec?)`:
 *   a file the command writes, replaces or creates (`--out`, `--to`, a FILE). Register it with
 *   commander's `.addOption(…)` / `.addArgument(…)`. Before any action runs, the root program's
 *   `preAction` hook (src/cli/main.ts) passes every declared output's value through
 *   `checkDeclaredOutputs`, that is src/fs/output-path.ts `checkOutputPath` against the
 *   configured database and data directory: the database, its -wal/-shm/-journal, any SQLite
 *   database, a statement file of any bankdata data directory and a directory are refused with
 *   exit 7 before anything is opened. The action receives the checked absolute path.
 *   `spec.stdout`: `-` is stdout, not a path; `spec.postgresUrl`: a postgres:// URL is not a
 *   file; `spec.defaultPath`: the default from the data directory, so a default is checked too;
 *   `spec.createsDirectories`: the command makes the missing directories on the way (not refused);
 *   `spec.streams`: a FIFO, a device or /dev/stdout is written straight through (refused without).
 * - `inputPathOption(flags, description)`: a file the command only reads.
 * - `dataPathOption(flags, description)`: the database or the data directory itself (`--db`,
 *   `--data-dir`, `db copy --from`), guarded by the store and src/fs/data-dir.ts.
 *
 * - every other option that takes a value, and every other argument, is declared not a path
 *   (src/cli/path-roles.ts `notPaths`, role `none`) beside the command's definition.
 *
 * test/cli/output-paths.test.ts walks every command of the registry (src/cli/main.ts COMMANDS)
 * and fails on an option that takes a value, or an argument, with no declared role; then it
 * aims each output at the database, its WAL, a statement file and a directory.
 */
import { resolve } from 'node:path';
import { Argument, Option, type Command } from 'commander';
import { isPostgresUrl } from '../database-url';
import { checkOutputPath } from '../fs/output-path';
import { globalsOf } from './globals';
import { declaredOutputs, declarePathRole, type OutputPathSpec } from './path-roles';
import { configOf } from './run-config';

export { pathRoleOf, type OutputPathSpec, type PathRole } from './path-roles';

/** An option naming a file the command writes; checked before the action runs. */
export function outputPathOption(flags: string, description: string, spec: OutputPathSpec = {}): Option {
  const option = new Option(flags, description);
  if (spec.stdout) option.default('-');
  return declarePathRole(option, 'output', spec);
}

/** An argument naming a file the command writes; checked before the action runs. */
export function outputPathArgument(name: string, description: string, spec: OutputPathSpec = {}): Argument {
  return declarePathRole(new Argument(name, description), 'output', spec);
}

/** An option naming a file the command only reads. */
export function inputPathOption(flags: string, description: string): Option {
  return declarePathRole(new Option(flags, description), 'input');
}

/** An option naming the database or the data directory. */
export function dataPathOption(flags: string, description: string): Option {
  return declarePathRole(new Option(flags, description), 'data');
}

/** Each declared output's value (or default) through the one guard, replaced by its absolute path. */
export function checkDeclaredOutputs(command: Command, readsConfig = true): void {
  const declared = declaredOutputs(command);
  if (declared.length === 0) return;
  // A command that reads no configuration (`emulator`) knows no database or data directory of its
  // own: the guard still refuses any SQLite database and any marked data directory's files.
  const config = readsConfig ? configOf(globalsOf(command)) : null;
  const dataDir = config?.dataDir ?? resolve('data');
  const guard = config ? { ...(isPostgresUrl(config.db) ? {} : { database: config.db }), dataDir: config.dataDir } : {};
  for (const { target, spec } of declared) {
    const index = target instanceof Argument ? command.registeredArguments.indexOf(target) : -1;
    const key = target instanceof Option ? target.attributeName() : '';
    const given: unknown = target instanceof Option ? command.getOptionValue(key) : command.processedArgs[index];
    const value = given === undefined && spec.defaultPath ? spec.defaultPath(dataDir) : given;
    if (typeof value !== 'string') continue;
    if (spec.stdout && value === '-') continue;
    if (spec.postgresUrl && isPostgresUrl(value)) continue;
    const label = target instanceof Option ? (target.long ?? target.flags) : target.name().toUpperCase();
    const checked = checkOutputPath(
      value,
      { ...guard, createsDirectories: spec.createsDirectories ?? false, streams: spec.streams ?? false },
      label,
    );
    if (target instanceof Option) command.setOptionValue(key, checked);
    else command.processedArgs[index] = checked;
  }
}
