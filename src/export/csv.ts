/**
 * CSV per RFC 4180: a header row of the view's columns, UTF-8, CRLF line endings by default
 * (spreadsheets) or LF, an optional BOM for Excel. Text cells are neutralised against formula
 * injection; numeric columns are written exactly. NULL is an empty cell.
 *
 * The bytes are those of csv-stringify with `csvStringifyOptions` (test/export/csv-equivalence
 * .test.ts holds the two to the same output on generated rows), but written by a small loop
 * here: csv-stringify builds a context object, two tuples and a few closures per cell, and on an
 * export of millions of cells that work and its garbage set the export's speed and peak memory
 * (docs/benchmarks.md "Export" holds the export to both). The rules it follows, for the options
 * used: a cell holding `,`, `"`, CR or LF is quoted with its quotes doubled; the empty string
 * and NULL are an empty cell; integers (BigInt) and numbers as `String()` does; booleans `1`
 * or empty; a Buffer as base64, another object as JSON. Rows are joined into chunks of about
 * 16 KiB, so the writer sees one write per fifty-odd rows, not one per row.
 */
import type { Options } from 'csv-stringify/sync';
import { NUMERIC_COLUMNS } from './datasets';
import { neutraliseNumericText, neutraliseText } from './neutralise';
import { itemAt } from '@bankdata/core/arrays';

export interface CsvOptions {
  /** CRLF (RFC 4180, spreadsheets) unless `lf`. */
  lineEnding: 'crlf' | 'lf';
  /** Prepend the UTF-8 byte order mark, so Excel opens the file as UTF-8. */
  bom: boolean;
  /**
   * Formula neutralisation of text cells (default on). Off (`--no-neutralise`) for consumers
   * that are not spreadsheets, which would otherwise keep the leading `'` (docs/exports.md "CSV").
   */
  neutralise?: boolean;
  /** Columns written exactly (money, counts); NUMERIC_COLUMNS unless given. */
  numericColumns?: ReadonlySet<string>;
}

/** Characters in a chunk (UTF-16 units) after which it goes to the writer: a file stream's buffer (16 KiB). */
const CHUNK_CHARS = 16 * 1024;

/** How a column's text cells are written: as they are, neutralised as text, or as a number. */
const enum CellKind {
  Plain,
  Text,
  Numeric,
}

/** A cell csv-stringify would quote, given `,` `"` and either line ending (quote_record_delimiter). */
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * The same CSV through csv-stringify (sync or stream API): the reference the loop below is
 * tested against, for a caller that wants csv-stringify itself.
 */
export function csvStringifyOptions(columns: readonly string[], options: CsvOptions): Options {
  const kinds = cellKinds(columns, options);
  return {
    columns: [...columns],
    header: true,
    bom: options.bom,
    record_delimiter: options.lineEnding === 'crlf' ? 'windows' : 'unix',
    // Quote any field holding CR or LF, not only the chosen delimiter: a bare LF inside a
    // description must not split the record for a reader that accepts both endings.
    quote_record_delimiter: true,
    cast: {
      // Header cells are our own column names; data cells are neutralised by column kind.
      string: (value, context) => (context.header ? value : textCell(value, kinds[context.index] ?? CellKind.Plain)),
      // better-sqlite3 hands BLOBs over as Buffers; the views hold none, but never print [object].
      object: objectCell,
    },
  };
}

/** CSV text for the rows, in chunks of about 16 KiB; the header (and BOM) come first. */
export function* csvChunks(
  columns: readonly string[],
  rows: Iterable<readonly unknown[]>,
  options: CsvOptions,
): Generator<string> {
  const kinds = cellKinds(columns, options);
  const eol = options.lineEnding === 'crlf' ? '\r\n' : '\n';
  let chunk = (options.bom ? '\uFEFF' : '') + columns.map((c) => quoted(c)).join(',') + eol;
  const width = columns.length;
  for (const row of rows) {
    // csv-stringify writes min(row, columns) cells of an array row.
    const cells = row.length < width ? row.length : width;
    let line = '';
    for (let i = 0; i < cells; i++) {
      if (i > 0) line += ',';
      line += cell(row[i], itemAt(kinds, i));
    }
    chunk += line + eol;
    if (chunk.length >= CHUNK_CHARS) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk.length > 0) yield chunk;
}

function cellKinds(columns: readonly string[], options: CsvOptions): CellKind[] {
  if (!(options.neutralise ?? true)) return columns.map(() => CellKind.Plain);
  const numeric = options.numericColumns ?? NUMERIC_COLUMNS;
  return columns.map((c) => (numeric.has(c) ? CellKind.Numeric : CellKind.Text));
}

function cell(value: unknown, kind: CellKind): string {
  switch (typeof value) {
    case 'string':
      return quoted(textCell(value, kind));
    case 'bigint':
    case 'number':
      return quoted(String(value));
    case 'boolean':
      return value ? '1' : '';
    case 'object':
      if (value === null) return '';
      return quoted(value instanceof Date ? String(value.getTime()) : objectCell(value));
    default:
      return '';
  }
}

function textCell(value: string, kind: CellKind): string {
  if (kind === CellKind.Text) return neutraliseText(value);
  return kind === CellKind.Numeric ? neutraliseNumericText(value) : value;
}

function objectCell(value: object): string {
  return Buffer.isBuffer(value) ? value.toString('base64') : JSON.stringify(value);
}

function quoted(text: string): string {
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}
