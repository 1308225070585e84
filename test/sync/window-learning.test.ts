/**
 * The prior of an account never read through its consent (src/sync/window-learning.ts): the
 * same account's rows per day read through another consent, else the densest account of its
 * kind, else the densest of the bank; this run's readings and the stored ones alike.
 */
import { describe, expect, it } from 'vitest';
import { accountKind, windowLearning } from '../../src/sync/window-learning';
import type { SyncContext } from '../../src/sync/run-context';

function learningWith(storedBankMax: number | null) {
  const store = {
    syncState: {
      getWindowKnowledge: async () => ({ windowDays: null, maxAcceptedRows: null, minRefusedRows: null }),
      maxRowsPerDay: async () => storedBankMax,
    },
  };
  return windowLearning({ store, counters: {} } as unknown as Pick<SyncContext, 'store' | 'counters'>, 'PNZ');
}

const card = accountKind({ AccountType: 'Personal', AccountSubType: 'CreditCard' });
const saver = accountKind({ AccountType: 'Personal', AccountSubType: 'Savings' });

describe("an account's prior rows per day", () => {
  it('the same account read through another consent, else its kind, else the bank', async () => {
    const learning = await learningWith(null);
    expect(learning.prior({ accountId: 'a1', kind: card })).toBeNull();
    learning.density('c1|a1', 6, { accountId: 'a1', kind: card });
    learning.density('c1|a2', 0.5, { accountId: 'a2', kind: saver });
    learning.density('c1|a3', 0.2, { accountId: 'a3', kind: saver });
    // a3 through another consent: its own reading, not its kind's densest.
    expect(learning.prior({ accountId: 'a3', kind: saver })).toBe(0.2);
    // A savings account not read yet: the densest savings account.
    expect(learning.prior({ accountId: 'a4', kind: saver })).toBe(0.5);
    // A kind not read yet, or no account given: the bank's densest.
    expect(learning.prior({ accountId: 'a5', kind: accountKind({}) })).toBe(6);
    expect(learning.prior()).toBe(6);
  });

  it("stored readings count with this run's: the account's own first, then its kind's", async () => {
    const learning = await learningWith(9);
    learning.density('c1|a2', 0.5, { accountId: 'a2', kind: saver });
    expect(learning.prior({ accountId: 'a4', kind: saver }, { account: 0.1, kind: null })).toBe(0.1);
    expect(learning.prior({ accountId: 'a4', kind: saver }, { account: null, kind: 0.7 })).toBe(0.7);
    expect(learning.prior({ accountId: 'a4', kind: saver }, { account: null, kind: null })).toBe(0.5);
    expect(learning.prior({ accountId: 'a5', kind: card }, { account: null, kind: null })).toBe(9);
  });

  it("names a kind by the bank's account type and subtype", () => {
    expect(card).toBe('Personal/CreditCard');
    expect(accountKind({ AccountType: 'Business' })).toBe('Business/');
  });
});
