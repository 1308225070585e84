import { describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import type { Statement } from '@bankdata/core/schemas';
import { START, accountsOf, ms, rowUnits, sandboxWorld, signedUnits } from './world-fixtures';

const world = sandboxWorld();
const NZ_START = START.setZone('Pacific/Auckland');
const accounts = accountsOf(world);

function amountOf(s: Statement, type: string): bigint {
  const entry = s.StatementAmount!.find((a) => a.Type === type)!;
  return signedUnits(entry.Amount.Amount, entry.CreditDebitIndicator);
}

/** Booked rows of the statement period (StartDateTime ≤ BookingDateTime ≤ EndDateTime), oldest first. */
function bookedRowsOf(bank: 'PNZ', accountId: string, s: Statement) {
  const [from, to] = [ms(s.StartDateTime), ms(s.EndDateTime)];
  return world
    .transactionsAt(bank, accountId, START.plus({ days: 75 }))
    .filter((t) => t.Status === 'Booked' && ms(t.BookingDateTime) >= from && ms(t.BookingDateTime) <= to)
    .reverse();
}

describe('statementsAt: monthly RegularPeriodic statements', () => {
  it('lists one statement per completed month in history, newest first, once created (1st, 06:00 NZ)', () => {
    for (const { bank, account } of accounts) {
      const statements = world.statementsAt(bank, account.AccountId, START);
      // History from 2023-12-11 (450 days before 2025-03-05): complete months 2024-01 … 2025-02.
      expect(statements.map((s) => s.StartDateTime.slice(0, 7))).toEqual([
        '2025-02',
        '2025-01',
        '2024-12',
        '2024-11',
        '2024-10',
        '2024-09',
        '2024-08',
        '2024-07',
        '2024-06',
        '2024-05',
        '2024-04',
        '2024-03',
        '2024-02',
        '2024-01',
      ]);
      const march = world.statementsAt(
        bank,
        account.AccountId,
        NZ_START.set({ month: 4, day: 1, hour: 6, minute: 0 }),
      )[0]!;
      expect(march.StartDateTime).toBe('2025-03-01T00:00:00+13:00');
      expect(march.EndDateTime).toBe('2025-03-31T23:59:59+13:00');
      expect(march.CreationDateTime).toBe('2025-04-01T06:00:00+13:00');
      const justBefore = world.statementsAt(
        bank,
        account.AccountId,
        NZ_START.set({ month: 4, day: 1, hour: 5, minute: 59 }),
      );
      expect(justBefore[0]!.StartDateTime.slice(0, 7)).toBe('2025-02');
      expect(new Set(statements.map((s) => s.StatementId)).size).toBe(statements.length);
      expect(
        statements.every((s) => s.Type === 'RegularPeriodic' && s.StatementId.length <= 40 && s.StatementReference),
      ).toBe(true);
    }
  });

  it('keeps StatementAmount consistent with the booked transactions of the period', () => {
    for (const { bank, account } of accounts) {
      const statements = world.statementsAt(bank, account.AccountId, START);
      for (const [i, s] of statements.entries()) {
        const rows = bookedRowsOf('PNZ', account.AccountId, s);
        const opening = amountOf(s, 'PreviousClosingBalance');
        const closing = amountOf(s, 'ClosingBalance');
        const credits = rows
          .filter((t) => t.CreditDebitIndicator === 'Credit')
          .reduce((sum, t) => sum + rowUnits(t), 0n);
        const debits = rows.filter((t) => t.CreditDebitIndicator === 'Debit').reduce((sum, t) => sum - rowUnits(t), 0n);
        expect(amountOf(s, 'TotalCredits')).toBe(credits);
        expect(-amountOf(s, 'TotalDebits')).toBe(debits);
        expect(closing).toBe(opening + credits - debits);
        const last = rows[rows.length - 1];
        if (last) expect(signedUnits(last.Balance!.Amount.Amount, last.Balance!.CreditDebitIndicator)).toBe(closing);
        const older = statements[i + 1];
        if (older) expect(amountOf(older, 'ClosingBalance')).toBe(opening);
      }
    }
  });

  it('lists the monthly fee of accounts that pay one as StatementFee equal to the fee rows', () => {
    let withFee = 0;
    for (const { bank, account } of accounts) {
      for (const s of world.statementsAt(bank, account.AccountId, START)) {
        const fees = bookedRowsOf('PNZ', account.AccountId, s).filter(
          (t) => t.TransactionInformation === 'MONTHLY ACCOUNT FEE',
        );
        if (fees.length === 0) {
          expect(s.StatementFee).toBeUndefined();
          continue;
        }
        withFee++;
        expect(s.StatementFee).toEqual([
          {
            Amount: { Amount: expect.any(String), Currency: account.Currency },
            CreditDebitIndicator: 'Debit',
            Type: 'Monthly',
          },
        ]);
        expect(-signedUnits(s.StatementFee![0]!.Amount.Amount, 'Credit')).toBe(
          fees.reduce((sum, t) => sum + rowUnits(t), 0n),
        );
      }
    }
    expect(withFee).toBeGreaterThan(0);
  });

  it('gives exactly one account ids containing "/" (clients must encode ids, docs/bank-api.md §1.2)', () => {
    const slashed = accounts.filter(({ bank, account }) =>
      world.statementsAt(bank, account.AccountId, START).some((s) => s.StatementId.includes('/')),
    );
    expect(slashed).toHaveLength(1);
    const s = world.statementsAt('PNZ', slashed[0]!.account.AccountId, START)[0]!;
    expect(s.StatementId).toBe('2025/02');
    expect(world.statementFile('PNZ', slashed[0]!.account.AccountId, '2025/02', 'text/csv')).not.toBeNull();
  });
});

describe('statementFile (docs/bank-api.md §6.7)', () => {
  const { bank, account } = accounts[0]!;
  const statement = world.statementsAt(bank, account.AccountId, START)[1]!;

  it('is a valid PDF 1.4 whose xref offsets point at each object', () => {
    const pdf = world.statementFile(bank, account.AccountId, statement.StatementId, 'application/pdf')!;
    const text = pdf.toString('latin1');
    expect(text.startsWith('%PDF-1.4\n')).toBe(true);
    expect(text.endsWith('%%EOF\n')).toBe(true);
    const startxref = Number(/startxref\n(\d+)\n%%EOF\n$/.exec(text)![1]);
    expect(text.slice(startxref, startxref + 5)).toBe('xref\n');
    const [, first, count] = /^xref\n(\d+) (\d+)\n/.exec(text.slice(startxref))!.map(Number) as [
      number,
      number,
      number,
    ];
    expect(first).toBe(0);
    const entries = text
      .slice(startxref)
      .split('\n')
      .slice(2, 2 + count);
    expect(entries[0]).toBe('0000000000 65535 f ');
    for (let n = 1; n < count; n++) {
      const entry = entries[n]!;
      expect(entry).toMatch(/^\d{10} 00000 n $/);
      const offset = Number(entry.slice(0, 10));
      expect(text.slice(offset, offset + `${n} 0 obj`.length)).toBe(`${n} 0 obj`);
    }
    expect(text).toContain(`/Size ${count}`);
    // Every content stream's /Length is its exact byte length.
    for (const m of text.matchAll(/<< \/Length (\d+) >>\nstream\n/g)) {
      const begin = m.index + m[0].length;
      expect(text.slice(begin + Number(m[1]), begin + Number(m[1]) + 9)).toBe('endstream');
    }
    const first3 = bookedRowsOf('PNZ', account.AccountId, statement).slice(0, 3);
    for (const t of first3) expect(text).toContain(t.TransactionInformation!.replace(/([\\()])/g, '\\$1').slice(0, 30));
  });

  it('is a CSV with the docs/bank-api.md §6.7 header and one row per booked transaction of the period', () => {
    const csv = world.statementFile(bank, account.AccountId, statement.StatementId, 'text/csv')!.toString('utf8');
    expect(csv.split('\r\n')[0]).toBe(
      'BookingDateTime,TransactionId,Amount,Currency,CreditDebitIndicator,TransactionInformation',
    );
    const records = parse<Record<string, string>>(csv, { columns: true });
    const rows = bookedRowsOf('PNZ', account.AccountId, statement);
    expect(rows.length).toBeGreaterThan(20);
    expect(records).toEqual(
      rows.map((t) => ({
        BookingDateTime: t.BookingDateTime,
        TransactionId: t.TransactionId,
        Amount: t.Amount.Amount,
        Currency: t.Amount.Currency,
        CreditDebitIndicator: t.CreditDebitIndicator,
        TransactionInformation: t.TransactionInformation ?? '',
      })),
    );
  });

  it('is null for an unknown statement or account', () => {
    expect(world.statementFile(bank, account.AccountId, 'stm-1999-01', 'text/csv')).toBeNull();
    expect(world.statementFile(bank, 'acc-missing', statement.StatementId, 'application/pdf')).toBeNull();
  });
});
