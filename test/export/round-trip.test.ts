import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATASET_SPECS, DATASETS, NUMERIC_COLUMNS } from '../../src/export/datasets';
import { exportDataset } from '../../src/export';
import { CARD, createFixtureStore, type FixtureStore } from './fixture-store';

let fx: FixtureStore;
beforeAll(async () => {
  fx = await createFixtureStore();
});
afterAll(() => fx.cleanup());

/**
 * A file's columns: the view's, in its order (PRAGMA table_info, independent of the export),
 * without the exact-text twins of version 0.2 (`amount_text`): files keep their 0.1 form.
 */
function viewColumns(view: string): string[] {
  const all = fx.store.sqlite
    .prepare(`PRAGMA table_info(${view})`)
    .all()
    .map((c) => (c as { name: string }).name);
  return all.filter((c) => !(c.endsWith('_text') && all.includes(c.slice(0, -5))));
}

/** The view's rows as a file holds them: `amount` is the exact text (`amount_text`), as in 0.1. */
function viewRows(dataset: (typeof DATASETS)[number]): Record<string, unknown>[] {
  const spec = DATASET_SPECS[dataset];
  const rows = fx.store.sqlite
    .prepare(`SELECT * FROM ${spec.view} ORDER BY ${spec.orderBy.join(', ')}`)
    .all() as Record<string, unknown>[];
  return rows.map((row) => {
    const file: Record<string, unknown> = {};
    for (const [column, value] of Object.entries(row)) {
      if (column.endsWith('_text') && column.slice(0, -5) in row) continue;
      file[column] = `${column}_text` in row ? row[`${column}_text`] : value;
    }
    return file;
  });
}

const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;

describe('round-trip: every dataset in every tabular format reads back as the view', () => {
  for (const dataset of DATASETS) {
    it(`${dataset}: every view has rows to compare`, () => {
      expect(viewRows(dataset).length).toBeGreaterThan(0);
    });

    it(`${dataset} as CSV: header is the view's columns in order; cells byte-exact (NULL empty, text formulas quoted)`, async () => {
      const out = join(fx.dir, `${dataset}.csv`);
      const result = await exportDataset(fx.store, { dataset, format: 'csv', out });
      const text = readFileSync(out, 'utf8');
      expect(result).toEqual({
        rows: viewRows(dataset).length,
        path: out,
        bytes: Buffer.byteLength(text),
        stdout: false,
        warnings: [],
      });
      const [header, ...records] = parse(text, { relax_column_count: false });
      const columns = viewColumns(DATASET_SPECS[dataset].view);
      expect(header).toEqual(columns);
      const expected = viewRows(dataset);
      expect(records).toHaveLength(expected.length);
      records.forEach((record, r) => {
        columns.forEach((column, c) => {
          const value = expected[r]![column];
          const cell = record[c];
          if (value === null) return expect(cell).toBe('');
          const exact = String(value);
          if (typeof value === 'string' && FORMULA_START.test(value) && !NUMERIC_COLUMNS.has(column)) {
            expect(cell).toBe(`'${exact}`);
          } else {
            expect(cell).toBe(exact);
          }
        });
      });
    });

    it(`${dataset} as JSON: one array of objects equal to the view rows, keys in view order`, async () => {
      const out = join(fx.dir, `${dataset}.json`);
      const result = await exportDataset(fx.store, { dataset, format: 'json', out });
      const parsed = JSON.parse(readFileSync(out, 'utf8')) as Record<string, unknown>[];
      expect(parsed).toEqual(viewRows(dataset));
      expect(result.rows).toBe(parsed.length);
      for (const row of parsed) expect(Object.keys(row)).toEqual(viewColumns(DATASET_SPECS[dataset].view));
    });

    it(`${dataset} as NDJSON: one object a line, equal to the view rows`, async () => {
      const out = join(fx.dir, `${dataset}.ndjson`);
      await exportDataset(fx.store, { dataset, format: 'ndjson', out });
      const lines = readFileSync(out, 'utf8').split('\n');
      expect(lines.pop()).toBe('');
      expect(lines.map((l) => JSON.parse(l))).toEqual(viewRows(dataset));
    });
  }

  it('JSON keeps amounts as the view strings and minor units as integers (no float on the way)', async () => {
    const out = join(fx.dir, 'types.ndjson');
    await exportDataset(fx.store, {
      dataset: 'transactions',
      format: 'ndjson',
      out,
      filters: { bank: 'PNZ', accountId: 'acc-0001' },
    });
    const text = readFileSync(out, 'utf8');
    expect(text).toContain('"amount":"-142.50","amount_minor":-14250,');
    expect(text).toContain('"amount":"-0.00125","amount_minor":null,');
    expect(text).toContain('"amount":"0","amount_minor":0,');
    expect(text).toContain('"value_date_time":null');
  });

  it('an export with no matching rows is a header-only CSV, `[]` JSON and empty NDJSON', async () => {
    // A bank and an account the database holds, but not together (a bank it does not hold is exit 2).
    const filters = { bank: 'ANZ', accountId: CARD };
    const csv = join(fx.dir, 'empty.csv');
    expect((await exportDataset(fx.store, { dataset: 'accounts', format: 'csv', out: csv, filters })).rows).toBe(0);
    expect(readFileSync(csv, 'utf8')).toBe(viewColumns('v_accounts').join(',') + '\r\n');
    const json = join(fx.dir, 'empty.json');
    await exportDataset(fx.store, { dataset: 'accounts', format: 'json', out: json, filters });
    expect(readFileSync(json, 'utf8')).toBe('[]\n');
    const nd = join(fx.dir, 'empty.ndjson');
    const result = await exportDataset(fx.store, { dataset: 'accounts', format: 'ndjson', out: nd, filters });
    expect(readFileSync(nd, 'utf8')).toBe('');
    expect(result.bytes).toBe(0);
  });
});
