/**
 * One file written atomically, for statement files (sync) and exports (export): a temp file
 * beside the target (same directory, so the rename never crosses a file system), owner-only
 * (the bytes are financial data, like the database), fsync'd before it closes, renamed over the
 * final name, then the directory fsync'd so the rename survives a power cut. A failure removes
 * the temp file and never leaves a half file under the final name. Temp names end in
 * `.<host>-<pid>.<12 hex>.tmp` (writers.ts): sync's sweep of a killed run's leftovers removes
 * those whose writer is gone, never one a live process is writing.
 *
 * Files written one after another and made durable together (a batch of statement files) join an
 * `AtomicFileGroup`: each file's `commit` only closes its temp file, and `settle` fsyncs every
 * temp file, renames each into place and fsyncs each directory once. On ext4 the first fsync
 * commits the journal for all of the batch's files, so the rest cost little, and one directory
 * fsync covers every rename into it (docs/benchmarks.md "Sync backfill and nightly runs").
 *
 * `buildNewFile` is the same for a file another library writes by its path (a SQLite database
 * made by a copy or a backup): built under a temp name, then linked into place only if nothing
 * is there yet; a failure removes the temp file and its `-wal`, `-shm` and `-journal`.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, rmSync, type WriteStream } from 'node:fs';
import { link, mkdir, open, readdir, rename, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { finished } from 'node:stream/promises';
import { LocalFileError } from '../errors';
import { outputStream, toLocalFileError } from './output-path';
import { isTempSuffix, writerGone, writerMark } from './writers';

export interface AtomicFileOptions {
  /** `.<name>.<hex>.tmp` (hidden from a listing of the directory) instead of `<name>.<hex>.tmp`. */
  hiddenTemp?: boolean;
  /** Create missing directories owner-only (default; statement files). Exports pass false. */
  createDirectories?: boolean;
  /** Made durable and put in place by the group's `settle`, not by `commit`. */
  group?: AtomicFileGroup;
}

export interface AtomicFile {
  /** The temp file: write the bytes here (or pipe into it). */
  readonly stream: WriteStream;
  /**
   * Ends the stream if needed, waits for it to close (fsync'd), renames into place, fsyncs the
   * directory. In a group: waits for the temp file to close, and leaves the rest to `settle`.
   */
  commit(): Promise<void>;
  /** Removes the temp file (after a failure). Never touches the final name. */
  abort(): Promise<void>;
}

/** Opens the temp file beside `finalPath`; missing directories are created owner-only unless told not to. */
export async function openAtomicFile(finalPath: string, options: AtomicFileOptions = {}): Promise<AtomicFile> {
  // The rename would replace a FIFO, a device or the file behind /dev/stdout with a regular file
  // (src/fs/output-path.ts `outputStream`): whoever writes one writes it straight through.
  const inPlace = outputStream(finalPath);
  if (inPlace) throw new LocalFileError(finalPath, `is ${inPlace.what}; it is never replaced by a file`);
  const dir = dirname(finalPath);
  const create = options.createDirectories ?? true;
  if (create) await ensureDirectory(dir);
  const suffix = tempSuffix();
  const tempPath = options.hiddenTemp ? join(dir, `.${basename(finalPath)}.${suffix}`) : `${finalPath}.${suffix}`;
  const handle = await openTemp(tempPath, dir, create);
  // A stop signal nothing else listens for (an export's Ctrl-C) removes the temp file too.
  const forget = removeOnStop(tempPath, finalPath, undefined);
  const { group } = options;
  // flush: fsync before the descriptor closes; `finished` resolves only after that close. A
  // group's files are fsynced together by `settle`.
  const stream = createWriteStream(tempPath, { fd: handle, flush: !group });
  return {
    stream,
    async commit() {
      if (!stream.writableEnded) stream.end();
      await finished(stream);
      if (group) {
        group.add({ tempPath, finalPath, forget });
        return;
      }
      await rename(tempPath, finalPath);
      forget();
      await syncDirectory(dir);
    },
    async abort() {
      stream.destroy();
      // Wait for the descriptor to close, so the temp file is not (re)created after the rm.
      await finished(stream).catch(() => undefined);
      group?.remove(tempPath);
      await rm(tempPath, { force: true });
      forget();
    },
  };
}

/**
 * Files closed under temp names, to be made durable and put in place together. A file is in
 * place only once `settle` resolved: until then a crash leaves only temp files (swept by the next
 * run), and a failed `settle` or an `abort` removes every temp file not yet renamed.
 */
export class AtomicFileGroup {
  private pending: GroupedFile[] = [];

  /** How many files wait for `settle`. */
  get size(): number {
    return this.pending.length;
  }

  /** Called by a grouped file's `commit`, once its temp file is closed. */
  add(file: GroupedFile): void {
    this.pending.push(file);
  }

  /** Called by a grouped file's `abort`: the temp file is removed, not settled. */
  remove(tempPath: string): void {
    this.pending = this.pending.filter((f) => f.tempPath !== tempPath);
  }

  /**
   * Fsyncs every waiting temp file, then renames each into place, then fsyncs each directory
   * once: when it resolves, every file of the group is durable under its final name. Returns the
   * final paths, in the order the files were committed.
   */
  async settle(): Promise<string[]> {
    const files = this.pending;
    this.pending = [];
    try {
      for (const file of files) await fsyncFile(file.tempPath);
      for (const file of files) {
        await rename(file.tempPath, file.finalPath);
        file.forget();
      }
    } catch (error) {
      await removeTemps(files);
      throw error;
    }
    for (const dir of new Set(files.map((f) => dirname(f.finalPath)))) await syncDirectory(dir);
    return files.map((f) => f.finalPath);
  }

  /** Removes every waiting temp file (after a failure); nothing is put in place. */
  async abort(): Promise<void> {
    const files = this.pending;
    this.pending = [];
    await removeTemps(files);
  }
}

/** A grouped file closed under its temp name; `forget`: a stop signal no longer removes it. */
interface GroupedFile {
  tempPath: string;
  finalPath: string;
  forget: () => void;
}

async function removeTemps(files: readonly GroupedFile[]): Promise<void> {
  for (const file of files) {
    await rm(file.tempPath, { force: true });
    file.forget();
  }
}

/**
 * Directories this process made or found with `mkdir -p`, so a run of many statement files into
 * one directory pays for it once. Only a hint: a directory removed since (a copy undone, a test's
 * cleanup) makes the temp file's open fail with ENOENT, which drops the entry and makes it again.
 */
const knownDirectories = new Set<string>();

async function ensureDirectory(dir: string): Promise<void> {
  if (knownDirectories.has(dir)) return;
  await mkdir(dir, { recursive: true, mode: 0o700 });
  knownDirectories.add(dir);
}

/**
 * Opens the new temp file (`wx`, owner-only); a directory gone since it was made or cached is made
 * again, once. Several files of one directory may find it gone at once (a run's statement files
 * are fetched side by side): each makes it again (`mkdir -p`), not only the first to drop the entry.
 */
async function openTemp(tempPath: string, dir: string, create: boolean): Promise<FileHandle> {
  try {
    return await open(tempPath, 'wx', 0o600);
  } catch (error) {
    if (!create || (error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  knownDirectories.delete(dir);
  await ensureDirectory(dir);
  return open(tempPath, 'wx', 0o600);
}

/** `<host>-<pid>.<12 hex>.tmp`: this process's temp name after a final name (writers.ts). */
function tempSuffix(): string {
  return `${writerMark()}.${randomBytes(6).toString('hex')}.tmp`;
}

/** Removes the temp files (and SQLite side files) of `finalPath` whose writer is gone (writers.ts `writerGone`). */
async function removeLeftTemps(finalPath: string): Promise<void> {
  const dir = dirname(finalPath);
  const prefix = `${basename(finalPath)}.`;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  for (const name of names)
    if (name.startsWith(prefix) && isTempSuffix(name.slice(prefix.length - 1)) && writerGone(name))
      await rm(join(dir, name), { force: true });
}

/** fsync a directory so a rename survives a power cut (best effort where unsupported). */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } catch {
    // EINVAL/EISDIR on file systems without directory fsync: the rename itself is still atomic.
  } finally {
    await handle.close();
  }
}

/**
 * Builds a new file at `finalPath` that must not exist: `build` gets a temp path beside it
 * (`<final>.<host>-<pid>.<12 hex>.tmp`; a dead process's leftovers for that name removed first) and writes the whole file there (and closes it); the temp file is then
 * fsynced and linked to the final name, which fails if a file appeared there meanwhile (never
 * replaced), and removed. On any failure the temp file and its SQLite side files are removed and nothing is
 * left under the final name. `build` may return `{ keep: false }` to discard the file (nothing
 * worth keeping was made). With `replace`, a file already at `finalPath` (a file of this program's
 * own, as the copy before a migration) is replaced by a rename once the new one is whole, and
 * stays as it was when the build fails.
 */
async function fsyncFile(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Gives `temp` the name `to`: a link never replaces a file (EEXIST), where rename would; on a file
 * system without hard links, a rename once the name is checked to be free.
 */
async function linkNew(temp: string, to: string): Promise<void> {
  try {
    await link(temp, to);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw error;
    if (existsSync(to)) throw Object.assign(new Error(`${to} exists`), { code: 'EEXIST' });
    await rename(temp, to);
  }
}

export async function buildNewFile<T>(
  finalPath: string,
  build: (tempPath: string) => Promise<{ keep: boolean; value: T }>,
  options: {
    /**
     * Undoes, synchronously, what the build wrote beside the new file (a copy's statement files)
     * when a stop signal ends the process mid-build: the caller's own clean-up never runs then.
     */
    onStop?: () => void;
    /** Replace a file already at `finalPath` (renamed over it when whole) instead of refusing it. */
    replace?: boolean;
  } = {},
): Promise<T> {
  // A copy to the same name that a process left when it died (kill -9, a reboot mid-copy): its
  // temp file is the size of a database, and nothing else would ever remove it.
  await removeLeftTemps(finalPath);
  const tempPath = `${finalPath}.${tempSuffix()}`;
  const clean = async () => {
    for (const side of DATABASE_SIDES) await rm(tempPath + side, { force: true });
  };
  const forget = removeOnStop(tempPath, finalPath, options.onStop);
  try {
    const { keep, value } = await build(tempPath);
    if (keep) {
      await fsyncFile(tempPath).catch((error: unknown) => {
        throw toLocalFileError(finalPath, error);
      });
      await (options.replace ? rename(tempPath, finalPath) : linkNew(tempPath, finalPath)).catch((error: unknown) => {
        throw toLocalFileError(finalPath, error);
      });
      await syncDirectory(dirname(finalPath));
    }
    return value;
  } finally {
    forget();
    await clean();
  }
}

/** A SQLite database's file and the files beside it that SQLite may make. */
const DATABASE_SIDES = ['', '-wal', '-shm', '-journal'] as const;
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
/** Temp files being written in this process (databases built, and their builds' undo), removed if a stop signal ends it. */
const building = new Map<string, { finalPath: string; onStop: (() => void) | undefined }>();
let stopHandler: ((signal: NodeJS.Signals) => void) | null = null;
let handled: (typeof STOP_SIGNALS)[number][] = [];

/**
 * Removes `tempPath` (and its SQLite side files) if a stop signal (Ctrl-C, SIGTERM, a closed
 * terminal) would end the process while it is written: a database built (`db copy`, `db backup`;
 * their default is to end the process at once, which left a database-sized temp file behind) or
 * an atomic file (an export, which left a hidden temp file of financial data). The signals nothing
 * else in the process listens for are taken while one is written; on one, every temp file in
 * flight is removed and the signal raised again with its default action, so the process ends as
 * it would have (130 for Ctrl-C). Each build's `onStop` undoes what it wrote beside (a copy's
 * statement files). Signals a command listens for itself (a sync once its run has begun, the
 * scheduler) stay its own, and an ignored SIGHUP (`nohup`) stays ignored. Returns the function
 * that stops watching.
 */
function removeOnStop(tempPath: string, finalPath: string, onStop: (() => void) | undefined): () => void {
  building.set(tempPath, { finalPath, onStop });
  if (stopHandler === null) {
    const handler = (signal: NodeJS.Signals) => {
      // A listener added since (a sync's run, which stops by itself and cleans its own files):
      // the signal is its to handle, and the process does not end by it.
      if (process.listenerCount(signal) > 1) return;
      for (const [temp, build] of building) {
        for (const side of DATABASE_SIDES) rmSync(temp + side, { force: true });
        try {
          // Linked into place already (the signal came as the build ended): what it wrote beside
          // belongs to the new file now.
          if (!existsSync(build.finalPath)) build.onStop?.();
        } catch {
          // The process ends by the signal whatever is left, as after a kill -9.
        }
      }
      building.clear();
      stopListening();
      process.kill(process.pid, signal);
    };
    handled = STOP_SIGNALS.filter((signal) => process.listenerCount(signal) === 0);
    for (const signal of handled) process.on(signal, handler);
    stopHandler = handler;
  }
  return () => {
    building.delete(tempPath);
    if (building.size === 0) stopListening();
  };
}

function stopListening(): void {
  if (stopHandler === null) return;
  for (const signal of handled) process.removeListener(signal, stopHandler);
  stopHandler = null;
  handled = [];
}
