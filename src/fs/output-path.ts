/**
 * Where an output file may go (docs/security.md "Local misuse"). `checkOutputPath` is the one
 * guard every path a command writes or replaces passes (src/cli/output-paths.ts runs it when a
 * command's arguments are parsed; src/export/output.ts runs it again, without the configuration,
 * before it writes, for callers that are not commands, such as the demo). Refused, with exit 7
 * naming the path:
 * - a directory, or a file in a directory that does not exist (never created: a typo in `--out`
 *   must not build a tree);
 * - the configured database and its `-wal`, `-shm` and `-journal` files, whether they exist or not;
 * - any existing SQLite database (the header says so: another data directory's database, a
 *   backup, a pre-migration copy) and the `-wal`, `-shm` and `-journal` files beside one;
 * - anything under `statements/` of the configured data directory or of any directory holding
 *   the marker of a bankdata data directory (src/fs/data-dir.ts), and the marker itself.
 * - an existing file that is read-only (no write permission, or not writable by this process).
 * - a block device (a disk), and a stream (below) where the writer must make or replace a file.
 * Symbolic links are resolved first, so a link to the database is the database; the path as
 * given is checked too. A link to a file is written through: the path returned (the one to
 * write) is the link's target, so the link stays. An empty path is a usage error (exit 2).
 *
 * A stream (`outputStream`) is not a file to replace: a FIFO, a character device (a terminal,
 * /dev/null), a socket, or a name for a descriptor (/dev/stdout, /dev/stderr, /dev/fd/N,
 * /proc/PID/fd/N). Replaced by a rename it stopped being what it was (`--out /dev/stdout >> log`
 * wiped the log; a FIFO's reader got nothing). A writer that takes one (an export, a report:
 * `guard.streams`) writes it straight through, as `-`; every other writer is refused it.
 */
import {
  accessSync,
  closeSync,
  constants,
  lstatSync,
  openSync,
  readlinkSync,
  readSync,
  realpathSync,
  statSync,
} from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { LocalFileError, UsageError } from '../errors';
import { DATA_DIR_MARKER, isDataDirectory } from './data-dir';

export interface OutputGuard {
  /** The configured SQLite database (its -wal, -shm and -journal are added); absent for PostgreSQL. */
  database?: string;
  /** The configured data directory: its statements/ tree is protected even before it holds the marker. */
  dataDir?: string;
  /** The writer creates missing directories (db copy's new SQLite file): a missing parent is no refusal. */
  createsDirectories?: boolean;
  /** The writer writes a stream (`outputStream`) straight through (src/export/output.ts); refused otherwise. */
  streams?: boolean;
}

/**
 * A path an output is written into as it goes, never replaced: `fd` 1 or 2 for this process's
 * stdout or stderr (written through the descriptor itself: a socket, as node's child processes
 * get, cannot be opened by its /proc name), null for anything opened by its path (a FIFO, a
 * device, another descriptor through /proc, which appends to a file behind it).
 */
export interface OutputStream {
  fd: 1 | 2 | null;
  /** What it is, for a message: "standard output", "a FIFO"… */
  what: string;
}

/** /dev/stdout, /dev/fd/N, /proc/self/fd/N, /proc/PID/task/TID/fd/N: the descriptor's number, and whether it is ours. */
function descriptorName(path: string): { fd: number; own: boolean } | null {
  const std = /^\/dev\/(stdin|stdout|stderr)$/.exec(path);
  if (std?.[1]) return { fd: ['stdin', 'stdout', 'stderr'].indexOf(std[1]), own: true };
  const devFd = /^\/dev\/fd\/(\d+)$/.exec(path);
  if (devFd?.[1]) return { fd: Number(devFd[1]), own: true };
  const proc = /^\/proc\/(self|thread-self|\d+)(?:\/task\/\d+)?\/fd\/(\d+)$/.exec(path);
  if (proc?.[1] && proc[2]) {
    const own = proc[1] === 'self' || proc[1] === 'thread-self' || Number(proc[1]) === process.pid;
    return { fd: Number(proc[2]), own };
  }
  return null;
}

/**
 * The descriptor `path` names, through any links on the way (`out -> /dev/stdout`) and through
 * its real parent (a link to /proc/self/fd): a descriptor's name is itself a link to what is
 * behind it (the cron log), which must never be taken for a file to replace.
 */
function namedDescriptor(path: string): { fd: number; own: boolean } | null {
  let name = resolve(path);
  for (let hops = 0; hops < 40; hops++) {
    const found = descriptorName(name) ?? descriptorName(join(realParent(name), basename(name)));
    if (found) return found;
    let link: string;
    try {
      link = readlinkSync(name);
    } catch {
      return null;
    }
    name = resolve(dirname(name), link);
  }
  return null;
}

function realParent(path: string): string {
  try {
    return realpathSync.native(dirname(path));
  } catch {
    return dirname(path);
  }
}

/** The stream `path` names (see the top of this file), or null: a file, or nothing yet. */
export function outputStream(path: string): OutputStream | null {
  const named = namedDescriptor(path);
  if (named?.own && named.fd === 1) return { fd: 1, what: 'standard output' };
  if (named?.own && named.fd === 2) return { fd: 2, what: 'standard error' };
  if (named) return { fd: null, what: named.fd === 0 && named.own ? 'standard input' : `descriptor ${named.fd}` };
  const stat = statOrNull(path);
  if (stat?.isFIFO()) return { fd: null, what: 'a FIFO' };
  if (stat?.isCharacterDevice()) return { fd: null, what: 'a character device' };
  if (stat?.isSocket()) return { fd: null, what: 'a socket' };
  return null;
}

const SIDE_FILES = ['-wal', '-shm', '-journal'] as const;
const SQLITE_HEADER = 'SQLite format 3\0';

/** The real path of `path`, or of its parent plus its name when it does not exist yet. */
function realTarget(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    try {
      return join(realpathSync(dirname(path)), basename(path));
    } catch {
      return path;
    }
  }
}

function statOrNull(path: string) {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}

/** Whether `path` is an existing file that starts with SQLite's header. */
export function isSqliteFile(path: string): boolean {
  let fd: number | null = null;
  try {
    if (!statSync(path).isFile()) return false;
    fd = openSync(path, 'r');
    const header = Buffer.alloc(16);
    return readSync(fd, header, 0, 16, 0) === 16 && header.toString('latin1') === SQLITE_HEADER;
  } catch {
    return false;
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

/** Why `file` (absolute, real or as given) is protected, or null. */
function protectedReason(file: string, guard: OutputGuard): string | null {
  if (guard.database !== undefined) {
    const db = resolve(guard.database);
    for (const name of [db, realTarget(db)]) {
      if (file === name) return 'is the database; an output never replaces it';
      for (const side of SIDE_FILES) if (file === name + side) return `is the database's ${side.slice(1)} file`;
    }
  }
  if (isSqliteFile(file)) return 'is a SQLite database; an output never replaces one';
  for (const side of SIDE_FILES) {
    if (file.endsWith(side) && isSqliteFile(file.slice(0, -side.length)))
      return `is the ${side.slice(1)} file of the SQLite database ${file.slice(0, -side.length)}`;
  }
  const configured = guard.dataDir === undefined ? [] : [resolve(guard.dataDir), realTarget(resolve(guard.dataDir))];
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    const dataDir = configured.includes(dir) || isDataDirectory(dir);
    if (dataDir && file === join(dir, DATA_DIR_MARKER)) return 'is the marker of a bankdata data directory';
    if (dataDir && file.startsWith(join(dir, 'statements') + sep))
      return `is inside ${join(dir, 'statements')}, where the statement files are (a bankdata data directory)`;
    if (dirname(dir) === dir) return null;
  }
}

/** Throws unless `out` is a file path an output may be written to; returns its absolute path. */
export function checkOutputPath(out: string, guard: OutputGuard = {}, flag = '--out'): string {
  if (out.trim() === '') throw new UsageError(`${flag} is empty; name a file`);
  const file = resolve(out);
  const parent = dirname(file);
  const parentStat = statOrNull(parent);
  if (!parentStat && !guard.createsDirectories)
    throw new LocalFileError(
      parent,
      `does not exist; ${flag} does not create directories`,
      'create the directory first, or name another file',
    );
  if (parentStat && !parentStat.isDirectory()) throw new LocalFileError(parent, 'is not a directory');
  if (statOrNull(file)?.isDirectory()) throw new LocalFileError(file, `is a directory; ${flag} names a file`);
  if (statOrNull(file)?.isBlockDevice())
    throw new LocalFileError(file, 'is a block device; an output never writes one');
  // The real path first: a link to the database is named as the database (/dev/fd/N too).
  const real = realTarget(file);
  for (const candidate of new Set([real, file])) {
    const reason = protectedReason(candidate, guard);
    if (reason) throw new LocalFileError(file, reason, 'name another file');
  }
  const stream = outputStream(file);
  if (stream) return checkStream(file, stream, guard, flag);
  // A link to a file is written through: its target gets the bytes, the link stays a link.
  const target = isSymbolicLink(file) && statOrNull(real)?.isFile() ? real : file;
  if (!mayReplace(target))
    throw new LocalFileError(
      target,
      'is read-only; an output never replaces a file it may not write',
      'make it writable (chmod u+w), or name another file',
    );
  return target;
}

/** A stream is written as it is, by the name given (never its link's target), where the writer takes one. */
function checkStream(file: string, stream: OutputStream, guard: OutputGuard, flag: string): string {
  if (!guard.streams)
    throw new LocalFileError(
      file,
      `is ${stream.what}; ${flag} names a file here, made or replaced whole`,
      'name a file',
    );
  if (stream.what === 'standard input') throw new LocalFileError(file, 'is standard input; an output never writes it');
  if (stream.fd === null) {
    try {
      accessSync(file, constants.W_OK);
    } catch {
      throw new LocalFileError(file, `is ${stream.what} this process may not write`);
    }
  }
  return file;
}

function isSymbolicLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * Whether an existing file may be replaced: writable by this process, and with some write
 * permission at all (root may write anything, but a file its owner made read-only is kept as
 * `rm` and the shell's `>` under `noclobber` keep it). A file that is not there may be made.
 */
function mayReplace(path: string): boolean {
  const stat = statOrNull(path);
  if (!stat) return true;
  if ((stat.mode & 0o222) === 0) return false;
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** A write failure (no permission, full disk, a directory in the way) as exit 7 naming the path. */
export function toLocalFileError(path: string, error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const reasons: Record<string, string> = {
    EACCES: 'could not be written: permission denied',
    EPERM: 'could not be written: operation not permitted',
    EROFS: 'could not be written: read-only file system',
    ENOSPC: 'could not be written: the disk is full',
    EDQUOT: 'could not be written: disk quota exceeded',
    EISDIR: 'is a directory',
    ENOENT: 'could not be written: its directory does not exist',
    ENOTDIR: 'could not be written: a part of the path is not a directory',
    EEXIST: 'could not be written: a file is in the way',
    ENXIO: 'could not be written: nothing can be opened there (a socket, or a device with no driver)',
  };
  if (typeof code === 'string' && reasons[code]) return new LocalFileError(path, reasons[code]);
  return error;
}
