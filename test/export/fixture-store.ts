/**
 * A temp database filled through the store's own write API (as the sync fills it), with the
 * awkward values an export must carry exactly: hostile text, quotes, commas, line breaks,
 * non-ASCII, negative and sub-cent amounts, NULLs, an account id held at two banks, a card.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AccountId, BankName, ConsentId, PartyId, StatementId, TransactionId } from '@bankdata/core/schemas';
import { nzDateOf } from '@bankdata/core/nz-time';
import { openStore, type AccountRow, type BalanceRow, type SqliteStore, type TransactionRow } from '../../src/store';
import { Payment } from '@bankdata/core/payment-schemas';

export const NOW = new Date('2025-03-05T01:00:00.000Z'); // 14:00 NZDT, 5 March 2025
export const PNZ_CONSENT = 'c0a8012e-7d3b-4f5e-9a61-2b9f4c1d8e70' as ConsentId;
export const ANZ_CONSENT = '5f1c2a34-9b8d-4e6f-a1b2-c3d4e5f60718' as ConsentId;
export const EVERYDAY = 'acc-0001' as AccountId;
export const CARD = 'acc-card-77' as AccountId;
/** The payment consent of the one payment (Payments API): held in v_payments only, not in v_consents. */
export const PAYMENT_CONSENT = 'a1b2c3d4-e5f6-4789-8abc-def012345678';
export const PAYMENT_ID = '0d6f1c2e-3b4a-4c5d-8e9f-a0b1c2d3e4f5';

/** Descriptions a spreadsheet would run as formulas (OWASP CSV injection). */
export const HOSTILE = [
  '=HYPERLINK("http://x","y")',
  '+1',
  '-2+3',
  '@SUM(A1)',
  '\tTAB LEADING',
  '\rCR LEADING',
] as const;

export interface FixtureStore {
  store: SqliteStore;
  dir: string;
  path: string;
  cleanup(): Promise<void>;
}

function consent(id: ConsentId, bank: BankName) {
  return {
    consent_id: id,
    status: 'Authorised' as const,
    creation_date_time: '2025-01-10T09:00:00+13:00',
    status_update_date_time: '2025-01-10T09:05:00+13:00',
    flow: {
      detail: { type: 'redirect' as const, redirect_uri: 'https://app.example.nz/r' },
      flow_hint: { type: 'redirect' as const, bank },
    },
    permissions: ['ReadAccountsDetail', 'ReadBalances', 'ReadTransactionsDetail'] as (
      | 'ReadAccountsDetail'
      | 'ReadBalances'
      | 'ReadTransactionsDetail'
    )[],
    start_date_time: '2024-03-05T00:00:00+13:00',
    expiration_date_time: '2025-04-01T00:00:00+13:00',
  };
}

function account(bank: BankName, consentId: ConsentId, accountId: AccountId, extra: Partial<AccountRow>): AccountRow {
  return {
    bank,
    accountId,
    consentId,
    currency: 'NZD',
    nickname: null,
    description: null,
    accountType: 'Personal',
    accountSubtype: 'CurrentAccount',
    schemeName: null,
    identification: null,
    accountName: null,
    secondaryIdentification: null,
    servicerIdentification: null,
    rawJson: '{}',
    ...extra,
  };
}

type TxnSpec = { id: string; at: string; amount: string; status?: 'Booked' | 'Pending' } & Partial<TransactionRow>;

/** A transaction row as the sync's transform makes it: instants in the stored UTC form. */
export function txn(bank: BankName, accountId: AccountId, consentId: ConsentId, spec: TxnSpec): TransactionRow {
  const { id, at, amount, status, ...extra } = spec;
  const debit = amount.startsWith('-');
  const digits = amount.replace('-', '');
  const minor = /^\d+(\.\d{1,2})?$/.test(digits) ? Math.round(Number(amount) * 100) : null;
  return {
    bank,
    accountId,
    transactionId: id as TransactionId,
    consentId,
    status: status ?? 'Booked',
    bookingDateTime: new Date(at).toISOString(),
    bookingDate: nzDateOf(at),
    valueDateTime: null,
    amount,
    amountMinor: minor,
    currency: 'NZD',
    creditDebitIndicator: debit ? 'Debit' : 'Credit',
    description: null,
    merchantName: null,
    merchantCategoryCode: null,
    creditorName: null,
    debtorName: null,
    creditorParticulars: null,
    creditorCode: null,
    creditorReference: null,
    debtorParticulars: null,
    debtorCode: null,
    debtorReference: null,
    bankTransactionCode: null,
    bankTransactionSubcode: null,
    proprietaryCode: null,
    balanceAfter: null,
    counterpartyAccount: null,
    rawJson: JSON.stringify({ TransactionId: id }),
    ...extra,
  };
}

export function everydayTransactions(): TransactionRow[] {
  const t = (spec: TxnSpec) => txn('PNZ', EVERYDAY, PNZ_CONSENT, spec);
  return [
    t({
      id: 'txn-20250303-0001',
      at: '2025-03-03T09:15:00+13:00',
      amount: '-142.50',
      valueDateTime: '2025-03-02T11:00:00.000Z',
      description: 'AP CITY POWER LTD',
      creditorName: 'CITY POWER LTD',
      debtorName: 'J SMITH',
      creditorParticulars: 'ACCT 5531',
      creditorCode: 'MAR',
      creditorReference: 'INV-2291',
      debtorParticulars: 'POWER',
      debtorReference: 'MAR25',
      bankTransactionCode: 'IssuedCreditTransfers',
      bankTransactionSubcode: 'AutomaticTransfer',
      proprietaryCode: 'AP',
      balanceAfter: '2315.07',
      counterpartyAccount: '12-3456-0765432-00',
    }),
    t({
      id: 'txn-20250301-0002',
      at: '2025-03-01T00:00:00+13:00',
      amount: '2500.00',
      description: 'SALARY "ACME", MARCH',
      debtorName: 'ACME LTD',
      creditorReference: 'PAY 03',
      proprietaryCode: 'DC',
      balanceAfter: '2457.57',
    }),
    t({
      id: 'txn-20250228-0003',
      at: '2025-02-28T23:59:59+13:00',
      amount: '-0.00125',
      description: 'FX micro fee',
      proprietaryCode: 'FEE',
    }),
    t({ id: 'txn-20250302-0004', at: '2025-03-02T12:00:00+13:00', amount: '0', description: 'Zero-value card check' }),
    t({
      id: 'txn-20250302-0005',
      at: '2025-03-02T13:30:00+13:00',
      amount: '-18.90',
      merchantName: 'Café & Bar <Ōtautahi> ☕',
      merchantCategoryCode: '5814',
      description: 'line one\nline two\r\nline three, with comma',
    }),
    t({
      id: 'txn-pend-7731',
      at: '2025-03-04T12:02:41+13:00',
      amount: '-18.9',
      status: 'Pending',
      merchantName: 'CORNER CAFE',
    }),
    ...HOSTILE.map((description, i) =>
      t({
        id: `txn-hostile-${i}`,
        at: `2025-02-2${i}T10:00:00+13:00`,
        amount: i % 2 ? '-5.00' : '5.00',
        description,
        merchantName: description,
      }),
    ),
  ];
}

/** Opens a fresh store in a temp directory and fills every view. */
export async function createFixtureStore(): Promise<FixtureStore> {
  const dir = mkdtempSync(join(tmpdir(), 'bankdata-export-'));
  const path = join(dir, 'bankdata.sqlite');
  const store = await openStore(path, { now: () => NOW });
  await store.consents.recordStatus(consent(PNZ_CONSENT, 'PNZ'));
  await store.consents.recordStatus(consent(ANZ_CONSENT, 'ANZ'));
  await store.consents.recordOutcome(PNZ_CONSENT, 'ok');

  await store.commitAccounts({
    bank: 'PNZ',
    consentId: PNZ_CONSENT,
    runId: null,
    rows: [
      account('PNZ', PNZ_CONSENT, EVERYDAY, {
        nickname: '=Bills',
        description: 'Everyday account',
        schemeName: 'BECSElectronicCredit',
        identification: '12-3456-0123456-00',
        accountName: 'J SMITH',
      }),
      account('PNZ', PNZ_CONSENT, CARD, {
        accountSubtype: 'CreditCard',
        schemeName: 'MaskedCardNumber',
        identification: '************1111',
      }),
    ],
  });
  // The same account id at a second bank (ids are unique per bank only), Basic permission.
  await store.commitAccounts({
    bank: 'ANZ',
    consentId: ANZ_CONSENT,
    runId: null,
    rows: [account('ANZ', ANZ_CONSENT, EVERYDAY, {})],
  });

  const balance = (type: string, amount: string, dateTime: string): BalanceRow => ({
    bank: 'PNZ' as const,
    accountId: EVERYDAY,
    consentId: PNZ_CONSENT,
    type,
    amount,
    amountMinor: Math.round(Number(amount) * 100),
    currency: 'NZD',
    creditDebitIndicator: amount.startsWith('-') ? 'Debit' : 'Credit',
    dateTime: new Date(dateTime).toISOString(),
    rawJson: '{}',
    fetchedAt: NOW.toISOString(),
  });
  await store.commitBalances({
    bank: 'PNZ',
    consentId: PNZ_CONSENT,
    accountId: EVERYDAY,
    runId: null,
    rows: [
      balance('ClosingBooked', '1890.12', '2025-02-28T23:59:59+13:00'),
      balance('InterimBooked', '2315.07', '2025-03-04T12:05:00+13:00'),
      balance('InterimAvailable', '2796.17', '2025-03-04T12:05:00+13:00'),
    ],
  });
  await store.commitBalances({
    bank: 'PNZ',
    consentId: PNZ_CONSENT,
    accountId: CARD,
    runId: null,
    rows: [{ ...balance('InterimBooked', '-312.40', '2025-03-04T12:05:00+13:00'), accountId: CARD }],
  });

  await store.commitTransactionWindow({
    bank: 'PNZ',
    accountId: EVERYDAY,
    consentId: PNZ_CONSENT,
    range: { from: '2025-02-01T00:00:00+13:00', to: '2025-03-05T00:00:00+13:00' },
    creditDebitFilter: null,
    rows: everydayTransactions(),
    checkpoint: null,
    runId: null,
  });
  await store.commitTransactionWindow({
    bank: 'PNZ',
    accountId: CARD,
    consentId: PNZ_CONSENT,
    range: { from: '2025-02-01T00:00:00+13:00', to: '2025-03-05T00:00:00+13:00' },
    creditDebitFilter: null,
    rows: [
      txn('PNZ', CARD, PNZ_CONSENT, {
        id: 'card-1',
        at: '2025-03-01T19:00:00+13:00',
        amount: '-312.40',
        merchantName: 'AIR NZ',
      }),
    ],
    checkpoint: null,
    runId: null,
  });
  await store.commitTransactionWindow({
    bank: 'ANZ',
    accountId: EVERYDAY,
    consentId: ANZ_CONSENT,
    range: { from: '2025-02-01T00:00:00+13:00', to: '2025-03-05T00:00:00+13:00' },
    creditDebitFilter: null,
    rows: [
      txn('ANZ', EVERYDAY, ANZ_CONSENT, { id: 'anz-1', at: '2025-03-02T08:00:00+13:00', amount: '99.99' }),
      // The credit that carries the payment below (v_payment_matches).
      txn('ANZ', EVERYDAY, ANZ_CONSENT, {
        id: 'pmt-1',
        at: '2025-03-03T10:01:00+13:00',
        amount: '42.50',
        creditorParticulars: '=INV-77',
        creditorReference: 'ORDER 77',
      }),
    ],
    checkpoint: null,
    runId: null,
  });

  await store.commitStatements({
    bank: 'PNZ',
    consentId: PNZ_CONSENT,
    accountId: EVERYDAY,
    runId: null,
    rows: [
      {
        bank: 'PNZ',
        accountId: EVERYDAY,
        statementId: 'stmt-2025-01' as StatementId,
        consentId: PNZ_CONSENT,
        type: 'RegularPeriodic',
        startDateTime: '2024-12-31T11:00:00.000Z',
        endDateTime: '2025-01-31T10:59:59.000Z',
        creationDateTime: '2025-02-01T00:00:00.000Z',
        reference: '-January',
        rawJson: '{}',
      },
      {
        bank: 'PNZ',
        accountId: EVERYDAY,
        statementId: 'stmt-2025-02' as StatementId,
        consentId: PNZ_CONSENT,
        type: 'RegularPeriodic',
        startDateTime: '2025-01-31T11:00:00.000Z',
        endDateTime: '2025-02-28T10:59:59.000Z',
        creationDateTime: '2025-03-01T00:00:00.000Z',
        reference: null,
        rawJson: '{}',
      },
    ],
  });
  await store.recordStatementFile(
    {
      bank: 'PNZ',
      accountId: EVERYDAY,
      statementId: 'stmt-2025-02' as StatementId,
      filePath: 'statements/PNZ/abc/def.pdf',
      contentType: 'application/pdf',
      sha256: 'a'.repeat(64),
      bytes: 20480,
    },
    { runId: null, consentId: PNZ_CONSENT },
  );

  const party = (accountId: AccountId | null, name: string) => ({
    bank: 'PNZ' as const,
    consentId: PNZ_CONSENT,
    accountId,
    partyId: `party-${accountId ?? 'customer'}` as PartyId,
    partyNumber: null,
    partyType: 'Sole',
    name,
    email: 'j.smith@example.nz',
    phone: null,
    mobile: '+64-211234567',
    address: '1 Queen Street, Auckland, 1010, NZ',
    rawJson: '{}',
  });
  await store.commitParty({
    bank: 'PNZ',
    consentId: PNZ_CONSENT,
    accountId: null,
    row: party(null, 'J SMITH'),
    runId: null,
  });
  await store.commitParty({
    bank: 'PNZ',
    consentId: PNZ_CONSENT,
    accountId: EVERYDAY,
    row: party(EVERYDAY, '@J Smith'),
    runId: null,
  });

  // A settled payment (Payments API) whose PCR starts like a formula, matched to pmt-1.
  await store.payments.record(
    Payment.parse({
      payment_id: PAYMENT_ID,
      consent_id: PAYMENT_CONSENT,
      status: 'AcceptedSettlementCompleted',
      creation_timestamp: '2025-03-03T10:00:00+13:00',
      status_updated_timestamp: '2025-03-03T10:01:00+13:00',
      amount: { total: '42.50', currency: 'NZD' },
      pcr: { particulars: '=INV-77', reference: 'ORDER 77' },
    }),
    NOW,
  );

  const runId = await store.runs.start({ runId: 'run-0001', now: new Date('2025-03-03T20:00:00.000Z') }); // 09:00 NZDT on 4 March
  await store.runs.finish(
    runId,
    {
      outcome: 'partial',
      consents: 2,
      requests: 57,
      rowsWritten: 14,
      failedUnits: 1,
      errorSummary: '-1 window failed: BDT263',
    },
    new Date('2025-03-03T20:01:30.000Z'),
  );
  await store.runs.start({ runId: 'run-0002', now: new Date('2025-03-04T11:30:00.000Z') }); // 00:30 NZDT on 5 March

  return {
    store,
    dir,
    path,
    async cleanup() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
