/**
 * Statement files on disk: names we generate (never a server-provided id as a path), written
 * atomically (src/fs/atomic-file.ts: temp file, fsync, rename) with their SHA-256 and size.
 */
import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { dirname, join, posix } from 'node:path';
import { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { openAtomicFile, type AtomicFileGroup } from '../fs/atomic-file';
import { LinkInDataDir, markDataDirectory, noLinksBelow, removeInDataDir } from '../fs/data-dir';
import { writerGone } from '../fs/writers';
import { ownValue } from '@bankdata/core/own-value';

const EXTENSIONS: Record<string, string> = { 'application/pdf': 'pdf', 'text/csv': 'csv' };

/** The media type without parameters, lower case: `text/csv; charset=utf-8` → `text/csv`. */
export function mediaType(contentType: string): string {
  const semicolon = contentType.indexOf(';');
  return (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
}

export function extensionFor(contentType: string): string | null {
  const type = mediaType(contentType);
  // Own keys only: a bank's `constructor` or `__proto__` is no type we name files for.
  return ownValue(EXTENSIONS, type) ?? null;
}

function digest(value: string): string {
  return createHash('sha256').update(value).digest('hex').slice(0, 24);
}

/**
 * The path of a statement file relative to the data dir. Built only from hashes of the ids and
 * our own extension, so `../x` or `2025/02` in an id can never escape or nest directories.
 */
export function statementFilePath(bank: string, accountId: string, statementId: string, contentType: string): string {
  const ext = extensionFor(contentType);
  if (!ext) throw new RangeError(`unsupported statement file type: ${mediaType(contentType)}`);
  const safeBank = bank.replace(/[^A-Za-z0-9]/g, '_');
  return posix.join('statements', safeBank, digest(`${bank}\u0000${accountId}`), `${digest(statementId)}.${ext}`);
}

export interface AtomicFile {
  /** Where the bytes go while they arrive. */
  readonly stream: Writable;
  /**
   * fsync, rename into place; returns what was written. In a group: closes the temp file and
   * returns what was written; the group's `settle` puts it in place.
   */
  commit(): Promise<{ sha256: string; bytes: number }>;
  /** Removes the temp file (after a failure). Never touches the final name. */
  abort(): Promise<void>;
}

/**
 * Opens `<final>.<random>.tmp` beside the final path (src/fs/atomic-file.ts), hashing what
 * passes. Below `root` (the data directory) no symbolic link is followed: a link planted in
 * `statements/` must not send statement files elsewhere (docs/security.md "Local misuse"); the
 * root gets the marker of a bankdata data directory (src/fs/data-dir.ts). With a `group`, the file
 * is made durable and put in place with the group's others (src/fs/atomic-file.ts AtomicFileGroup).
 */
export async function createAtomicFile(finalPath: string, root?: string, group?: AtomicFileGroup): Promise<AtomicFile> {
  if (root !== undefined) noLinksBelow(root, dirname(finalPath));
  const file = await openAtomicFile(finalPath, group ? { group } : {});
  if (root !== undefined) markDataDirectory(root);
  const hash = createHash('sha256');
  let bytes = 0;
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      bytes += chunk.length;
      if (file.stream.write(chunk)) callback();
      else file.stream.once('drain', () => callback());
    },
    final(callback) {
      file.stream.end(callback);
    },
    destroy(error, callback) {
      file.stream.destroy();
      callback(error);
    },
  });
  return {
    stream,
    async commit() {
      if (!stream.writableFinished) {
        if (!stream.writableEnded) stream.end();
        await finished(stream);
      }
      await file.commit();
      return { sha256: hash.digest('hex'), bytes };
    },
    async abort() {
      stream.destroy();
      await file.abort();
    },
  };
}

export function resolveInDataDir(dataDir: string, relative: string): string {
  return join(dataDir, ...relative.split('/'));
}

/**
 * Removes temp files a killed run left behind under `<dataDir>/statements`: those whose writer is
 * gone (src/fs/writers.ts `writerGone`: it ran on this host and no longer exists). Never one a live
 * process is writing: on PostgreSQL a worker joining a run sweeps while the other workers write
 * theirs. Nothing is deleted through a symbolic link (docs/security.md): `statements` itself a
 * link skips the sweep, links further down are not entered, and each file is deleted through
 * src/fs/data-dir.ts `removeInDataDir`; each refusal is handed to `onRefused` (the run warns).
 * Returns how many were removed.
 */
export async function sweepTempFiles(
  dataDir: string,
  onRefused: (refusal: LinkInDataDir) => void = () => undefined,
): Promise<number> {
  const dir = join(dataDir, 'statements');
  const refused = (error: unknown) => {
    if (!(error instanceof LinkInDataDir)) throw error;
    onRefused(error);
  };
  try {
    noLinksBelow(dataDir, dir);
  } catch (error) {
    refused(error);
    return 0;
  }
  let removed = 0;
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true, recursive: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  for (const entry of entries) {
    if (entry.isFile() && writerGone(entry.name)) {
      try {
        await removeInDataDir(
          dataDir,
          join(entry.parentPath ?? (entry as unknown as { path: string }).path, entry.name),
        );
        removed += 1;
      } catch (error) {
        refused(error);
      }
    }
  }
  return removed;
}
