/**
 * Xero and MYOB bank-statement CSV (docs/exports.md "Xero and MYOB"), CSV --no-neutralise, and
 * the warnings of exports partial by construction.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportDataset, type ExportFilters } from '../../src/export';
import { createFixtureStore, HOSTILE, type FixtureStore } from './fixture-store';

let fx: FixtureStore;
beforeAll(async () => {
  fx = await createFixtureStore();
});
afterAll(() => fx.cleanup());

async function exportAs(
  format: string,
  filters: ExportFilters,
  extra: { neutralise?: boolean; accountCodes?: Record<string, string> } = {},
) {
  const out = join(fx.dir, `${format}-${Math.random().toString(36).slice(2)}.csv`);
  const result = await exportDataset(fx.store, { dataset: 'transactions', format, out, filters, ...extra });
  const text = readFileSync(out, 'utf8');
  return { result, text, records: parse(text) };
}

const booked = () =>
  fx.store.sqlite
    .prepare(
      `SELECT booking_date, amount_text FROM v_transactions WHERE bank = 'PNZ' AND account_id = 'acc-0001' AND status = 'Booked' ORDER BY booking_date_time, transaction_id`,
    )
    .all() as { booking_date: string; amount_text: string }[];

describe('--format xero', () => {
  it("Xero's template columns; DD/MM/YYYY NZ booking dates; signed exact amounts; booked rows only; CRLF", async () => {
    const { text, records, result } = await exportAs('xero', { accountId: 'acc-0001', bank: 'PNZ' });
    const [header, ...rows] = records;
    expect(header).toEqual(['*Date', '*Amount', 'Payee', 'Description', 'Reference', 'Cheque Number']);
    const expected = booked();
    expect(result.rows).toBe(expected.length);
    expect(rows.map((r) => r[0])).toEqual(expected.map((e) => e.booking_date.split('-').reverse().join('/')));
    expect(rows.map((r) => r[1])).toEqual(expected.map((e) => e.amount_text));
    expect(text.split('\r\n')).toHaveLength(expected.length + 2);
    const power = rows.find((r) => r[1] === '-142.50')!;
    expect(power).toEqual(['03/03/2025', '-142.50', 'CITY POWER LTD', 'AP CITY POWER LTD POWER MAR25', 'MAR25', '']);
    const cafe = rows.find((r) => r[1] === '-18.90')!;
    expect(cafe[2]).toBe('Café & Bar <Ōtautahi> ☕');
    expect(cafe[3]).toBe('line one line two line three, with comma');
  });

  it('text cells are neutralised by default; --no-neutralise writes them exactly', async () => {
    const on = await exportAs('xero', { accountId: 'acc-0001', bank: 'PNZ' });
    const off = await exportAs('xero', { accountId: 'acc-0001', bank: 'PNZ' }, { neutralise: false });
    expect(on.records.map((r) => r[2])).toContain(`'${HOSTILE[0]}`);
    expect(off.records.map((r) => r[2])).toContain(HOSTILE[0]);
    expect(off.records.map((r) => r[2])).toContain('-2+3');
  });

  it('needs exactly one account', async () => {
    await expect(exportAs('xero', {})).rejects.toThrow(/--format xero needs exactly one --account ID/);
    await expect(exportAs('myob', { accountId: ['acc-0001', 'acc-card-77'], bank: 'PNZ' })).rejects.toThrow(
      /exactly one --account/,
    );
  });

  it('an account id held at two banks needs --bank, and one not at the bank named is refused: one bank per statement', async () => {
    for (const format of ['xero', 'myob']) {
      // acc-0001 is at PNZ and at ANZ: their rows were one statement, ANZ's first.
      await expect(exportAs(format, { accountId: 'acc-0001' })).rejects.toThrow(/exists at ANZ and PNZ/);
      await expect(exportAs(format, { accountId: 'acc-card-77', bank: 'ANZ' })).rejects.toThrow(
        /no account "acc-card-77" at ANZ/,
      );
    }
    const pnz = await exportAs('xero', { accountId: 'acc-0001', bank: 'PNZ' });
    expect(pnz.records.length - 1).toBe(booked().length);
  });
});

describe("categories.accountCodes: the account code of each row's category", () => {
  const one = { accountId: 'acc-0001', bank: 'PNZ' };
  const CODES = { utilities: '445', dining: '420', housing: '800' };
  /** Decides the power bill `utilities`, the café `dining`, one more row `groceries` (mapped to no code). */
  beforeAll(() => {
    const decide = fx.store.sqlite.prepare(
      `INSERT INTO transaction_categories (bank, account_id, transaction_id, category, payee, category_source, category_rule, decided_at)
       SELECT bank, account_id, transaction_id, ?, NULL, 'rule', 'test', '2026-01-01T00:00:00.000Z' FROM v_transactions
       WHERE bank = 'PNZ' AND account_id = 'acc-0001' AND status = 'Booked' AND amount_text = ?`,
    );
    expect(decide.run('utilities', '-142.50').changes).toBe(1);
    expect(decide.run('dining', '-18.90').changes).toBe(1);
    const other = booked().find((e) => !['-142.50', '-18.90'].includes(e.amount_text))!;
    expect(decide.run('groceries', other.amount_text).changes).toBeGreaterThan(0);
  });
  afterAll(() => {
    fx.store.sqlite.prepare(`DELETE FROM transaction_categories WHERE category_rule = 'test'`).run();
  });

  it('Xero without the mapping (absent or empty): the six columns, byte for byte as before; MYOB takes none either way', async () => {
    const absent = await exportAs('xero', one);
    const empty = await exportAs('xero', one, { accountCodes: {} });
    expect(empty.text).toBe(absent.text);
    expect(absent.text.startsWith('*Date,*Amount,Payee,Description,Reference,Cheque Number\r\n')).toBe(true);
    expect(absent.text).toContain('\r\n03/03/2025,-142.50,CITY POWER LTD,AP CITY POWER LTD POWER MAR25,MAR25,\r\n');
    expect(absent.records.every((r: string[]) => r.length === 6)).toBe(true);
    const myob = await exportAs('myob', one);
    expect((await exportAs('myob', one, { accountCodes: CODES })).text).toBe(myob.text);
  });

  it("Xero with the mapping: the precoded template's Account code (from the row's category) and Tax type (empty) columns", async () => {
    const plain = await exportAs('xero', one);
    const coded = await exportAs('xero', one, { accountCodes: CODES });
    const [header, ...rows] = coded.records;
    expect(header).toEqual([
      '*Date',
      '*Amount',
      'Payee',
      'Description',
      'Reference',
      'Cheque Number',
      'Account code',
      'Tax type',
    ]);
    expect(coded.text).toContain('\r\n03/03/2025,-142.50,CITY POWER LTD,AP CITY POWER LTD POWER MAR25,MAR25,,445,\r\n');
    expect(rows.find((r) => r[1] === '-18.90')!.slice(6)).toEqual(['420', '']);
    // Every other cell as without the mapping; a row whose category has no code (groceries, uncategorised) has none.
    expect(rows.map((r) => r.slice(0, 6))).toEqual(plain.records.slice(1));
    expect(
      rows
        .filter((r) => r[6] !== '')
        .map((r) => r[1])
        .sort(),
    ).toEqual(['-142.50', '-18.90']);
    expect(rows.every((r) => r[7] === '')).toBe(true);
  });
});

describe("Xero's Payee: the decided payee (v_transactions.payee) where the row has one", () => {
  const one = { accountId: 'acc-0001', bank: 'PNZ' };
  beforeAll(() => {
    // The power bill decided with a rule's payee; the café decided with no payee (NULL).
    const decide = fx.store.sqlite.prepare(
      `INSERT INTO transaction_categories (bank, account_id, transaction_id, category, payee, category_source, category_rule, decided_at)
       SELECT bank, account_id, transaction_id, 'utilities', ?, 'rule', 'payee-test', '2026-01-01T00:00:00.000Z' FROM v_transactions
       WHERE bank = 'PNZ' AND account_id = 'acc-0001' AND status = 'Booked' AND amount_text = ?`,
    );
    expect(decide.run('Mercury Energy', '-142.50').changes).toBe(1);
    expect(decide.run(null, '-18.90').changes).toBe(1);
  });
  afterAll(() => {
    fx.store.sqlite.prepare(`DELETE FROM transaction_categories WHERE category_rule = 'payee-test'`).run();
  });

  it('writes the decided payee; a row without one keeps the merchant / counterparty / narrative', async () => {
    const { records } = await exportAs('xero', one);
    const rows = records.slice(1);
    expect(rows.find((r) => r[1] === '-142.50')).toEqual([
      '03/03/2025',
      '-142.50',
      'Mercury Energy',
      'AP CITY POWER LTD POWER MAR25',
      'MAR25',
      '',
    ]);
    expect(rows.find((r) => r[1] === '-18.90')![2]).toBe('Café & Bar <Ōtautahi> ☕');
    // MYOB's description is unchanged by a decided payee (its payee is the statement's, as OFX's NAME).
    const myob = await exportAs('myob', one);
    expect(myob.records.find((r) => r[1] === '-142.50')![2]).toContain('CITY POWER LTD');
  });
});

describe('--format myob', () => {
  it('Date, Amount, Description; DD/MM/YYYY; signed exact amounts', async () => {
    const { records } = await exportAs('myob', { accountId: 'acc-0001', bank: 'PNZ' });
    const [header, ...rows] = records;
    expect(header).toEqual(['Date', 'Amount', 'Description']);
    expect(rows.map((r) => r[1])).toEqual(booked().map((e) => e.amount_text));
    expect(rows.find((r) => r[1] === '-142.50')).toEqual([
      '03/03/2025',
      '-142.50',
      'CITY POWER LTD AP CITY POWER LTD POWER MAR25',
    ]);
  });
});

describe('CSV --no-neutralise', () => {
  it('writes hostile text exactly (for programs); the default quotes it (for spreadsheets)', async () => {
    const out = join(fx.dir, 'plain.csv');
    await exportDataset(fx.store, {
      dataset: 'transactions',
      format: 'csv',
      out,
      neutralise: false,
      filters: { accountId: 'acc-0001', bank: 'PNZ' },
    });
    const [header, ...rows] = parse(readFileSync(out, 'utf8'));
    const description = header!.indexOf('description');
    expect(rows.map((r) => r[description])).toEqual(expect.arrayContaining([...HOSTILE.slice(0, 4)]));
    await expect(
      exportDataset(fx.store, { dataset: 'transactions', format: 'json', out, neutralise: false }),
    ).rejects.toThrow(/--no-neutralise applies to/);
  });
});

describe('exports partial by construction', () => {
  const consent = 'c0a8012e-7d3b-4f5e-9a61-2b9f4c1d8e70';
  it('no warning when the consent covers the dates and grants credits and debits', async () => {
    const { result } = await exportAs('csv', {
      accountId: 'acc-0001',
      bank: 'PNZ',
      from: '2025-01-01',
      to: '2025-03-01',
    });
    expect(result.warnings).toEqual([]);
  });

  it('warns when the requested dates start before the consent or end after it', async () => {
    const { result } = await exportAs('csv', {
      accountId: 'acc-0001',
      bank: 'PNZ',
      from: '2024-01-01',
      to: '2025-03-01',
    });
    expect(result.warnings).toEqual([
      `PNZ account acc-0001: its consent ${consent} starts on 2024-03-05, so nothing from 2024-01-01 to the day before can be in the export`,
    ]);
  });

  it('warns when the consent grants credits only', async () => {
    fx.store.sqlite
      .prepare(`UPDATE consents SET permissions = ? WHERE consent_id = ?`)
      .run('ReadAccountsDetail ReadTransactionsDetail ReadTransactionsCredits', consent);
    try {
      const { result } = await exportAs('csv', { accountId: 'acc-card-77', bank: 'PNZ' });
      expect(result.warnings).toEqual([
        `PNZ account acc-card-77: its consent ${consent} grants credits only (ReadTransactionsCredits), so the export holds no debits`,
      ]);
    } finally {
      fx.store.sqlite
        .prepare(`UPDATE consents SET permissions = ? WHERE consent_id = ?`)
        .run('ReadAccountsDetail ReadBalances ReadTransactionsDetail', consent);
    }
  });
});
