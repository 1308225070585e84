/**
 * Two workers replacing one account's continuity findings at the same moment (an account read
 * through consents that two workers synced; src/sync/run.ts `closingCheck`): each replacement
 * takes the account's write lock (src/store/dialect-sql.ts `lockAccounts`), so the second
 * DELETE sees the first one's rows and the findings are stored once, never twice; two accounts
 * replaced in opposite orders do not deadlock.
 */
import { afterEach, expect, it } from 'vitest';
import type { AccountId, ConsentId } from '@bankdata/core/schemas';
import { openDatabaseStore, type Store } from '../../../src/store';
import type { ContinuityFinding } from '../../../src/store/continuity';
import { execute } from '../../support/dialects';
import { createTestDatabase, describePostgres } from '../../support/postgres';

const opened: Store[] = [];
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
});

function finding(accountId: string): ContinuityFinding {
  return {
    bank: 'PNZ',
    accountId: accountId as AccountId,
    kind: 'balances',
    fromDateTime: '2026-11-01T00:00:00.000Z',
    toDateTime: '2026-11-02T00:00:00.000Z',
    fromDate: '2026-11-01',
    toDate: '2026-11-02',
    amount: '-12.34',
    amountMinor: -1234,
    currency: 'NZD',
    cause: 'missing_transaction',
    transactionId: null,
    detail: 'planted',
  };
}

describePostgres('continuity findings replaced by two workers at once', () => {
  it("stores each account's findings once, whichever order the two replacements run in", async () => {
    const url = await createTestDatabase();
    const a = await openDatabaseStore(url);
    opened.push(a);
    const b = await openDatabaseStore(url);
    opened.push(b);
    const keys = ['acc-1', 'acc-2'].map((id) => ({ bank: 'PNZ' as const, accountId: id as AccountId }));
    // The accounts stored (findings are written only for accounts still stored).
    const consent = '11111111-1111-4111-8111-111111111111' as ConsentId;
    await a.consents.add(consent);
    for (const k of keys)
      await execute(
        a,
        `INSERT INTO accounts (bank, account_id, consent_id, currency, raw_json, first_seen_at, last_seen_at, updated_at)
         VALUES (?, ?, ?, 'NZD', '{}', ?, ?, ?)`,
        k.bank,
        k.accountId,
        consent,
        '2026-11-01T00:00:00.000Z',
        '2026-11-01T00:00:00.000Z',
        '2026-11-01T00:00:00.000Z',
      );
    const findings = keys.map((k) => finding(k.accountId));
    for (let round = 0; round < 20; round++) {
      await Promise.all([
        a.continuity.replaceFindings({
          accounts: keys,
          findings,
          runId: null,
          checkedAt: `2026-11-24T00:00:${String(round).padStart(2, '0')}.000Z`,
        }),
        b.continuity.replaceFindings({
          accounts: [...keys].reverse(),
          findings,
          runId: null,
          checkedAt: `2026-11-24T00:01:${String(round).padStart(2, '0')}.000Z`,
        }),
      ]);
      expect(await a.continuity.countFindings(), `round ${round}`).toBe(2);
    }
    expect((await a.continuity.listFindings()).map((f) => f.account_id)).toEqual(['acc-1', 'acc-2']);
  });
});
