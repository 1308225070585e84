/**
 * The data directory and the paths a database names inside it (docs/security.md "Local misuse").
 *
 * - `markDataDirectory(dir)`: writes the marker file `.bankdata-data-dir` into a directory the
 *   store writes to (the SQLite store's open, and every statement file written), so that an
 *   output path guard (output-path.ts) recognises any bankdata data directory, not only the one
 *   configured: a statement file under the demo's data directory is as protected as our own.
 * - `storedPathInDataDir(dataDir, stored)`: the one way from a path read from a database (a
 *   statement's `file_path`) to a file on disk, for reading, writing and deleting alike. The
 *   stored path must be relative, in `/` form, without `.`, `..` or empty parts; every part that
 *   exists is resolved through its links and must stay inside the real data directory. Anything
 *   else throws `RefusedStoredPath` (exit 7) naming the stored path: the caller refuses that row
 *   and reports it. Parts that do not exist yet are created (by the caller) below a checked one,
 *   so no directory is ever created outside the data directory.
 * - `readStoredFile`, `removeStoredFile` and `StoredFilesBatch` (a copy's files, undone on
 *   failure) read, delete and write such paths through it.
 * - `noLinksBelow(dataDir, path)`: the stricter rule for statement files that sync writes: no
 *   symbolic link at all between the data directory and the file (`LinkInDataDir` otherwise).
 * - `removeInDataDir(dataDir, path)` (and `removeInDataDirSync`): the one way anything under the
 *   data directory is deleted (sync's sweep of temp files, `consents forget` through
 *   `removeStoredFile`, a copy's undo, the demo's outputs). It applies the rule of writes,
 *   `noLinksBelow` on the path's directory, before it deletes: a link at any level below the data
 *   directory refuses the deletion, so nothing on its other side is ever deleted; a link in the
 *   path's own place is removed itself (rm never follows the last part), never its target.
 */
import { closeSync, existsSync, lstatSync, openSync, realpathSync, rmdirSync, rmSync, writeSync } from 'node:fs';
import { readFile, rm, rmdir } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { LocalFileError } from '../errors';
import { openAtomicFile } from './atomic-file';
import { toLocalFileError } from './output-path';

export const DATA_DIR_MARKER = '.bankdata-data-dir';
const MARKER_TEXT =
  'This directory holds a bankdata database or its statement files. bankdata never writes an output over them.\n';

/** Writes the marker into `dir` when it is missing. Best effort: a directory that cannot take it is left as is. */
export function markDataDirectory(dir: string): void {
  const marker = join(dir, DATA_DIR_MARKER);
  if (existsSync(marker)) return;
  try {
    const fd = openSync(marker, 'wx', 0o600);
    try {
      writeSync(fd, MARKER_TEXT);
    } finally {
      closeSync(fd);
    }
  } catch {
    // EEXIST (written meanwhile), EACCES, EROFS: the marker is a help to the guard, never a condition to open.
  }
}

/** Whether `dir` holds the marker (it is a bankdata data directory). */
export function isDataDirectory(dir: string): boolean {
  try {
    return lstatSync(join(dir, DATA_DIR_MARKER)).isFile();
  } catch {
    return false;
  }
}

/** A path read from a database that is refused: it would leave the data directory (exit 7). */
export class RefusedStoredPath extends LocalFileError {
  constructor(
    readonly stored: string,
    readonly dataDir: string,
    readonly reason: string,
  ) {
    super(stored, reason, 'the row is refused; the file is not read, written or deleted');
    this.name = 'RefusedStoredPath';
  }
}

/** The real path of `path`, or null when it does not exist. */
function realOrNull(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

const inside = (root: string, path: string) => path === root || path.startsWith(root + sep);

/**
 * The absolute path of `stored` (a path read from a database, relative to the data directory),
 * after checking that it stays inside `dataDir` once every existing part's links are resolved.
 */
export function storedPathInDataDir(dataDir: string, stored: string): string {
  const parts = stored.split('/');
  if (stored === '' || stored.includes('\\') || stored.includes('\0') || stored.startsWith('/'))
    throw new RefusedStoredPath(stored, dataDir, 'is not a relative path in the data directory');
  if (parts.some((part) => part === '' || part === '.' || part === '..'))
    throw new RefusedStoredPath(stored, dataDir, 'climbs out of the data directory (.. or an empty part)');
  // The only files a database names are statement files, all under statements/ (statementFilePath
  // in src/sync/files.ts): a row naming the database, its side files, the marker or any other
  // file of the data directory is refused, so forget never deletes and a copy never writes it.
  if (parts[0] !== 'statements' || parts.length < 2)
    throw new RefusedStoredPath(stored, dataDir, 'is not under statements/, where the statement files are');
  const root = resolve(dataDir);
  const realRoot = realOrNull(root);
  const path = join(root, ...parts);
  if (realRoot === null) return path; // nothing exists yet: whatever is created is created inside
  let current = root;
  for (const part of parts) {
    current = join(current, part);
    let link;
    try {
      link = lstatSync(current);
    } catch {
      return path; // missing from here on: created below a checked part
    }
    if (!link.isSymbolicLink()) continue;
    const real = realOrNull(current);
    if (real === null || !inside(realRoot, real))
      throw new RefusedStoredPath(
        stored,
        dataDir,
        `leads out of the data directory ${root} through the symbolic link ${current}`,
      );
  }
  return path;
}

/**
 * A symbolic link between the data directory and a path written or deleted under it (exit 7):
 * statement files are never written, nor anything deleted, through a link.
 */
export class LinkInDataDir extends LocalFileError {
  constructor(
    /** The link itself. */
    readonly link: string,
    readonly dataDir: string,
  ) {
    super(
      link,
      'is a symbolic link inside the data directory; refused (statement files are never written or deleted through links)',
    );
    this.name = 'LinkInDataDir';
  }
}

/**
 * Throws LinkInDataDir when a directory between `dataDir` (exclusive) and `dir` (inclusive) is a
 * symbolic link, or LocalFileError when `dir` is outside `dataDir`: statement files that sync
 * writes never go through a link, and nothing is deleted through one (`removeInDataDir`).
 */
export function noLinksBelow(dataDir: string, dir: string): void {
  const rel = relative(dataDir, dir);
  if (climbs(rel)) throw new LocalFileError(dir, `is outside the data directory ${dataDir}`);
  let current = dataDir;
  for (const part of rel.split(sep).filter(Boolean)) {
    current = join(current, part);
    let stat;
    try {
      stat = lstatSync(current);
    } catch {
      return; // missing from here on: created owner-only by openAtomicFile
    }
    if (stat.isSymbolicLink()) throw new LinkInDataDir(current, dataDir);
  }
}

/** How `removeInDataDir` deletes: a file (default), an empty directory, or a whole tree. */
export interface RemoveOptions {
  /** A directory and all below it (`rm -r`; links inside are removed, never followed). */
  recursive?: boolean;
  /** An empty directory (`rmdir`); one that is not empty throws ENOTEMPTY. */
  directory?: boolean;
}

/** Whether `path` is strictly below `dataDir` (by name; links are `noLinksBelow`'s). */
function under(dataDir: string, path: string): boolean {
  const rel = relative(dataDir, path);
  return rel !== '' && !climbs(rel);
}

/** Whether a relative path leaves where it is relative to (`..`, `../x`, another drive). */
const climbs = (rel: string) => rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel);

/** The guard of a deletion: the path strictly inside `dataDir`, no link on the way to it. */
function guardRemoval(dataDir: string, path: string): void {
  if (!under(dataDir, path)) throw new LocalFileError(path, `is outside the data directory ${dataDir}; not deleted`);
  noLinksBelow(dataDir, dirname(resolve(path)));
}

/**
 * Deletes `path`, under `dataDir`, after the guard of writes (`noLinksBelow` on its directory):
 * throws LinkInDataDir, deleting nothing, when a part between the data directory and it is a
 * symbolic link. A missing path is no error.
 */
export async function removeInDataDir(dataDir: string, path: string, options: RemoveOptions = {}): Promise<void> {
  guardRemoval(dataDir, path);
  if (options.directory) await rmdir(path);
  else await rm(path, { force: true, recursive: options.recursive ?? false });
}

/** `removeInDataDir` at once (a stop signal's handler, a synchronous command step). */
export function removeInDataDirSync(dataDir: string, path: string, options: RemoveOptions = {}): void {
  guardRemoval(dataDir, path);
  if (options.directory) rmdirSync(path);
  else rmSync(path, { force: true, recursive: options.recursive ?? false });
}

/**
 * Deletes the file a database names (after `storedPathInDataDir`, through `removeInDataDir`); a
 * missing file is no error. A link on its way, even one that stays inside, refuses the row
 * (RefusedStoredPath): the file is not deleted.
 */
export async function removeStoredFile(dataDir: string, stored: string): Promise<void> {
  const path = storedPathInDataDir(dataDir, stored);
  try {
    await removeInDataDir(resolve(dataDir), path);
  } catch (error) {
    if (!(error instanceof LinkInDataDir)) throw error;
    throw new RefusedStoredPath(
      stored,
      dataDir,
      `passes ${error.link}, which is a symbolic link inside the data directory; files are never deleted through links`,
    );
  }
}

/** Reads the file a database names (after `storedPathInDataDir`). */
export async function readStoredFile(dataDir: string, stored: string): Promise<Buffer> {
  return readFile(storedPathInDataDir(dataDir, stored));
}

/**
 * Files a database names, written into a data directory as one undoable batch (a copy of a
 * database: the files go in before its rows commit). Each goes through `storedPathInDataDir`
 * and is written atomically (src/fs/atomic-file.ts); `undo` removes the files this batch
 * created and the directories it made, deepest first. A file that was there before is never
 * replaced: the same bytes are left as they are, other bytes are refused (RefusedStoredPath).
 */
export class StoredFilesBatch {
  private readonly createdFiles: string[] = [];
  private readonly createdDirs: string[] = [];

  constructor(readonly dataDir: string) {}

  async write(stored: string, content: Uint8Array): Promise<void> {
    const path = storedPathInDataDir(this.dataDir, stored);
    const missing: string[] = [];
    for (let dir = dirname(path); !existsSync(dir) && dirname(dir) !== dir; dir = dirname(dir)) missing.push(dir);
    const existed = existsSync(path);
    if (existed) {
      // A file already there (the live data directory of the database copied) is never replaced:
      // the same bytes need no write, other bytes are refused (the row keeps pointing at them).
      const before = await readFile(path);
      if (Buffer.compare(before, Buffer.from(content.buffer, content.byteOffset, content.byteLength)) === 0) return;
      throw new RefusedStoredPath(stored, this.dataDir, `already holds other bytes (${path}); it is never replaced`);
    }
    this.createdDirs.push(...missing);
    let file;
    try {
      file = await openAtomicFile(path);
    } catch (error) {
      throw toLocalFileError(path, error);
    }
    try {
      file.stream.end(content);
      await file.commit();
    } catch (error) {
      await file.abort();
      throw toLocalFileError(path, error);
    }
    if (!existed) this.createdFiles.push(path);
    markDataDirectory(this.dataDir);
  }

  undo(): Promise<void> {
    this.undoSync();
    return Promise.resolve();
  }

  /** `undo` at once: also for a stop signal's handler, which the process does not outlive. */
  undoSync(): void {
    for (const file of this.createdFiles.splice(0)) {
      try {
        removeInDataDirSync(this.dataDir, file);
      } catch (error) {
        // A link on its way (written through one that stays inside, or planted since): left as it is.
        if (!(error instanceof LinkInDataDir)) throw error;
      }
    }
    for (const dir of this.createdDirs.splice(0).sort((a, b) => b.length - a.length)) {
      try {
        // The data directory itself, or one above it, that this batch made: no part below to check.
        if (!under(this.dataDir, dir)) rmdirSync(dir);
        else removeInDataDirSync(this.dataDir, dir, { directory: true });
      } catch {
        // Not empty (another writer's file), gone, or behind a link: left as it is, as `undo` leaves it.
      }
    }
  }
}
