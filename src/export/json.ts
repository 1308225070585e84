/**
 * JSON (one array) and NDJSON (one object a line). Each object has the view's columns in
 * the view's order. Amounts stay the strings the view holds; integers (minor units, counts)
 * are written from the store's 64-bit integers (BigInt) without passing through a float; NULL is
 * null. Rows arrive in batches from the store (row-batches.ts).
 */
import type { RowBatches } from './row-batches';
import { itemAt } from '@bankdata/core/arrays';

const CHUNK_CHARS = 64 * 1024;

/** One SQLite value as JSON text. */
export function jsonValue(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'bigint':
      return value.toString();
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    default:
      // better-sqlite3 hands BLOBs over as Buffers; the views hold none.
      return Buffer.isBuffer(value) ? JSON.stringify(value.toString('base64')) : JSON.stringify(value);
  }
}

/** A function from a row (values in column order) to its JSON object text. */
export function jsonObjectWriter(columns: readonly string[]): (row: readonly unknown[]) => string {
  const keys = columns.map((c) => `${JSON.stringify(c)}:`);
  return (row) => {
    let text = '{';
    for (let i = 0; i < keys.length; i++) {
      if (i > 0) text += ',';
      text += itemAt(keys, i) + jsonValue(row[i]);
    }
    return text + '}';
  };
}

/** NDJSON: one object and `\n` per row; nothing at all for no rows. */
export async function* ndjsonChunks(columns: readonly string[], batches: RowBatches): AsyncGenerator<string> {
  const toObject = jsonObjectWriter(columns);
  let chunk = '';
  for await (const rows of batches) {
    for (const row of rows) {
      chunk += toObject(row) + '\n';
      if (chunk.length >= CHUNK_CHARS) {
        yield chunk;
        chunk = '';
      }
    }
  }
  if (chunk.length > 0) yield chunk;
}

/** JSON: one array, one object a line inside it, a final newline. `[]` for no rows. */
export async function* jsonChunks(columns: readonly string[], batches: RowBatches): AsyncGenerator<string> {
  const toObject = jsonObjectWriter(columns);
  let chunk = '[';
  let first = true;
  for await (const rows of batches) {
    for (const row of rows) {
      chunk += (first ? '\n' : ',\n') + toObject(row);
      first = false;
      if (chunk.length >= CHUNK_CHARS) {
        yield chunk;
        chunk = '';
      }
    }
  }
  yield chunk + (first ? ']\n' : '\n]\n');
}
