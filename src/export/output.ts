/**
 * Where an export's bytes go. A path is written atomically: a temp file beside the target
 * (same directory, so the rename never crosses a file system), owner-only (exports hold
 * financial data, like the database), fsync'd, then renamed over the final name. A failure at
 * any point removes the temp file and never leaves a half file under the final name. `-` is
 * stdout, which is never closed. Chunks are pulled only as fast as the destination drains
 * them (stream backpressure), so memory stays flat whatever the row count.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export const STDOUT = '-';

export interface WrittenOutput {
  /** The absolute path written, or `-` for stdout. */
  path: string;
  bytes: number;
}

type Chunks = Iterable<string> | AsyncIterable<string>;

/** Writes the chunks to `out` (a path or `-`); resolves once they are durable. */
export async function writeOutput(out: string, chunks: Chunks, stdout: Writable = process.stdout): Promise<WrittenOutput> {
  let bytes = 0;
  const counted = async function* () {
    for await (const chunk of chunks) {
      bytes += Buffer.byteLength(chunk);
      yield chunk;
    }
  };
  if (out === STDOUT) {
    await pipeline(Readable.from(counted()), stdout, { end: false });
    return { path: STDOUT, bytes };
  }
  const finalPath = resolve(out);
  const dir = dirname(finalPath);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const tempPath = join(dir, `.${basename(finalPath)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    // flush: fsync before the descriptor closes; pipeline resolves only after that close.
    await pipeline(Readable.from(counted()), createWriteStream(tempPath, { flags: 'wx', mode: 0o600, flush: true }));
    await rename(tempPath, finalPath);
  } catch (error) {
    await rm(tempPath, { force: true });
    throw error;
  }
  await syncDirectory(dir);
  return { path: finalPath, bytes };
}

/** fsync the directory so the rename survives a power cut; some file systems refuse it. */
async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } catch {
    // EINVAL/EISDIR on file systems without directory fsync: the rename is still atomic.
  } finally {
    await handle.close();
  }
}
