/**
 * Rows as the store streams them (src/store/view-reads.ts): batches of arrays in file-column
 * order, pulled one batch at a time, so a million rows never sit in memory. CSV text for such a
 * stream is csv.ts's, batch by batch, with its header once.
 */
import { csvChunks, type CsvOptions } from './csv';

export type Row = readonly unknown[];
export type RowBatches = AsyncIterable<readonly Row[]>;

/** The batches, each row counted as it passes (the export's row count). */
export async function* countedBatches(batches: RowBatches, counter: { rows: number }): AsyncGenerator<readonly Row[]> {
  for await (const batch of batches) {
    counter.rows += batch.length;
    yield batch;
  }
}

/** Each batch's rows through `map`. */
export async function* mapBatches<T>(batches: RowBatches, map: (row: Row) => T): AsyncGenerator<T[]> {
  for await (const batch of batches) yield batch.map(map);
}

/**
 * csvChunks over a stream of batches: the first non-empty batch is written with the header (and
 * the BOM when asked), every later one with the header's text taken off its front; no rows at all
 * is the header alone, as csvChunks writes it.
 */
export async function* csvBatchChunks(
  columns: readonly string[],
  batches: AsyncIterable<readonly Row[]>,
  options: CsvOptions,
): AsyncGenerator<string> {
  const later: CsvOptions = { ...options, bom: false };
  const header = [...csvChunks(columns, [], later)].join('');
  let first = true;
  for await (const batch of batches) {
    if (batch.length === 0) continue;
    let skip = first ? 0 : header.length;
    for (const chunk of csvChunks(columns, batch, first ? options : later)) {
      if (skip === 0) {
        yield chunk;
        continue;
      }
      const cut = Math.min(skip, chunk.length);
      if (chunk.slice(0, cut) !== header.slice(header.length - skip, header.length - skip + cut)) {
        throw new Error('csvChunks did not start a batch with its header');
      }
      skip -= cut;
      if (cut < chunk.length) yield chunk.slice(cut);
    }
    first = false;
  }
  if (first) yield* csvChunks(columns, [], options);
}
