/**
 * The payee, one function (src/store/payee.ts) for the categories' default payee and the
 * statement exports' payee (OFX NAME, Xero and MYOB): the merchant, else the other side's name,
 * each with its white space made one; a blank merchant gives way to the other side.
 */
import { describe, expect, it } from 'vitest';
import { decide, type CategorisableRow } from '../../src/categories/decide';
import { categorisableRow } from '../fixtures/categorisable-row';
import { payeeName } from '../../src/export/statement-text';
import { defaultPayee } from '../../src/store/payee';

const row = (over: Partial<CategorisableRow>) =>
  categorisableRow({ accountId: 'acc-1', transactionId: 't-1', amount: '-5.00', description: 'NARRATIVE', ...over });
const get = (r: ReturnType<typeof row>) => (c: string) =>
  ({
    merchant_name: r.merchantName,
    creditor_name: r.creditorName,
    debtor_name: r.debtorName,
    description: r.description,
  })[c] ?? null;

describe('the payee', () => {
  it('is the same in a decision and in the exports, blank merchants giving way to the other side', () => {
    const cases = [
      row({ merchantName: '  MOJO   COFFEE ', creditorName: 'Mojo Ltd' }),
      row({ merchantName: ' \t ', creditorName: 'City  Power' }),
      row({ creditDebitIndicator: 'Credit', amount: '5.00', creditorName: 'Me', debtorName: 'Employer Ltd' }),
    ];
    const expected = ['MOJO COFFEE', 'City Power', 'Employer Ltd'];
    expect(cases.map((r) => decide(r, []).payee)).toEqual(expected);
    expect(cases.map((r) => payeeName(get(r), r.creditDebitIndicator === 'Debit'))).toEqual(expected);
  });

  it('is null in a decision when the bank sends no name; the exports then take the narrative', () => {
    const r = row({ merchantName: ' ' });
    expect(defaultPayee(r, true)).toBeNull();
    expect(decide(r, []).payee).toBeNull();
    expect(payeeName(get(r), true)).toBe('NARRATIVE');
  });
});
