/**
 * Where an export's or a report's bytes go. A path is first checked by src/fs/output-path.ts, then written atomically (src/fs/atomic-file.ts): a hidden
 * owner-only temp file beside the target, fsync'd, then renamed over the final name; a failure
 * at any point removes the temp file and never leaves a half file under the final name. `-` is
 * stdout, which is never closed. Chunks are pulled only as fast as the destination drains
 * them (stream backpressure), so memory stays flat whatever the row count.
 */
import { resolve } from 'node:path';
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { openAtomicFile } from '../fs/atomic-file';
import { checkOutputPath, toLocalFileError } from '../fs/output-path';

export const STDOUT = '-';

export interface WrittenOutput {
  /** The absolute path written, or `-` for stdout. */
  path: string;
  bytes: number;
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
    return { path: STDOUT, bytes };
  }
  // The guard again, without the configuration (the CLI checked its --out with it already), for
  // callers that are not commands (the demo): never a SQLite database, a statement file, a
  // directory, a read-only file; a link's target is written, not the link.
  const finalPath = checkOutputPath(resolve(out));
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
  return { path: finalPath, bytes };
}
