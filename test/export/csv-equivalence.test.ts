/**
 * csvChunks writes CSV with its own loop for speed (src/export/csv.ts); csv-stringify with
 * csvStringifyOptions is the reference. Both must give the same bytes for any rows: text with
 * quotes, commas, CR, LF and formula triggers, numbers, BigInts, NULL, booleans, Buffers, short
 * rows, either line ending, BOM or not, neutralisation on or off, across chunk boundaries.
 */
import fc from 'fast-check';
import { stringify } from 'csv-stringify/sync';
import { describe, expect, it } from 'vitest';
import { csvChunks, csvStringifyOptions, type CsvOptions } from '../../src/export/csv';

const COLUMNS = ['description', 'amount', 'amount_minor', 'merchant_name', 'status'];

const text = fc.string({
  unit: fc.constantFrom('a', 'Ō', ' ', ',', '"', '\r', '\n', '=', '+', '-', '@', '\t', '\uFF1D', "'", '1', '.'),
});
const cell = fc.oneof(
  text,
  fc.constantFrom('', '-142.50', '0.00', '=1+1', '-3', 'CITY POWER'),
  fc.bigInt({ min: -(10n ** 12n), max: 10n ** 12n }),
  fc.double({ noNaN: false }),
  fc.constant(null),
  fc.boolean(),
  fc.uint8Array({ maxLength: 6 }).map((bytes) => Buffer.from(bytes)),
);
const row = fc.array(cell, { minLength: COLUMNS.length - 2, maxLength: COLUMNS.length });
const options = fc.record({
  lineEnding: fc.constantFrom('crlf' as const, 'lf' as const),
  bom: fc.boolean(),
  neutralise: fc.boolean(),
});

const ours = (rows: unknown[][], o: CsvOptions) => [...csvChunks(COLUMNS, rows, o)].join('');
const reference = (rows: unknown[][], o: CsvOptions) => stringify(rows, csvStringifyOptions(COLUMNS, o));

describe('csvChunks writes the bytes csv-stringify writes', () => {
  it('for any rows and options', () => {
    fc.assert(
      fc.property(fc.array(row, { maxLength: 30 }), options, (rows, o) => {
        expect(ours(rows, o)).toBe(reference(rows, o));
      }),
      { numRuns: 500 },
    );
  });

  it('for no rows (the header alone) and for rows spanning many chunks', () => {
    const o: CsvOptions = { lineEnding: 'crlf', bom: true };
    expect(ours([], o)).toBe(reference([], o));
    const many = Array.from({ length: 5000 }, (_, i) => [
      `Café "${i}", Ōtautahi`,
      `-${i}.50`,
      BigInt(-i),
      i % 7 ? null : '=SUM(A1)',
      'Booked',
    ]);
    const chunks = [...csvChunks(COLUMNS, many, o)];
    expect(chunks.length).toBeGreaterThan(10);
    expect(chunks.join('')).toBe(reference(many, o));
  });
});
