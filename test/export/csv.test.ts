import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvChunks } from '../../src/export/csv';
import { exportDataset } from '../../src/export';
import { neutraliseText } from '../../src/export/neutralise';
import { createFixtureStore, HOSTILE, type FixtureStore } from './fixture-store';

let fx: FixtureStore;
beforeAll(async () => {
  fx = await createFixtureStore();
});
afterAll(() => fx.cleanup());

const csv = (columns: string[], rows: unknown[][], lineEnding: 'crlf' | 'lf' = 'crlf', bom = false) =>
  [...csvChunks(columns, rows, { lineEnding, bom })].join('');

async function exportCsv(
  name: string,
  options: { excel?: boolean; lineEnding?: 'crlf' | 'lf'; filters?: Record<string, string> } = {},
) {
  const out = join(fx.dir, name);
  await exportDataset(fx.store, { dataset: 'transactions', format: 'csv', out, ...options });
  return readFileSync(out);
}

describe('CSV formula-injection neutralisation (OWASP CSV Injection)', () => {
  it.each(HOSTILE)(
    'a description starting %j gets a leading single quote and reads back intact after it',
    (hostile) => {
      const text = csv(['description', 'amount'], [[hostile, '-5.00']]);
      const [, record] = parse(text);
      expect(record).toEqual([`'${hostile}`, '-5.00']);
    },
  );

  it('hostile descriptions and merchant names exported from the store are all neutralised', async () => {
    const records = parse<Record<string, string>>(await exportCsv('hostile.csv'), { columns: true });
    const hostileRows = records.filter((r) => r.transaction_id!.startsWith('txn-hostile-'));
    expect(hostileRows.map((r) => r.description)).toEqual(HOSTILE.map((h) => `'${h}`));
    expect(hostileRows.map((r) => r.merchant_name)).toEqual(HOSTILE.map((h) => `'${h}`));
    // No text cell of the whole file starts with a trigger character.
    for (const r of records) {
      for (const [column, value] of Object.entries(r)) {
        if (['amount', 'amount_minor', 'balance_after'].includes(column)) continue;
        expect(value, `${column} of ${r.transaction_id}`).not.toMatch(/^[=+\-@\t\r]/);
      }
    }
  });

  it('negative amounts, minor units and balances stay exact: no quote, sign kept', async () => {
    const records = parse<Record<string, string>>(await exportCsv('negative.csv'), { columns: true });
    const power = records.find((r) => r.transaction_id === 'txn-20250303-0001')!;
    expect([power.amount, power.amount_minor, power.balance_after]).toEqual(['-142.50', '-14250', '2315.07']);
    const fee = records.find((r) => r.transaction_id === 'txn-20250228-0003')!;
    expect([fee.amount, fee.amount_minor]).toEqual(['-0.00125', '']);
    const debits = records.filter((r) => r.credit_debit_indicator === 'Debit');
    expect(debits.length).toBeGreaterThan(3);
    for (const r of debits) expect(r.amount).toMatch(/^-\d+(\.\d+)?$/);
  });

  it('a non-number in a numeric column is still neutralised (no way around through a column name)', () => {
    const [, record] = parse(csv(['amount', 'days_to_expiry'], [['=1+1', -3n]]));
    expect(record).toEqual(["'=1+1", '-3']);
  });

  it('full-width formula characters are neutralised too; ordinary and empty text is untouched', () => {
    expect(neutraliseText('\uFF1D1+1')).toBe("'\uFF1D1+1");
    expect(neutraliseText('CITY POWER')).toBe('CITY POWER');
    expect(neutraliseText('')).toBe('');
    expect(neutraliseText("'already")).toBe("'already");
  });
});

describe('CSV framing (RFC 4180)', () => {
  it('ends every record with CRLF by default, header included', async () => {
    const text = (await exportCsv('crlf.csv', { filters: { accountId: 'acc-card-77' } })).toString('utf8');
    expect(text).toMatch(/^consent_id,bank,account_id,[a-z_,]+\r\n/);
    expect(text.endsWith('\r\n')).toBe(true);
    expect(text.split('\r\n')).toHaveLength(3); // header, one row, the empty rest
  });

  it('--lf ends records with LF only', async () => {
    const text = (await exportCsv('lf.csv', { lineEnding: 'lf', filters: { accountId: 'acc-card-77' } })).toString(
      'utf8',
    );
    expect(text).not.toContain('\r');
    expect(text.split('\n')).toHaveLength(3);
  });

  it('quotes a field holding a bare LF, CR, comma or quote, so it stays one record under either line ending', () => {
    for (const lineEnding of ['crlf', 'lf'] as const) {
      for (const value of ['a\nb', 'a\rb', 'a\r\nb', 'a,b', 'a "b"']) {
        const text = csv(['description'], [[value]], lineEnding);
        expect(text).toContain(`"${value.replace(/"/g, '""')}"`);
        expect(parse(text)).toEqual([['description'], [value]]);
      }
    }
  });

  it('--excel starts the file with the UTF-8 BOM, written once; without it there is none', async () => {
    const excel = await exportCsv('excel.csv', { excel: true });
    expect([...excel.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(excel.indexOf(Buffer.from([0xef, 0xbb, 0xbf]), 3)).toBe(-1);
    const plain = await exportCsv('plain.csv');
    expect(plain[0]).toBe('c'.charCodeAt(0));
    expect(excel.subarray(3).equals(plain)).toBe(true);
  });

  it('writes non-ASCII text as UTF-8 bytes', async () => {
    const text = (await exportCsv('utf8.csv')).toString('utf8');
    expect(text).toContain('Café & Bar <Ōtautahi> ☕');
  });

  it('one header and no duplicate rows across batch boundaries (1,100 rows)', () => {
    const rows = Array.from({ length: 1100 }, (_, i) => [`t-${i}`, `-${i}.00`]);
    const parsed = parse(csv(['transaction_id', 'amount'], rows));
    expect(parsed).toHaveLength(1101);
    expect(parsed.slice(1)).toEqual(rows);
  });
});
