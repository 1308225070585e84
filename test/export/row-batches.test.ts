/**
 * The export streams rows in batches (src/export/row-batches.ts): the bytes must not depend on
 * where the batches break, for CSV (the header once, the BOM once), JSON and NDJSON.
 */
import { describe, expect, it } from 'vitest';
import { csvChunks } from '../../src/export/csv';
import { jsonChunks, ndjsonChunks } from '../../src/export/json';
import { csvBatchChunks, type Row } from '../../src/export/row-batches';

const columns = ['bank', 'amount', 'description', 'amount_minor'];
const rows: Row[] = Array.from({ length: 1300 }, (_, i) => [
  'PNZ',
  `-${i}.05`,
  i % 7 === 0 ? `=SUM(A${i})\r\n"q"` : `row ${i}, ü`,
  BigInt(i) * 100n,
]);

async function* inBatches(size: number): AsyncGenerator<Row[]> {
  for (let i = 0; i < rows.length; i += size) yield rows.slice(i, i + size);
}
async function* nothing(): AsyncGenerator<Row[]> {}

async function text(chunks: AsyncIterable<string>): Promise<string> {
  let out = '';
  for await (const chunk of chunks) out += chunk;
  return out;
}

describe('row batches', () => {
  it('CSV is byte for byte csv.ts over all rows at once, whatever the batch size (header and BOM once)', async () => {
    const options = { bom: true, lineEnding: 'crlf' as const, neutralise: true };
    const whole = [...csvChunks(columns, rows, options)].join('');
    for (const size of [1, 7, 512, 513, 1000, 5000])
      expect(await text(csvBatchChunks(columns, inBatches(size), options)), `batch ${size}`).toBe(whole);
    expect(whole.indexOf('bank,amount')).toBe(1);
    expect(whole.split('bank,amount').length).toBe(2);
  });

  it('no rows: the CSV header alone, JSON [] and NDJSON nothing', async () => {
    const options = { bom: false, lineEnding: 'lf' as const };
    expect(await text(csvBatchChunks(columns, nothing(), options))).toBe([...csvChunks(columns, [], options)].join(''));
    expect(await text(jsonChunks(columns, nothing()))).toBe('[]\n');
    expect(await text(ndjsonChunks(columns, nothing()))).toBe('');
  });

  it('JSON and NDJSON do not depend on the batch size; integers are written exactly', async () => {
    const json = await text(jsonChunks(columns, inBatches(1300)));
    const ndjson = await text(ndjsonChunks(columns, inBatches(1300)));
    expect(await text(jsonChunks(columns, inBatches(3)))).toBe(json);
    expect(await text(ndjsonChunks(columns, inBatches(3)))).toBe(ndjson);
    expect(JSON.parse(json)).toHaveLength(1300);
    expect(ndjson.split('\n')[2]).toBe('{"bank":"PNZ","amount":"-2.05","description":"row 2, ü","amount_minor":200}');
  });
});
