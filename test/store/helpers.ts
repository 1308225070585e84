/** Shared set-up for the store tests: a fresh database in a temp dir, a consent, an account. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Consent, Transaction, type AccountId, type BankName, type ConsentId } from '@bankdata/core/schemas';
import { openStore, type SqliteStore, type Store, type TransactionRow } from '../../src/store';
import { toAccountRow, toTransactionRow } from '../../src/sync/transform';
import { queryRow, type DialectContext } from '../support/dialects';

export const CONSENT = 'c0a8012e-7d3b-4f5e-9a61-2b9f4c1d8e70' as ConsentId;
export const OTHER_CONSENT = 'd1b9123f-8e4c-4a6f-8b72-3c0a5d2e9f81' as ConsentId;
export const BANK: BankName = 'PNZ';
export const ACCOUNT = 'acc-0001' as AccountId;
export const NOW = new Date('2025-03-05T00:00:00.000Z');

const dirs: string[] = [];
/** Removes the folders tempDir() made; test/support/per-file.ts runs it after each test of every file. */
export function removeTempDirs(): void {
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
}

export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'bankdata-store-'));
  dirs.push(dir);
  return dir;
}

/** A fresh SQLite store with CONSENT and OTHER_CONSENT registered and ACCOUNT stored. */
export async function freshStore(): Promise<SqliteStore> {
  return seeded(await openStore(join(tempDir(), 'db', 'bankdata.sqlite'), { now: () => NOW }));
}

/** The same on the suite's dialect (../support/dialects.ts), closed after the test. */
export async function freshStoreOn(d: Pick<DialectContext, 'dialect' | 'open'>): Promise<Store> {
  return seeded(await d.open({ now: () => NOW }));
}

async function seeded<S extends Store>(store: S): Promise<S> {
  await store.consents.add(CONSENT);
  await store.consents.add(OTHER_CONSENT);
  const ctx = { bank: BANK, consentId: CONSENT, fetchedAt: NOW };
  await store.commitAccounts({
    bank: BANK,
    consentId: CONSENT,
    rows: [toAccountRow({ AccountId: ACCOUNT, Currency: 'NZD', Nickname: 'Bills' }, ctx)],
    runId: null,
  });
  return store;
}

/** A wire transaction (Detail payload by default), parsed as the client would. */
export function wireTx(overrides: Record<string, unknown> = {}): Transaction {
  return Transaction.parse({
    AccountId: ACCOUNT,
    TransactionId: 'txn-1',
    Amount: { Amount: '18.90', Currency: 'NZD' },
    CreditDebitIndicator: 'Debit',
    Status: 'Pending',
    BookingDateTime: '2025-03-04T12:02:41+13:00',
    TransactionInformation: 'CORNER CAFE',
    MerchantDetails: { MerchantName: 'CORNER CAFE', MerchantCategoryCode: '5814' },
    ...overrides,
  });
}

export function txRow(overrides: Record<string, unknown> = {}, consentId: ConsentId = CONSENT): TransactionRow {
  return toTransactionRow(wireTx(overrides), { bank: BANK, consentId, fetchedAt: NOW });
}

/** The days of the account's one window in the store tests (RANGE.to its watermark). */
export const RANGE = { from: '2025-03-01T00:00:00.000Z', to: '2025-03-05T00:00:00.000Z' };

/**
 * `rows` committed as one window of ACCOUNT through CONSENT, as a sync would: the first one (a
 * watermark), at `now` (a sync's instant, before the store's clock NOW); `later` commits it again
 * at that instant without moving the watermark.
 */
export async function commitWindow(store: Store, rows: TransactionRow[], later?: string): Promise<void> {
  await store.commitTransactionWindow({
    bank: BANK,
    accountId: ACCOUNT,
    consentId: CONSENT,
    range: RANGE,
    creditDebitFilter: null,
    rows,
    checkpoint: later === undefined ? { watermark: RANGE.to } : null,
    runId: null,
    now: later ?? '2025-03-04T01:00:00Z',
  });
}

/** The stored row, removed or not, straight from the table (either dialect). */
export async function storedTx(store: Store, transactionId: string): Promise<Record<string, unknown> | undefined> {
  return queryRow(
    store,
    'SELECT * FROM transactions WHERE bank = ? AND account_id = ? AND transaction_id = ?',
    BANK,
    ACCOUNT,
    transactionId,
  );
}

/**
 * A consent record as the bank answers it, Authorised at PNZ by redirect; `fields` replace the
 * defaults (the dates, the permissions, the id).
 */
export function authorisedRecord(fields: Partial<Record<keyof Consent, unknown>> & { consent_id: string }): Consent {
  return Consent.parse({
    status: 'Authorised',
    creation_date_time: '2025-03-01T10:00:00+13:00',
    status_update_date_time: '2025-03-01T10:01:00+13:00',
    flow: {
      detail: { type: 'redirect', redirect_uri: 'https://app.example.nz/consent/return' },
      flow_hint: { type: 'redirect', bank: BANK },
    },
    permissions: ['ReadAccountsDetail', 'ReadBalances', 'ReadTransactionsDetail'],
    start_date_time: '2024-03-01T00:00:00+13:00',
    ...fields,
  });
}

/** Records a registered consent as read Authorised (live: docs/data-model.md "Which consent a row belongs to"), with `extra` permissions. */
export async function authorise(store: Store, consentId: ConsentId, extra: string[] = []): Promise<void> {
  await store.consents.recordStatus(
    authorisedRecord({
      consent_id: consentId,
      permissions: [
        'ReadAccountsDetail',
        'ReadBalances',
        'ReadTransactionsDetail',
        'ReadStatementsDetail',
        'ReadPartyAuthUser',
        'ReadParty',
        ...extra,
      ],
      end_date_time: '2026-03-01T00:00:00+13:00',
      expiration_date_time: '2026-03-01T23:59:59+13:00',
    }),
  );
}
