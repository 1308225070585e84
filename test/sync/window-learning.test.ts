/**
 * The prior of an account never read through its consent (src/sync/window-learning.ts): the
 * same account's rows per day read through another consent, else the densest account of its
 * kind, else the densest of the bank; this run's readings and the stored ones alike, and, for the
 * first two, only readings of consents that read at least the rows this one does (a Credits-only
 * consent counts fewer rows than one without a filter).
 */
import { describe, expect, it } from 'vitest';
import type { AccountId } from '@bankdata/core/schemas';
import type { StoredDensity } from '../../src/store';
import { accountKind, windowLearning, type AccountLike } from '../../src/sync/window-learning';
import type { SyncContext } from '../../src/sync/run-context';

function learningWith(stored: StoredDensity[] = []) {
  const store = {
    syncState: {
      getWindowKnowledge: async () => ({ windowDays: null, maxAcceptedRows: null, minRefusedRows: null }),
      storedDensities: async () => stored,
    },
  };
  return windowLearning({ store, counters: {} } as unknown as Pick<SyncContext, 'store' | 'counters'>, 'PNZ');
}

const card = accountKind({ AccountType: 'Personal', AccountSubType: 'CreditCard' });
const saver = accountKind({ AccountType: 'Personal', AccountSubType: 'Savings' });
const like = (accountId: string, kind: string | null, filter: AccountLike['filter'] = null): AccountLike => ({
  accountId,
  kind,
  filter,
});
const storedReading = (
  accountId: string,
  rowsPerDay: number,
  subtype: string | null,
  permissions: string[] | null = [],
) => ({
  accountId: accountId as AccountId,
  rowsPerDay,
  accountType: subtype === null ? null : 'Personal',
  accountSubtype: subtype,
  permissions: permissions === null ? null : ['ReadAccountsDetail', 'ReadTransactionsDetail', ...permissions],
});

describe("an account's prior rows per day", () => {
  it('the same account read through another consent, else its kind, else the bank', async () => {
    const learning = await learningWith();
    expect(learning.prior(like('a1', card))).toBeNull();
    learning.density('c1|a1', 6, like('a1', card));
    learning.density('c1|a2', 0.5, like('a2', saver));
    learning.density('c1|a3', 0.2, like('a3', saver));
    // a3 through another consent: its own reading, not its kind's densest.
    expect(learning.prior(like('a3', saver))).toBe(0.2);
    // A savings account not read yet: the densest savings account.
    expect(learning.prior(like('a4', saver))).toBe(0.5);
    // A kind not read yet, or an account of no kind: the bank's densest.
    expect(learning.prior(like('a5', accountKind({ AccountType: 'Business' })))).toBe(6);
    expect(learning.prior(like('a5', accountKind({})))).toBe(6);
  });

  it('untyped accounts are no kind: one is not judged by another', async () => {
    const learning = await learningWith();
    expect(accountKind({})).toBeNull();
    learning.density('c1|a1', 6, like('a1', card));
    learning.density('c1|a2', 0.1, like('a2', null));
    expect(learning.prior(like('a3', null))).toBe(6);
  });

  it("a filtered consent's reading is no prior for a consent that reads more rows", async () => {
    const learning = await learningWith();
    learning.density('c1|a1', 6, like('a1', card));
    // a2 read through a Credits-only consent: 0.3 of its rows a day.
    learning.density('c1|a2', 0.3, like('a2', saver, 'Credit'));
    // Through a consent without a filter: not the credits' reading, nor a kind that only it gave.
    expect(learning.prior(like('a2', saver))).toBe(6);
    // Through another Credits-only consent, or a Debits-only one.
    expect(learning.prior(like('a2', saver, 'Credit'))).toBe(0.3);
    expect(learning.prior(like('a2', saver, 'Debit'))).toBe(6);
    // A reading without a filter counts for a filtered consent (it reads fewer rows).
    learning.density('c2|a2', 2, like('a2', saver));
    expect(learning.prior(like('a2', saver, 'Debit'))).toBe(2);
  });

  it("earlier runs' readings count as this run's: their account's kind from the accounts table, their filter from their consent's permissions", async () => {
    const learning = await learningWith([
      storedReading('a1', 9, 'CreditCard'),
      storedReading('a2', 0.1, 'Savings'),
      storedReading('a3', 0.7, 'Savings', ['ReadTransactionsCredits']),
      storedReading('gone', 12, null),
    ]);
    learning.density('c1|a4', 0.5, like('a4', saver));
    // Its own stored reading; its kind's densest of this run's and the stored ones.
    expect(learning.prior(like('a2', saver))).toBe(0.1);
    expect(learning.prior(like('a5', saver))).toBe(0.5);
    // The Credits-only reading counts only for a Credits-only consent.
    expect(learning.prior(like('a3', saver))).toBe(0.5);
    expect(learning.prior(like('a3', saver, 'Credit'))).toBe(0.7);
    // A kind nothing gave: the bank's densest, an account no longer held included.
    expect(learning.prior(like('a6', accountKind({ AccountType: 'Business' })))).toBe(12);
  });

  it("a stored reading whose consent's permissions are unknown (the consent gone) counts for the bank only: its filter may be any", async () => {
    const learning = await learningWith([
      storedReading('a1', 9, 'CreditCard'),
      // Perhaps read through a Credits-only consent: fewer rows than a consent without a filter reads.
      storedReading('a2', 0.1, 'Savings', null),
      storedReading('a3', 40, 'Business', null),
    ]);
    // Not a2's own prior, nor its kind's: the bank's densest, the unknown one included.
    expect(learning.prior(like('a2', saver))).toBe(40);
    expect(learning.prior(like('a4', saver, 'Credit'))).toBe(40);
  });

  it("names a kind by the bank's account type and subtype", () => {
    expect(card).toBe('Personal/CreditCard');
    expect(accountKind({ AccountType: 'Business' })).toBe('Business/');
  });
});
