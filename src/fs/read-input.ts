/**
 * The one way the CLI reads a file a user hands it (docs/security.md "Hostile input"): the
 * configuration files, a secret file (BANKDATA_*_SECRET_FILE) and `consents add --from-file`.
 * Every read has a byte ceiling (a device that never ends (/dev/zero), a FIFO or a huge file
 * stops there), and JSON is parsed only once a scan without recursion has found its nesting within
 * `MAX_JSON_DEPTH`: a file of 100 000 nested objects is a usage error naming the file (exit 2),
 * never a stack overflow in the code that walks the parsed value (an internal error, exit 70).
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { UsageError } from '../errors';

/** Deeper than any file the CLI reads (a configuration file is three levels deep). */
export const MAX_JSON_DEPTH = 64;

export interface InputLimits {
  /** The byte ceiling: a larger file is refused while it is read, before it is parsed. */
  maxBytes: number;
}

/**
 * The text of `path`, refused (UsageError, exit 2) when it cannot be read or is over
 * `maxBytes`; the message names `label` and the path.
 */
export function readInputText(path: string, label: string, limits: InputLimits): string {
  return readTextCapped(path, limits.maxBytes, label);
}

/**
 * The deepest nesting of arrays and objects in JSON text, or `limit + 1` as soon as it passes
 * `limit`: one pass, a counter and no stack, so no text can make the scan itself overflow.
 * Brackets inside strings are skipped; the text need not be valid JSON (the parser judges that).
 */
export function jsonDepth(text: string, limit: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      depth++;
      if (depth > deepest) deepest = depth;
      if (deepest > limit) return limit + 1;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) depth--;
  }
  return deepest;
}

/**
 * JSON text parsed once its nesting is known to be at most `maxDepth`; a deeper text is refused
 * (UsageError) naming `label`. A text that is not JSON throws `notJson()` (its caller's message:
 * V8's quotes the text around the fault, which may be a secret).
 */
export function parseInputJson(
  text: string,
  label: string,
  notJson: () => Error,
  maxDepth: number = MAX_JSON_DEPTH,
): unknown {
  if (jsonDepth(text, maxDepth) > maxDepth) {
    throw new UsageError(
      `${label}: nested deeper than ${maxDepth} levels; refused`,
      'the file is not what bankdata reads here; check its contents',
    );
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw notJson();
  }
}

/** `readInputText` then `parseInputJson`: a JSON file a user hands the CLI, both limits applied. */
export function readInputJson(path: string, label: string, limits: InputLimits, notJson: () => Error): unknown {
  return parseInputJson(readInputText(path, label, limits), `${label} ${path}`, notJson);
}

/** Reads `path` in chunks, refusing it as soon as it passes `maxBytes`. */
function readTextCapped(path: string, maxBytes: number, label: string): string {
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
