/**
 * The benches' big database: a fresh store (migrations, a consent and four accounts through the
 * store's API) and N deterministic transactions inserted in bulk (NZ bank narratives, signed
 * amounts, 1 in 10 a formula-like description, half with a merchant, raw JSON kept as the sync
 * keeps it). Shared by export-csv.ts and report.ts.
 */
import type { AccountId, ConsentId } from '@bankdata/core/schemas';
import { nzDateOf } from '@bankdata/core/nz-time';
import { openStore, type SqliteStore } from '../../../src/store';

export const ACCOUNTS = ['acc-0001', 'acc-0002', 'acc-0003', 'acc-0004'];
export const CONSENT = '0b7c9a1e-4f3d-4c2b-9a8e-1d2c3b4a5f60' as ConsentId;
export type BenchRow = Record<string, string | number | null>;

const DESCRIPTIONS = [
  'EFTPOS COUNTDOWN PONSONBY',
  'AP CITY POWER LTD',
  'DC SALARY ACME LTD',
  'BP SPARK NZ',
  'POS W/D Z ENERGY 4421',
  'TFR TO SAVINGS',
  'DD IRD PAYE',
  'INTEREST CREDIT',
  'Café Ōtautahi, "flat white"',
  '=SUM(A1:A9)',
];
const MERCHANTS = ['COUNTDOWN', 'Z ENERGY', 'NEW WORLD', 'BUNNINGS', null, null];
const BASE_MS = Date.UTC(2023, 0, 1);
const nzDates = new Map<number, string>();

/** Row i as the table stores it (snake_case columns), deterministic. */
export function makeRow(i: number): BenchRow {
  const at = BASE_MS + i * 60_000;
  const hour = Math.floor(at / 3_600_000);
  let bookingDate = nzDates.get(hour);
  if (!bookingDate) nzDates.set(hour, (bookingDate = nzDateOf(at)));
  const debit = i % 3 !== 0;
  const cents = (i * 7919) % 500_000;
  const magnitude = `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
  const amount = cents === 0 ? '0.00' : debit ? `-${magnitude}` : magnitude;
  const description = DESCRIPTIONS[i % DESCRIPTIONS.length]!;
  const merchant = MERCHANTS[i % MERCHANTS.length] ?? null;
  return {
    bank: 'PNZ',
    account_id: ACCOUNTS[i % ACCOUNTS.length]!,
    transaction_id: `txn-${String(i).padStart(8, '0')}`,
    consent_id: CONSENT,
    status: i % 997 === 0 ? 'Pending' : 'Booked',
    booking_date_time: new Date(at).toISOString(),
    booking_date: bookingDate,
    value_date_time: i % 2 === 0 ? new Date(at).toISOString() : null,
    amount,
    amount_minor: debit ? -cents : cents,
    currency: 'NZD',
    credit_debit_indicator: debit && cents !== 0 ? 'Debit' : 'Credit',
    description,
    merchant_name: merchant,
    merchant_category_code: merchant ? '5411' : null,
    creditor_name: debit ? 'CITY POWER LTD' : null,
    debtor_name: debit ? null : 'ACME LTD',
    creditor_particulars: debit ? 'ACCT 5531' : null,
    creditor_code: null,
    creditor_reference: debit ? `INV-${i % 10_000}` : null,
    debtor_particulars: null,
    debtor_code: null,
    debtor_reference: null,
    bank_transaction_code: 'IssuedCreditTransfers',
    bank_transaction_subcode: 'AutomaticTransfer',
    proprietary_code: 'AP',
    balance_after: `${(i * 37) % 90_000}.${String(i % 100).padStart(2, '0')}`,
    counterparty_account: debit ? '12-3456-0765432-00' : null,
    raw_json: JSON.stringify({
      TransactionId: `txn-${i}`,
      Amount: { Amount: amount, Currency: 'NZD' },
      TransactionInformation: description,
    }),
    first_seen_at: '2025-03-05T01:00:00.000Z',
    last_seen_at: '2025-03-05T01:00:00.000Z',
    updated_at: '2025-03-05T01:00:00.000Z',
    removed_at: null,
  };
}

/** Fills a fresh database: consent and accounts through the store, the rows in bulk. */
export async function generate(
  path: string,
  rows: number,
  options: {
    /** May change the row; false leaves it out (a row the bank never served). */
    beforeInsert?: (row: BenchRow, i: number) => boolean | void;
    afterAll?: (store: SqliteStore) => void;
  } = {},
): Promise<void> {
  const store = await openStore(path, { now: () => new Date('2025-03-05T01:00:00.000Z') });
  await store.consents.add(CONSENT);
  await store.commitAccounts({
    bank: 'PNZ',
    consentId: CONSENT,
    runId: null,
    rows: ACCOUNTS.map((id) => ({
      bank: 'PNZ' as const,
      accountId: id as AccountId,
      consentId: CONSENT,
      currency: 'NZD',
      nickname: id,
      description: null,
      accountType: 'Personal',
      accountSubtype: 'CurrentAccount',
      schemeName: null,
      identification: null,
      accountName: null,
      secondaryIdentification: null,
      servicerIdentification: null,
      rawJson: '{}',
    })),
  });
  const columns = Object.keys(makeRow(0));
  const insert = store.sqlite.prepare(
    `INSERT INTO transactions (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`,
  );
  const insertMany = store.sqlite.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const row = makeRow(i);
      if (options.beforeInsert?.(row, i) === false) continue;
      insert.run(row);
    }
  });
  for (let i = 0; i < rows; i += 50_000) insertMany(i, Math.min(i + 50_000, rows));
  options.afterAll?.(store);
  await store.close();
}
