/** A record of another account in an account's answer is kept aside, never stored under it. */
import { describe, expect, it } from 'vitest';
import { Balance, type AccountId, type ConsentId } from '../../src/api/schemas';
import { splitByAccount, toBalanceRow } from '../../src/sync/transform';

const ctx = { bank: 'PNZ' as const, consentId: 'c0a8012e-7d3b-4f5e-9a61-2b9f4c1d8e70' as ConsentId, fetchedAt: '2025-03-05T10:00:00+13:00' };
const balance = (accountId: string) =>
  Balance.parse({
    AccountId: accountId,
    Amount: { Amount: '2315.07', Currency: 'NZD' },
    CreditDebitIndicator: 'Credit',
    Type: 'InterimBooked',
    DateTime: '2025-03-05T09:00:00+13:00',
  });

describe('splitByAccount', () => {
  it("stores the account's own records and rejects another account's, naming both ids", () => {
    const own = balance('acc-0001');
    const stray = balance('acc-0002');
    const { rows, strays } = splitByAccount('balance', ctx, 'acc-0001' as AccountId, [own, stray, own], (b) => toBalanceRow(b, ctx));
    expect(rows).toEqual([toBalanceRow(own, ctx), toBalanceRow(own, ctx)]);
    expect(strays).toEqual([
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
});
