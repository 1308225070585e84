/**
 * The migration that gives balances `last_seen_at` (SQLite 0020, PostgreSQL 0019), on both
 * dialects: a database one step before it, holding balances (a restatement among them), migrates
 * keeping every row, each seen last when it was first fetched; the store then records a later
 * fetch of a balance it holds. Run by migrate-balance-last-seen.test.ts and
 * pg/migrate-balance-last-seen.pg.test.ts, each with its dialect's older database.
 */
import { expect } from 'vitest';
import type { AccountId, BankName, ConsentId } from '@bankdata/core/schemas';
import type { Store } from '../../src/store';
import { queryRows } from '../support/dialects';

/** The migration's tag in each dialect's journal. */
export const LAST_SEEN_TAG = { sqlite: '0020_balance_last_seen', postgres: '0019_balance_last_seen' } as const;

const CONSENT = '7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d' as ConsentId;
const KEY = { bank: 'PNZ' as BankName, accountId: 'acc-1' as AccountId };
const day = (d: number, hm = '00:00') => `2025-01-0${d}T${hm}:00.000Z`;

/** Rows as the previous schema held them (no last_seen_at); plain SQL both dialects run. */
export const PLANTED = [
  `INSERT INTO consents (consent_id, registered_at) VALUES ('${CONSENT}', '${day(1)}')`,
  `INSERT INTO accounts (bank, account_id, consent_id, currency, raw_json, first_seen_at, last_seen_at, updated_at)
   VALUES ('PNZ', 'acc-1', '${CONSENT}', 'NZD', '{}', '${day(2)}', '${day(2)}', '${day(2)}')`,
  ...(
    [
      ['InterimBooked', day(2), '100.00', day(2, '12:00')],
      // The 6 January closing balance, stated as 140.00, then restated as 150.00.
      ['ClosingBooked', day(6), '140.00', day(6, '12:00')],
      ['ClosingBooked', day(6), '150.00', day(7, '12:00')],
    ] as const
  ).map(
    ([type, at, amount, fetched]) =>
      `INSERT INTO balances (bank, account_id, consent_id, type, amount, amount_minor, currency, credit_debit_indicator,
         date_time, raw_json, fetched_at)
       VALUES ('PNZ', 'acc-1', '${CONSENT}', '${type}', '${amount}', ${Number(amount) * 100}, 'NZD', 'Credit',
         '${at}', '{}', '${fetched}')`,
  ),
];

/** What the migrated database must hold and do. */
export async function expectMigrated(store: Store): Promise<void> {
  const rows = () =>
    queryRows(store, 'SELECT type, amount, date_time, fetched_at, last_seen_at FROM balances ORDER BY fetched_at');
  // Every row kept, each seen last by the fetch that first returned it.
  expect(await rows()).toEqual([
    {
      type: 'InterimBooked',
      amount: '100.00',
      date_time: day(2),
      fetched_at: day(2, '12:00'),
      last_seen_at: day(2, '12:00'),
    },
    {
      type: 'ClosingBooked',
      amount: '140.00',
      date_time: day(6),
      fetched_at: day(6, '12:00'),
      last_seen_at: day(6, '12:00'),
    },
    {
      type: 'ClosingBooked',
      amount: '150.00',
      date_time: day(6),
      fetched_at: day(7, '12:00'),
      last_seen_at: day(7, '12:00'),
    },
  ]);
  const ledger = () => store.views.latestBalance(KEY, ['ClosingBooked', 'InterimBooked'], null);
  // The restatement, fetched last, is still the latest.
  expect(await ledger()).toEqual({ amount: '150.00', dateTime: day(6) });
  // The bank states 140.00 again: the row it has is seen again, and is the latest.
  const counts = await store.commitBalances({
    ...KEY,
    consentId: CONSENT,
    runId: null,
    now: day(9, '12:00'),
    rows: [
      {
        ...KEY,
        consentId: CONSENT,
        type: 'ClosingBooked',
        amount: '140.00',
        amountMinor: 14000,
        currency: 'NZD',
        creditDebitIndicator: 'Credit',
        dateTime: day(6),
        rawJson: '{}',
        fetchedAt: day(9, '12:00'),
      },
    ],
  });
  expect(counts).toEqual({ added: 0, unchanged: 1 });
  expect((await rows())[1]).toMatchObject({
    amount: '140.00',
    fetched_at: day(6, '12:00'),
    last_seen_at: day(9, '12:00'),
  });
  expect(await ledger()).toEqual({ amount: '140.00', dateTime: day(6) });
}
