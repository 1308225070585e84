/**
 * What of an answer is stored and what is kept aside (src/sync/answer.ts): a record that failed
 * its schema or, in an account's answer, a record of another account is a reject with its reason.
 */
import { describe, expect, it } from 'vitest';
import { Balance, type AccountId, type ConsentId } from '@bankdata/core/schemas';
import { commitAnswer, sortAnswer } from '../../src/sync/answer';
import { emptyCounters } from '../../src/sync/run-context';
import { toBalanceRow } from '../../src/sync/transform';

const ctx = {
  bank: 'PNZ' as const,
  consentId: 'c0a8012e-7d3b-4f5e-9a61-2b9f4c1d8e70' as ConsentId,
  fetchedAt: '2025-03-05T10:00:00+13:00',
};
const balance = (accountId: string) =>
  Balance.parse({
    AccountId: accountId,
    Amount: { Amount: '2315.07', Currency: 'NZD' },
    CreditDebitIndicator: 'Credit',
    Type: 'InterimBooked',
    DateTime: '2025-03-05T09:00:00+13:00',
  });
const byAccount = {
  resource: 'balance',
  accountId: 'acc-0001' as AccountId,
  toRow: (b: Balance) => toBalanceRow(b, ctx),
  ownerOf: (b: Balance) => b.AccountId,
};
const invalid = { resource: 'Balance' as const, reason: 'Amount: required', raw: { AccountId: 'acc-0001' } };

describe('sortAnswer', () => {
  it("stores the account's own records and rejects another account's, naming both ids", () => {
    const own = balance('acc-0001');
    const stray = balance('acc-0002');
    const { rows, rejects } = sortAnswer(ctx, { records: [own, stray, own], rejects: [] }, byAccount);
    expect(rows).toEqual([toBalanceRow(own, ctx), toBalanceRow(own, ctx)]);
    expect(rejects).toEqual([
      {
        resource: 'balance',
        bank: 'PNZ',
        consentId: ctx.consentId,
        accountId: 'acc-0001',
        reason: 'AccountId acc-0002 in the answer for acc-0001',
        rawPayload: stray,
      },
    ]);
  });

  it('keeps schema failures aside with their reason; a consent-wide answer is not filtered by account', () => {
    const { rows, rejects } = sortAnswer(
      ctx,
      { records: [balance('acc-0002')], rejects: [invalid] },
      { ...byAccount, accountId: null, ownerOf: undefined },
    );
    expect(rows).toHaveLength(1);
    expect(rejects).toEqual([
      {
        resource: 'balance',
        bank: 'PNZ',
        consentId: ctx.consentId,
        accountId: null,
        reason: 'Amount: required',
        rawPayload: invalid.raw,
      },
    ]);
  });
});

describe('commitAnswer', () => {
  it('counts the rows written and every reject (schema failure or stray) once the commit succeeded', async () => {
    const counters = emptyCounters();
    const committed: unknown[] = [];
    await commitAnswer(
      { counters },
      ctx,
      { records: [balance('acc-0001'), balance('acc-0002')], rejects: [invalid] },
      byAccount,
      async (sorted) => {
        committed.push(sorted);
        return { added: sorted.rows.length };
      },
    );
    expect(counters).toMatchObject({ rowsAdded: 1, rejects: 2 });
    expect(committed).toHaveLength(1);
  });

  it('a failed commit counts nothing', async () => {
    const counters = emptyCounters();
    await expect(
      commitAnswer({ counters }, ctx, { records: [balance('acc-0002')], rejects: [] }, byAccount, () =>
        Promise.reject(new Error('disk full')),
      ),
    ).rejects.toThrow('disk full');
    expect(counters).toMatchObject({ rowsAdded: 0, rejects: 0 });
  });
});
