/**
 * Version 0.2 of the views (migrations/0006_natural_sql_views.sql; docs/data-model.md "Amounts in
 * SQL"): the queries an analyst types first give the right answers. `amount` is a number computed
 * from the exact text, `amount_text` keeps the bank's digits, exact totals come from amount_minor,
 * and each instant analysts group by has its NZ date beside it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nzDateOf } from '@bankdata/core/nz-time';
import { createFixtureStore, type FixtureStore } from '../export/fixture-store';

let fx: FixtureStore;
beforeAll(async () => {
  fx = await createFixtureStore();
});
afterAll(() => fx.cleanup());

const all = <T>(sql: string, ...params: unknown[]) => fx.store.sqlite.prepare(sql).all(...params) as T[];
const one = <T>(sql: string, ...params: unknown[]) => fx.store.sqlite.prepare(sql).get(...params) as T;

describe('v_transactions on SQLite: amounts are values', () => {
  const rows = () => all<{ amount_text: string }>('SELECT amount_text FROM v_transactions');

  it('amount > 1000 compares values (the 0.1 text column compared text: "5.00" > "1000")', () => {
    const expected = rows().filter((r) => Number(r.amount_text) > 1000).length;
    expect(expected).toBe(1);
    expect(one<{ n: number }>('SELECT count(*) AS n FROM v_transactions WHERE amount > 1000').n).toBe(expected);
    // The table keeps text: the same query on it is the 0.1 answer, which is wrong.
    expect(
      one<{ n: number }>('SELECT count(*) AS n FROM transactions WHERE removed_at IS NULL AND amount > 1000').n,
    ).toBeGreaterThan(expected);
  });

  it('max, min and ORDER BY act on numbers', () => {
    const values = rows().map((r) => Number(r.amount_text));
    expect(one('SELECT max(amount) AS max, min(amount) AS min FROM v_transactions')).toEqual({
      max: Math.max(...values),
      min: Math.min(...values),
    });
    expect(one('SELECT max(amount) AS max FROM v_transactions')).toEqual({ max: 2500 });
    const ordered = all<{ amount_text: string }>(
      'SELECT amount_text FROM v_transactions ORDER BY amount DESC, transaction_id',
    ).map((r) => Number(r.amount_text));
    expect(ordered).toEqual([...ordered].sort((a, b) => b - a));
  });

  it('amount is REAL, amount_text is the exact text the table keeps (sub-cent and zero included)', () => {
    const pairs = all<{ amount: number; amount_text: string; kind: string; stored: string }>(
      `SELECT v.amount, v.amount_text, typeof(v.amount) AS kind, t.amount AS stored
       FROM v_transactions v JOIN transactions t USING (bank, account_id, transaction_id)`,
    );
    expect(pairs.length).toBeGreaterThan(10);
    for (const p of pairs) {
      expect(p.kind).toBe('real');
      expect(p.amount_text).toBe(p.stored);
      expect(p.amount).toBe(Number(p.stored));
    }
    expect(pairs.map((p) => p.amount_text)).toEqual(expect.arrayContaining(['-0.00125', '0', '2500.00', '-18.9']));
  });

  it('balance_after is a number, balance_after_text the exact text; NULL stays NULL', () => {
    const rows = all<{ balance_after: number | null; balance_after_text: string | null }>(
      'SELECT balance_after, balance_after_text FROM v_transactions ORDER BY transaction_id',
    );
    expect(rows).toContainEqual({ balance_after: 2315.07, balance_after_text: '2315.07' });
    expect(rows.filter((r) => r.balance_after_text === null).every((r) => r.balance_after === null)).toBe(true);
  });

  it('an exact total: sum(amount_minor) per currency, and count(amount_minor) says which rows it leaves out', () => {
    const total = one<{ total: number; left_out: number }>(
      `SELECT sum(amount_minor) AS total, count(*) - count(amount_minor) AS left_out FROM v_transactions WHERE currency = 'NZD'`,
    );
    // Cents by hand from the exact text of the rows that have minor units.
    const cents = all<{ amount_text: string }>(
      `SELECT amount_text FROM v_transactions WHERE currency = 'NZD' AND amount_minor IS NOT NULL`,
    )
      .map((r) => {
        const [whole, frac = ''] = r.amount_text.replace('-', '').split('.');
        const n = Number(whole) * 100 + Number((frac + '00').slice(0, 2));
        return r.amount_text.startsWith('-') ? -n : n;
      })
      .reduce((a, b) => a + b, 0);
    expect(total.total).toBe(cents);
    expect(total.left_out).toBe(1); // -0.00125: below the cent
  });

  it('value_date is the NZ date of value_date_time (not the UTC date)', () => {
    const rows = all<{ value_date_time: string | null; value_date: string | null }>(
      'SELECT value_date_time, value_date FROM v_transactions',
    );
    expect(rows.some((r) => r.value_date_time !== null)).toBe(true);
    for (const r of rows) expect(r.value_date).toBe(r.value_date_time === null ? null : nzDateOf(r.value_date_time));
    // 2025-03-02T11:00:00.000Z is NZ midnight of 3 March; date() alone says 2 March.
    expect(
      one('SELECT value_date, date(value_date_time) AS utc FROM v_transactions WHERE value_date_time IS NOT NULL'),
    ).toEqual({
      value_date: '2025-03-03',
      utc: '2025-03-02',
    });
  });

  it('GROUP BY booking_date with exact daily totals', () => {
    const days = all<{ booking_date: string; n: number }>(
      `SELECT booking_date, count(*) AS n, sum(amount_minor) AS total FROM v_transactions GROUP BY booking_date ORDER BY booking_date`,
    );
    expect(days.reduce((a, d) => a + d.n, 0)).toBe(one<{ n: number }>('SELECT count(*) AS n FROM v_transactions').n);
  });
});

describe('v_balances, v_statements, v_payments on SQLite', () => {
  it('v_balances: amount is a number, amount_text exact, date the NZ date of date_time', () => {
    const rows = all<{ amount: number; amount_text: string; date_time: string; date: string; kind: string }>(
      'SELECT amount, amount_text, date_time, date, typeof(amount) AS kind FROM v_balances',
    );
    expect(rows.length).toBe(4);
    for (const r of rows) {
      expect(r.kind).toBe('real');
      expect(r.amount).toBe(Number(r.amount_text));
      expect(r.date).toBe(nzDateOf(r.date_time));
    }
    expect(one('SELECT count(*) AS n FROM v_balances WHERE amount > 2000')).toEqual({ n: 2 });
    expect(one('SELECT min(amount) AS min FROM v_balances')).toEqual({ min: -312.4 });
    // 2025-02-28T23:59:59+13:00 is 28 Feb in NZ, 28 Feb 10:59:59 UTC.
    expect(one(`SELECT date FROM v_balances WHERE type = 'ClosingBooked'`)).toEqual({ date: '2025-02-28' });
  });

  it('v_statements: start_date and end_date are the NZ dates of the period', () => {
    expect(all('SELECT statement_id, start_date, end_date FROM v_statements ORDER BY start_date')).toEqual([
      { statement_id: 'stmt-2025-01', start_date: '2025-01-01', end_date: '2025-01-31' },
      { statement_id: 'stmt-2025-02', start_date: '2025-02-01', end_date: '2025-02-28' },
    ]);
  });

  it('v_payments: amount is a number, amount_text and amount_minor exact, created_date the NZ date', () => {
    expect(
      one('SELECT amount, amount_text, amount_minor, created_date, typeof(amount) AS kind FROM v_payments'),
    ).toEqual({
      amount: 42.5,
      amount_text: '42.50',
      amount_minor: 4250,
      created_date: '2025-03-03',
      kind: 'real',
    });
    expect(one('SELECT count(*) AS n FROM v_payments WHERE amount > 40')).toEqual({ n: 1 });
  });

  it('every other view answers ORDER BY and GROUP BY on its columns', () => {
    expect(all('SELECT bank, count(*) AS n FROM v_accounts GROUP BY bank ORDER BY bank')).toEqual([
      { bank: 'ANZ', n: 1 },
      { bank: 'PNZ', n: 2 },
    ]);
    expect(one('SELECT sum(requests) AS requests FROM v_runs')).toEqual({ requests: 57 });
    expect(one('SELECT count(*) AS n FROM v_parties WHERE account_id IS NULL')).toEqual({ n: 1 });
    expect(one(`SELECT count(*) AS n FROM v_consents WHERE status = 'Authorised'`)).toEqual({ n: 2 });
    expect(one('SELECT count(*) AS n FROM v_payment_matches')).toEqual({ n: 1 });
  });
});
