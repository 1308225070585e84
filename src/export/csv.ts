/**
 * CSV per RFC 4180 through csv-stringify: a header row of the view's columns, UTF-8, CRLF
 * line endings by default (spreadsheets) or LF, an optional BOM for Excel. Text cells are
 * neutralised against formula injection; numeric columns are written exactly. NULL is an
 * empty cell. Rows are stringified in batches so the output is a few large chunks, not one
 * tiny write per row.
 */
import { stringify, type Options } from 'csv-stringify/sync';
import { NUMERIC_COLUMNS } from './datasets';
import { neutraliseNumericText, neutraliseText } from './neutralise';

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

const BATCH_ROWS = 512;

export function csvStringifyOptions(columns: readonly string[], options: CsvOptions): Options {
  const numericColumns = options.numericColumns ?? NUMERIC_COLUMNS;
  const numeric = columns.map((c) => numericColumns.has(c));
  const neutralise = options.neutralise ?? true;
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
      string: (value, context) =>
        context.header || !neutralise ? value : numeric[context.index] ? neutraliseNumericText(value) : neutraliseText(value),
      // better-sqlite3 hands BLOBs over as Buffers; the views hold none, but never print [object].
      object: (value) => (Buffer.isBuffer(value) ? value.toString('base64') : JSON.stringify(value)),
    },
  };
}

/** CSV text for the rows, in chunks of a few hundred rows; the header comes first. */
export function* csvChunks(
  columns: readonly string[],
  rows: Iterable<readonly unknown[]>,
  options: CsvOptions,
): Generator<string> {
  const first = csvStringifyOptions(columns, options);
  const rest: Options = { ...first, header: false, bom: false };
  let batch: (readonly unknown[])[] = [];
  let started = false;
  for (const row of rows) {
    batch.push(row);
    if (batch.length === BATCH_ROWS) {
      yield stringify(batch, started ? rest : first);
      started = true;
      batch = [];
    }
  }
  if (batch.length > 0 || !started) yield stringify(batch, started ? rest : first);
}
