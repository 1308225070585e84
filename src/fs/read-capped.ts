/**
 * A text file read with a byte ceiling (docs/security.md "Hostile input"): a device that never
 * ends (/dev/zero), a FIFO or a huge file stops at `maxBytes` with a usage error naming it,
 * instead of growing the process until it dies.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { UsageError } from '../errors';

export function readTextCapped(path: string, maxBytes: number, label: string): string {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    throw new UsageError(`${label} ${path}: cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    const chunk = Buffer.alloc(64 * 1024);
    for (;;) {
      let n: number;
      try {
        n = readSync(fd, chunk, 0, chunk.length, null);
      } catch (error) {
        throw new UsageError(`${label} ${path}: cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
      }
      if (n === 0) break;
      total += n;
      if (total > maxBytes) throw new UsageError(`${label} ${path}: larger than ${maxBytes} bytes; refused`);
      chunks.push(Buffer.from(chunk.subarray(0, n)));
    }
    return Buffer.concat(chunks).toString('utf8');
  } finally {
    closeSync(fd);
  }
}
