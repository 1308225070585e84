import { describe, expect, it } from 'vitest';
import { negotiateContentType, statementFileName } from '../src/accept';

const BANK = ['application/pdf', 'text/csv'];

describe('negotiateContentType (docs/bank-api.md §6.7)', () => {
  it.each<[string | undefined, readonly string[], string | null]>([
    [undefined, BANK, 'application/pdf'],
    ['', BANK, 'application/pdf'],
    ['*/*', ['text/csv', 'application/pdf'], 'text/csv'],
    ['application/pdf, text/csv;q=0.5', BANK, 'application/pdf'],
    ['text/csv;q=0.9, application/pdf;q=0.8', BANK, 'text/csv'],
    ['text/csv, application/pdf', BANK, 'application/pdf'],
    ['TEXT/CSV', BANK, 'text/csv'],
    ['text/csv; charset=utf-8', BANK, 'text/csv'],
    ['*/*;q=0.1, application/pdf;q=0', BANK, 'text/csv'],
    ['text/*;q=0.4, */*;q=0.5', BANK, 'application/pdf'],
    ['application/json', BANK, null],
    ['application/pdf', ['text/csv'], null],
    ['*/*', [], null],
  ])('Accept %j with bank types %j gives %j', (accept, offered, expected) => {
    expect(negotiateContentType(accept, offered)).toBe(expected);
  });
});

describe('statementFileName (docs/bank-api.md §6.7)', () => {
  it('replaces every character outside A-Za-z0-9._- with _', () => {
    expect(statementFileName('stm-2025-02', 'application/pdf')).toBe('stm-2025-02.pdf');
    expect(statementFileName('../x', 'text/csv')).toBe('.._x.csv');
    expect(statementFileName('2026/02 "final"', 'application/pdf')).toBe('2026_02__final_.pdf');
  });
});
