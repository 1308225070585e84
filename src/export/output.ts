/**
 * Where an export's or a report's bytes go. A path is first checked by src/fs/output-path.ts, then written atomically (src/fs/atomic-file.ts): a hidden
 * owner-only temp file beside the target, fsync'd, then renamed over the final name; a failure
 * at any point removes the temp file and never leaves a half file under the final name. `-` is
 * stdout, which is never closed. A stream (a FIFO, a device, /dev/stdout, /dev/fd/N:
 * output-path.ts `outputStream`) is written straight through as `-` is, never replaced
 * (docs/exports.md "Output"). Chunks are pulled only as fast as the destination drains
 * them (stream backpressure), so memory stays flat whatever the row count.
 */
import { constants, createWriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { openAtomicFile } from '../fs/atomic-file';
import { checkOutputPath, outputStream, toLocalFileError, type OutputStream } from '../fs/output-path';

export const STDOUT = '-';

export interface WrittenOutput {
  /** The absolute path written, or `-` for stdout. */
  path: string;
  bytes: number;
  /** The bytes went to this process's stdout (`-`, or a name for it such as /dev/stdout). */
  stdout: boolean;
}

type Chunks = Iterable<string> | AsyncIterable<string>;

/**
 * The chunks as a stream that reads one chunk ahead at most: Readable.from's default (16
 * objects) would pull a megabyte of CSV out of SQLite before the file asks for it, memory
 * that only holds bytes waiting for the disk.
 */
const oneAhead = (chunks: AsyncIterable<string>) => Readable.from(chunks, { objectMode: true, highWaterMark: 1 });

/** Writes the chunks to `out` (a path or `-`); resolves once they are durable. */
export async function writeOutput(
  out: string,
  chunks: Chunks,
  stdout: Writable = process.stdout,
): Promise<WrittenOutput> {
  let bytes = 0;
  const counted = async function* () {
    for await (const chunk of chunks) {
      bytes += Buffer.byteLength(chunk);
      yield chunk;
    }
  };
  if (out === STDOUT) {
    await pipeline(oneAhead(counted()), stdout, { end: false });
    return { path: STDOUT, bytes, stdout: true };
  }
  // The guard again, without the configuration (the CLI checked its --out with it already), for
  // callers that are not commands (the demo): never a SQLite database, a statement file, a
  // directory, a read-only file; a link's target is written, not the link; a stream as it is.
  const finalPath = checkOutputPath(resolve(out), { streams: true });
  const stream = outputStream(finalPath);
  if (stream) {
    await writeStream(finalPath, stream, oneAhead(counted()), stdout);
    return { path: finalPath, bytes, stdout: stream.fd === 1 };
  }
  let file;
  try {
    file = await openAtomicFile(finalPath, { hiddenTemp: true, createDirectories: false });
  } catch (error) {
    throw toLocalFileError(finalPath, error);
  }
  try {
    await pipeline(oneAhead(counted()), file.stream);
    await file.commit();
  } catch (error) {
    await file.abort();
    throw toLocalFileError(finalPath, error);
  }
  return { path: finalPath, bytes, stdout: false };
}

/**
 * Writes into a stream, never closing this process's stdout or stderr: one opened by its path is
 * opened for appending, without creating anything (a file behind /proc/PID/fd/N keeps what it
 * held, as `>>` would; a FIFO waits for its reader, as `cat > FIFO` does).
 */
async function writeStream(path: string, stream: OutputStream, chunks: Readable, stdout: Writable): Promise<void> {
  try {
    if (stream.fd !== null) {
      await pipeline(chunks, stream.fd === 1 ? stdout : process.stderr, { end: false });
      return;
    }
    const handle = await open(path, constants.O_WRONLY | constants.O_APPEND | constants.O_NOCTTY);
    await pipeline(chunks, createWriteStream('', { fd: handle }));
  } catch (error) {
    throw toLocalFileError(path, error);
  }
}
