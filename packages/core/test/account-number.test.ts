/**
 * NZ BECS account numbers (src/account-number.ts; docs/bank-api.md §6.1): the parts read from
 * any of the ways a number is written, one canonical form (the suffix as 3 digits), and the one
 * comparison of two numbers.
 */
import { describe, expect, it } from 'vitest';
import { canonicalAccountNumber, parseAccountNumber, sameAccountNumber } from '../src/account-number';

describe('account numbers', () => {
  it('reads bank, branch, account and suffix, with dashes, spaces or neither; the suffix as 3 digits', () => {
    expect(parseAccountNumber('12-3456-0123456-00')).toEqual({
      bank: '12',
      branch: '3456',
      account: '0123456',
      suffix: '000',
    });
    for (const text of ['12-3456-0123456-000', ' 12 3456 0123456 00 ', '123456012345600', '1234560123456000'])
      expect(canonicalAccountNumber(text)).toBe('12-3456-0123456-000');
    expect(canonicalAccountNumber('12-3456-0123456-01')).toBe('12-3456-0123456-001');
    expect(canonicalAccountNumber('12-3456-0123456-100')).toBe('12-3456-0123456-100');
  });

  it('is not a BECS number: another length of a part, other separators, another scheme', () => {
    for (const text of [
      '12-3456-123456-00', // account of 6 digits: §6.1 gives 7
      '12-3456-0123456-0',
      '12-3456-0123456-0000',
      '123-456-0123456-00',
      '12.3456.0123456.00',
      '12--3456-0123456-00',
      '************1111',
      '',
    ])
      expect([text, canonicalAccountNumber(text)]).toEqual([text, null]);
  });

  it('compares two numbers whole: BECS by their parts, else by all their digits; nothing to compare without digits', () => {
    expect(sameAccountNumber('12-3456-0765432-00', '12-3456-0765432-000')).toBe(true);
    expect(sameAccountNumber('12-3456-0123456-00', '11-2345-6012345-600')).toBe(false);
    expect(sameAccountNumber('12-3456-0123456-00', '12-3456-0123456-001')).toBe(false);
    expect(sameAccountNumber('12-3456-0123456-10', '12-3456-0123456-100')).toBe(false);
    // Not BECS on one side: the digits, all of them.
    expect(sameAccountNumber('12.3456.0123456.00', '12-3456-0123456-00')).toBe(true);
    expect(sameAccountNumber('************1111', '************1111')).toBe(true);
    expect(sameAccountNumber('************1111', '12-3456-0001111-00')).toBe(false);
    expect(sameAccountNumber('n/a', '12-3456-0123456-00')).toBeNull();
  });
});
