/**
 * Where an output file may go (docs/security.md "Local misuse"): never the database, its WAL,
 * SHM or journal, never a statement file, never a directory, and never into a directory that
 * does not exist (it is not created: a typo in `--out` must not build a tree). Symbolic links
 * are resolved first, so a link to the database is the database. Failures are exit 7 naming
 * the path; an empty path is a usage error.
 */
import { realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { LocalFileError, UsageError } from '../errors';

export interface OutputGuard {
  /** Files no output may replace (the database: its -wal, -shm and -journal are added). */
  databases: readonly string[];
  /** Directories no output may be written into (statement files). */
  directories: readonly string[];
}

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

/** Throws unless `out` is a file path an output may be written to; returns its absolute path. */
export function checkOutputPath(out: string, guard: OutputGuard, flag = '--out'): string {
  if (out.trim() === '') throw new UsageError(`${flag} is empty; name a file, or - for stdout`);
  const file = resolve(out);
  const parent = dirname(file);
  const parentStat = statOrNull(parent);
  if (!parentStat)
    throw new LocalFileError(
      parent,
      `does not exist; ${flag} does not create directories`,
      'create the directory first, or name another file',
    );
  if (!parentStat.isDirectory()) throw new LocalFileError(parent, 'is not a directory');
  const stat = statOrNull(file);
  if (stat?.isDirectory()) throw new LocalFileError(file, `is a directory; ${flag} names a file`);
  const target = realTarget(file);
  for (const db of guard.databases) {
    const real = realTarget(resolve(db));
    for (const side of ['', '-wal', '-shm', '-journal']) {
      if (target === real + side || file === resolve(db) + side) {
        throw new LocalFileError(file, 'is the database; an export never replaces it', 'name another file');
      }
    }
  }
  for (const dir of guard.directories) {
    const real = realTarget(resolve(dir));
    if (target.startsWith(real + sep) || file.startsWith(resolve(dir) + sep)) {
      throw new LocalFileError(file, `is inside ${real}, where the statement files are`, 'name a file outside it');
    }
  }
  return file;
}

function statOrNull(path: string) {
  try {
    return statSync(path);
  } catch {
    return null;
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
  };
  if (typeof code === 'string' && reasons[code]) return new LocalFileError(path, reasons[code]);
  return error;
}
