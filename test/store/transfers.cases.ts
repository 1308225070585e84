/**
 * Own-account transfers (docs/transfers.md) on both dialects from this one case list: each
 * criterion (same consent, whichever consent owns each account's row; same account party, a
 * configured group; opposite amounts in minor units, one currency, within the NZ days; a
 * counterparty account number or a reference that disagrees), a pair between two owners that must not link, an ambiguous case left unchosen, the
 * links replaced by the next matching, `--exclude-transfers` on an export and the report's money
 * in and out without them.
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Party, Transaction, type AccountId, type BankName, type ConsentId } from '@bankdata/core/schemas';
import type { Store } from '../../src/store';
import { exportDataset } from '../../src/export';
import { gatherReport } from '../../src/report/build-report';
import { refreshTransfers } from '../../src/transfers/refresh';
import { DEFAULT_TRANSFER_RULES, type TransferRules } from '../../src/transfers/match';
import { toAccountRow, toPartyRow, toTransactionRow } from '../../src/sync/transform';
import { execute, queryRows, storeSuite } from '../support/dialects';
import { CONSENT, NOW, OTHER_CONSENT, authorise, freshStoreOn } from './helpers';

interface AccountSpec {
  id: string;
  consent?: ConsentId;
  bank?: BankName;
  currency?: string;
  number?: string;
  party?: string;
}

interface TxSpec {
  account: string;
  id: string;
  /** Signed: credits positive. */
  amount: string;
  at: string;
  currency?: string;
  /** The other account's number as this row names it. */
  counterparty?: string;
  reference?: string;
}

const RANGE = { from: '2025-03-01T00:00:00+13:00', to: '2025-04-01T00:00:00+13:00' };

/** Accounts (each with its consent, bank, number and owner party) and their booked rows. */
async function world(store: Store, accounts: AccountSpec[], rows: TxSpec[]): Promise<void> {
  const of = new Map(accounts.map((a) => [a.id, a]));
  for (const a of accounts) {
    const bank = a.bank ?? 'PNZ';
    const consentId = a.consent ?? CONSENT;
    const ctx = { bank, consentId, fetchedAt: NOW };
    await store.commitAccounts({
      bank,
      consentId,
      rows: [
        toAccountRow(
          {
            AccountId: a.id as AccountId,
            Currency: a.currency ?? 'NZD',
            Nickname: a.id,
            ...(a.number ? { Account: { SchemeName: 'BECSElectronicCredit', Identification: a.number } } : {}),
          },
          ctx,
        ),
      ],
      runId: null,
    });
    if (a.party) {
      const party = Party.parse({ PartyId: a.party, PartyType: 'Sole', Name: 'Jane Smith' });
      await store.commitParty({
        bank,
        consentId,
        accountId: a.id as AccountId,
        row: toPartyRow(party, ctx, a.id as AccountId),
        runId: null,
      });
    }
  }
  for (const a of accounts) {
    const mine = rows.filter((r) => r.account === a.id);
    if (mine.length === 0) continue;
    const bank = a.bank ?? 'PNZ';
    const consentId = a.consent ?? CONSENT;
    await store.commitTransactionWindow({
      bank,
      accountId: a.id as AccountId,
      consentId,
      range: RANGE,
      creditDebitFilter: null,
      rows: mine.map((r) => {
        const credit = !r.amount.startsWith('-');
        const other = r.counterparty
          ? { SchemeName: 'BECSElectronicCredit', Identification: r.counterparty }
          : undefined;
        const pcr = r.reference ? { Particulars: 'TRANSFER', Reference: r.reference } : undefined;
        const wire = Transaction.parse({
          AccountId: a.id,
          TransactionId: r.id,
          Amount: { Amount: r.amount.replace('-', ''), Currency: r.currency ?? of.get(r.account)?.currency ?? 'NZD' },
          CreditDebitIndicator: credit ? 'Credit' : 'Debit',
          Status: 'Booked',
          BookingDateTime: r.at,
          TransactionInformation: credit ? 'TRANSFER FROM' : 'TRANSFER TO',
          ...(other ? (credit ? { DebtorAccount: other } : { CreditorAccount: other }) : {}),
          ...(pcr ? { TransactionReference: { CreditorName: 'J SMITH', CreditorReference: pcr } } : {}),
        });
        return toTransactionRow(wire, { bank, consentId, fetchedAt: NOW });
      }),
      checkpoint: null,
      runId: null,
      now: '2025-03-20T01:00:00Z',
    });
  }
}

/** Accounts as one consent's listing returns them (each stored under its first live consent). */
async function listed(store: Store, consentId: ConsentId, ids: string[]): Promise<void> {
  const ctx = { bank: 'PNZ' as const, consentId, fetchedAt: NOW };
  await store.commitAccounts({
    bank: 'PNZ',
    consentId,
    rows: ids.map((id) => toAccountRow({ AccountId: id as AccountId, Currency: 'NZD', Nickname: id }, ctx)),
    runId: null,
  });
}

/** One booked row of `accountId` as `consentId` fetched it. */
async function booked(store: Store, consentId: ConsentId, accountId: string, id: string, amount: string, at: string) {
  const credit = !amount.startsWith('-');
  const wire = Transaction.parse({
    AccountId: accountId,
    TransactionId: id,
    Amount: { Amount: amount.replace('-', ''), Currency: 'NZD' },
    CreditDebitIndicator: credit ? 'Credit' : 'Debit',
    Status: 'Booked',
    BookingDateTime: at,
  });
  await store.commitTransactionWindow({
    bank: 'PNZ',
    accountId: accountId as AccountId,
    consentId,
    range: RANGE,
    creditDebitFilter: null,
    rows: [toTransactionRow(wire, { bank: 'PNZ', consentId, fetchedAt: NOW })],
    checkpoint: null,
    runId: null,
    now: '2025-03-20T01:00:00Z',
  });
}

const rules = (over: Partial<TransferRules> = {}): TransferRules => ({ ...DEFAULT_TRANSFER_RULES, ...over });

/** The linked pairs as "debit-id>credit-id". */
async function pairs(store: Store): Promise<string[]> {
  return (await store.transfers.list('linked')).map((r) => `${r.debit_transaction_id}>${r.credit_transaction_id}`);
}

async function ambiguous(store: Store): Promise<string[]> {
  return (await store.transfers.list('ambiguous')).map((r) => `${r.debit_transaction_id}>${r.credit_transaction_id}`);
}

/** Two accounts of one consent and a debit of 100.00 from the first on 10 March. */
const TWO = [
  { id: 'everyday', number: '12-3456-0000001-00' },
  { id: 'savings', number: '12-3456-0000002-00' },
];
const OUT = { account: 'everyday', id: 'out-1', amount: '-100.00', at: '2025-03-10T09:00:00+13:00' };

export const transfersSuite = storeSuite('own-account transfers', (d) => {
  describe('owner', () => {
    it('links a debit and the credit of the same amount in another account of the same consent, with both sides and the evidence', async () => {
      const store = await freshStoreOn(d);
      await world(store, TWO, [
        OUT,
        { account: 'savings', id: 'in-1', amount: '100.00', at: '2025-03-10T09:00:05+13:00' },
      ]);
      expect(await refreshTransfers(store, rules())).toMatchObject({ pairs: 1, ambiguous: 0 });
      const rows = await queryRows(store, 'SELECT * FROM v_transfers');
      expect(rows).toEqual([
        {
          debit_bank: 'PNZ',
          debit_account_id: 'everyday',
          debit_transaction_id: 'out-1',
          debit_booking_date: '2025-03-10',
          debit_amount: -100,
          credit_bank: 'PNZ',
          credit_account_id: 'savings',
          credit_transaction_id: 'in-1',
          credit_booking_date: '2025-03-10',
          credit_amount: 100,
          currency: 'NZD',
          amount_minor: 10000,
          days_apart: 0,
          same_consent: 1,
          same_party: 0,
          owner_group: null,
          counterparty_sides: 0,
          reference_agrees: 0,
          score: 31,
          linked_at: NOW.toISOString(),
          debit_amount_text: '-100.00',
          credit_amount_text: '100.00',
        },
      ]);
      expect(await queryRows(store, 'SELECT count(*) AS n FROM v_transfer_ambiguities')).toEqual([{ n: 0 }]);
    });

    it('links accounts of two consents whose owner is one account party at the bank', async () => {
      const store = await freshStoreOn(d);
      await world(
        store,
        [
          { id: 'everyday', party: 'pty-1' },
          { id: 'savings', consent: OTHER_CONSENT, party: 'pty-1' },
        ],
        [OUT, { account: 'savings', id: 'in-1', amount: '100.00', at: '2025-03-10T10:00:00+13:00' }],
      );
      await refreshTransfers(store, rules());
      expect(await pairs(store)).toEqual(['out-1>in-1']);
      expect(await queryRows(store, 'SELECT same_consent, same_party, owner_group FROM v_transfers')).toEqual([
        { same_consent: 0, same_party: 1, owner_group: null },
      ]);
    });

    it('links accounts of two banks that a configured group names (by account number or BANK/ACCOUNT_ID), and not without it', async () => {
      const store = await freshStoreOn(d);
      await world(
        store,
        [
          { id: 'everyday', number: '12-3456-0000001-00', party: 'pty-1' },
          {
            id: 'kiwi-savings',
            bank: 'Kiwibank',
            consent: OTHER_CONSENT,
            number: '38-9000-0000009-00',
            party: 'pty-1',
          },
        ],
        [OUT, { account: 'kiwi-savings', id: 'in-1', amount: '100.00', at: '2025-03-11T08:00:00+13:00' }],
      );
      // Not one consent, and a PartyId names an owner at its own bank only: two owners as far as the data shows.
      await refreshTransfers(store, rules());
      expect(await pairs(store)).toEqual([]);
      expect(await ambiguous(store)).toEqual([]);

      const matching = await refreshTransfers(
        store,
        rules({ groups: { household: ['12 3456 0000001 00', 'kiwibank/kiwi-savings', '01-0000-0000000-00'] } }),
      );
      expect(await pairs(store)).toEqual(['out-1>in-1']);
      expect(
        await queryRows(store, 'SELECT same_consent, same_party, owner_group, days_apart FROM v_transfers'),
      ).toEqual([{ same_consent: 0, same_party: 0, owner_group: 'household', days_apart: 1 }]);
      expect(matching.unknownGroupEntries).toEqual([{ group: 'household', entry: '01-0000-0000000-00' }]);
    });

    it('a group entry names the account whose number it is, whatever its suffix width (00 is 000)', async () => {
      const store = await freshStoreOn(d);
      await world(
        store,
        [
          { id: 'everyday', number: '12-3456-0000001-00' },
          { id: 'kiwi-savings', bank: 'Kiwibank', consent: OTHER_CONSENT, number: '38-9000-0000009-000' },
        ],
        [OUT, { account: 'kiwi-savings', id: 'in-1', amount: '100.00', at: '2025-03-10T12:00:00+13:00' }],
      );
      const matching = await refreshTransfers(
        store,
        rules({ groups: { household: ['12-3456-0000001-000', '38-9000-0000009-00', '38-9000-0000009-001'] } }),
      );
      expect(await pairs(store)).toEqual(['out-1>in-1']);
      expect(await queryRows(store, 'SELECT owner_group FROM v_transfers')).toEqual([{ owner_group: 'household' }]);
      // Suffix 001 is another account: named by no stored one.
      expect(matching.unknownGroupEntries).toEqual([{ group: 'household', entry: '38-9000-0000009-001' }]);
    });

    it('links two accounts one consent returned both of, when another live consent read one of them first', async () => {
      const store = await freshStoreOn(d);
      await authorise(store, CONSENT);
      await authorise(store, OTHER_CONSENT);
      // everyday's row stays CONSENT's (its first live reader); OTHER_CONSENT returned both accounts.
      await listed(store, CONSENT, ['everyday']);
      await listed(store, OTHER_CONSENT, ['everyday', 'savings']);
      await booked(store, OTHER_CONSENT, 'everyday', 'out-1', '-100.00', '2025-03-10T09:00:00+13:00');
      await booked(store, OTHER_CONSENT, 'savings', 'in-1', '100.00', '2025-03-10T09:00:05+13:00');
      const result = await refreshTransfers(store, DEFAULT_TRANSFER_RULES);
      expect(result.links.map((l) => `${l.status} ${l.debit.transactionId}>${l.credit.transactionId}`)).toEqual([
        'linked out-1>in-1',
      ]);
      expect(await queryRows(store, 'SELECT same_consent, same_party, owner_group FROM v_transfers')).toEqual([
        { same_consent: 1, same_party: 0, owner_group: null },
      ]);
      // An ended consent still proves what it returned; a forgotten one proves nothing (its rows are gone).
      await store.consents.markEnded(OTHER_CONSENT, 'revoked');
      expect((await refreshTransfers(store, DEFAULT_TRANSFER_RULES)).pairs).toBe(1);
      await store.consents.forget(OTHER_CONSENT, { dryRun: false });
      expect(await refreshTransfers(store, DEFAULT_TRANSFER_RULES)).toMatchObject({ pairs: 0, ambiguous: 0 });
    });

    it('never links accounts of two owners: another consent, another party, no group', async () => {
      const store = await freshStoreOn(d);
      await world(
        store,
        [
          { id: 'everyday', party: 'pty-1' },
          { id: 'neighbour', consent: OTHER_CONSENT, party: 'pty-2' },
        ],
        [OUT, { account: 'neighbour', id: 'in-1', amount: '100.00', at: '2025-03-10T09:00:05+13:00' }],
      );
      expect(await refreshTransfers(store, rules())).toMatchObject({ pairs: 0, ambiguous: 0 });
      expect(await queryRows(store, 'SELECT count(*) AS n FROM transfer_links')).toEqual([{ n: 0 }]);
    });
  });

  describe('amounts, currency and days', () => {
    it('pairs opposite amounts equal in minor units only: not 100.01, not two debits', async () => {
      const store = await freshStoreOn(d);
      await world(
        store,
        [...TWO, { id: 'third' }],
        [
          OUT,
          { account: 'savings', id: 'in-cent-more', amount: '100.01', at: '2025-03-10T09:00:00+13:00' },
          { account: 'third', id: 'out-same', amount: '-100.00', at: '2025-03-10T09:00:00+13:00' },
          { account: 'everyday', id: 'out-2', amount: '-42.5', at: '2025-03-12T09:00:00+13:00' },
          { account: 'savings', id: 'in-2', amount: '42.50', at: '2025-03-12T09:00:00+13:00' },
        ],
      );
      await refreshTransfers(store, rules());
      // "42.5" and "42.50" are one amount: 4250 minor units.
      expect(await pairs(store)).toEqual(['out-2>in-2']);
    });

    it('needs one currency', async () => {
      const store = await freshStoreOn(d);
      await world(
        store,
        [TWO[0]!, { id: 'wallet', currency: 'AUD' }],
        [OUT, { account: 'wallet', id: 'in-aud', amount: '100.00', at: '2025-03-10T09:00:00+13:00', currency: 'AUD' }],
      );
      await refreshTransfers(store, rules());
      expect(await pairs(store)).toEqual([]);
      expect(await ambiguous(store)).toEqual([]);
    });

    it('counts NZ days between the booking dates: 3 NZ days (4 UTC dates) pair, 4 NZ days do not, and transfers.maxDays moves the limit', async () => {
      const store = await freshStoreOn(d);
      await world(
        store,
        [...TWO, { id: 'third' }, { id: 'fourth' }],
        [
          // 00:30 NZDT on 10 March is 9 March in UTC; 23:00 on 13 March is 13 March in UTC.
          { account: 'everyday', id: 'out-a', amount: '-70.00', at: '2025-03-10T00:30:00+13:00' },
          { account: 'savings', id: 'in-a', amount: '70.00', at: '2025-03-13T23:00:00+13:00' },
          { account: 'third', id: 'out-b', amount: '-80.00', at: '2025-03-10T12:00:00+13:00' },
          { account: 'fourth', id: 'in-b', amount: '80.00', at: '2025-03-14T12:00:00+13:00' },
        ],
      );
      await refreshTransfers(store, rules());
      expect(await pairs(store)).toEqual(['out-a>in-a']);
      expect(await queryRows(store, 'SELECT days_apart FROM v_transfers')).toEqual([{ days_apart: 3 }]);
      await refreshTransfers(store, rules({ maxDays: 4 }));
      expect(await pairs(store)).toEqual(['out-a>in-a', 'out-b>in-b']);
      await refreshTransfers(store, rules({ maxDays: 0 }));
      expect(await pairs(store)).toEqual([]);
    });
  });

  describe('what the bank says of the other side', () => {
    it('does not pair when a counterparty account number names another account; counts each side that names this one', async () => {
      const store = await freshStoreOn(d);
      await world(
        store,
        [...TWO, { id: 'third', number: '12-3456-0000003-00' }, { id: 'fourth', number: '12-3456-0000004-00' }],
        [
          { ...OUT, counterparty: '12-3456-0000099-00' },
          { account: 'savings', id: 'in-1', amount: '100.00', at: '2025-03-10T09:00:00+13:00' },
          {
            account: 'third',
            id: 'out-2',
            amount: '-60.00',
            at: '2025-03-11T09:00:00+13:00',
            counterparty: '123456000000400',
          },
          {
            account: 'fourth',
            id: 'in-2',
            amount: '60.00',
            at: '2025-03-11T09:00:00+13:00',
            counterparty: '12-3456-0000003-00',
          },
        ],
      );
      await refreshTransfers(store, rules());
      expect(await pairs(store)).toEqual(['out-2>in-2']);
      expect(await queryRows(store, 'SELECT counterparty_sides, score FROM v_transfers')).toEqual([
        { counterparty_sides: 2, score: 2031 },
      ]);
    });

    it('reads a counterparty account number as one number: a 2-digit suffix is its 3-digit form (00 is 000), dashes and spaces aside', async () => {
      const store = await freshStoreOn(d);
      await world(store, TWO, [
        // The debit names savings (12-3456-0000002-00) with a 3-digit suffix; the credit names
        // everyday (12-3456-0000001-00) with spaces and a 3-digit suffix: both sides name the other.
        { ...OUT, counterparty: '12-3456-0000002-000' },
        {
          account: 'savings',
          id: 'in-1',
          amount: '100.00',
          at: '2025-03-10T09:00:00+13:00',
          counterparty: '12 3456 0000001 000',
        },
      ]);
      await refreshTransfers(store, rules());
      expect(await pairs(store)).toEqual(['out-1>in-1']);
      expect(await queryRows(store, 'SELECT counterparty_sides, score FROM v_transfers')).toEqual([
        { counterparty_sides: 2, score: 2031 },
      ]);
    });

    it('a different suffix is another account: 001 is not 000, 10 is not 100', async () => {
      const store = await freshStoreOn(d);
      await world(
        store,
        [...TWO, { id: 'third', number: '12-3456-0000003-10' }, { id: 'fourth', number: '12-3456-0000004-100' }],
        [
          { ...OUT, counterparty: '12-3456-0000002-001' },
          { account: 'savings', id: 'in-1', amount: '100.00', at: '2025-03-10T09:00:00+13:00' },
          {
            account: 'third',
            id: 'out-2',
            amount: '-60.00',
            at: '2025-03-11T09:00:00+13:00',
            counterparty: '12-3456-0000004-010',
          },
          { account: 'fourth', id: 'in-2', amount: '60.00', at: '2025-03-11T09:00:00+13:00' },
        ],
      );
      await refreshTransfers(store, rules());
      expect(await pairs(store)).toEqual([]);
      expect(await ambiguous(store)).toEqual([]);
    });

    it('does not pair when the references both sides carry differ (case and spaces aside)', async () => {
      const store = await freshStoreOn(d);
      await world(
        store,
        [...TWO, { id: 'third' }, { id: 'fourth' }],
        [
          { ...OUT, reference: 'RENT' },
          { account: 'savings', id: 'in-1', amount: '100.00', at: '2025-03-10T09:00:00+13:00', reference: 'HOLIDAY' },
          { account: 'third', id: 'out-2', amount: '-60.00', at: '2025-03-11T09:00:00+13:00', reference: 'bills ' },
          { account: 'fourth', id: 'in-2', amount: '60.00', at: '2025-03-11T09:00:00+13:00', reference: 'BILLS' },
        ],
      );
      await refreshTransfers(store, rules());
      expect(await pairs(store)).toEqual(['out-2>in-2']);
      expect(await queryRows(store, 'SELECT reference_agrees FROM v_transfers')).toEqual([{ reference_agrees: 1 }]);
    });
  });

  describe('ties', () => {
    it('links none of two equally good candidates and lists both as ambiguous', async () => {
      const store = await freshStoreOn(d);
      await world(
        store,
        [...TWO, { id: 'third' }],
        [
          OUT,
          { account: 'savings', id: 'in-s', amount: '100.00', at: '2025-03-10T12:00:00+13:00' },
          { account: 'third', id: 'in-t', amount: '100.00', at: '2025-03-10T15:00:00+13:00' },
        ],
      );
      expect(await refreshTransfers(store, rules())).toMatchObject({ pairs: 0, ambiguous: 2 });
      expect(await pairs(store)).toEqual([]);
      expect(await ambiguous(store)).toEqual(['out-1>in-s', 'out-1>in-t']);
      expect(
        await queryRows(
          store,
          'SELECT credit_account_id, credit_amount_text, score FROM v_transfer_ambiguities ORDER BY credit_account_id',
        ),
      ).toEqual([
        { credit_account_id: 'savings', credit_amount_text: '100.00', score: 31 },
        { credit_account_id: 'third', credit_amount_text: '100.00', score: 31 },
      ]);
    });

    it('does not list as ambiguous a pair outranked on one side: the debit linked to a closer credit', async () => {
      const store = await freshStoreOn(d);
      // D1 and C1 the same day (31); C2 two days after D1 (29); D2 two days after C2 (29) and
      // four after C1 (no candidate). D1 links C1; D1>C2 is outranked at D1, only D2>C2 ties.
      await world(
        store,
        [{ id: 'everyday' }, { id: 'savings' }, { id: 'cards' }, { id: 'other' }],
        [
          { account: 'everyday', id: 'D1', amount: '-100.00', at: '2025-03-10T09:00:00+13:00' },
          { account: 'savings', id: 'C1', amount: '100.00', at: '2025-03-10T09:00:05+13:00' },
          { account: 'cards', id: 'C2', amount: '100.00', at: '2025-03-12T09:00:00+13:00' },
          { account: 'other', id: 'D2', amount: '-100.00', at: '2025-03-14T09:00:00+13:00' },
        ],
      );
      expect(await refreshTransfers(store, rules())).toMatchObject({ pairs: 1, ambiguous: 1 });
      expect(await pairs(store)).toEqual(['D1>C1']);
      expect(await ambiguous(store)).toEqual(['D2>C2']);
    });

    it('leaves out a row the check suspects the bank served twice: its twin links, not a tie', async () => {
      const store = await freshStoreOn(d);
      await world(store, TWO, [
        OUT,
        { ...OUT, id: 'out-1-dup' },
        { account: 'savings', id: 'in-s', amount: '100.00', at: '2025-03-10T12:00:00+13:00' },
      ]);
      expect(await refreshTransfers(store, rules())).toMatchObject({ pairs: 0, ambiguous: 2 });
      const at = '2025-03-12T00:00:00.000Z';
      await execute(
        store,
        `INSERT INTO duplicate_suspicions (bank, account_id, transaction_id, twin_transaction_id, evidence, balance,
           balance_date_time, balance_date, counted_balance, amount_off, currency, detail, suspected_at, checked_at)
         VALUES ('PNZ', 'everyday', 'out-1-dup', 'out-1', 'balances', '0.00', ?, '2025-03-12', '-100.00', '100.00',
           'NZD', 'planted', ?, ?)`,
        at,
        at,
        at,
      );
      expect(await refreshTransfers(store, rules())).toMatchObject({ pairs: 1, ambiguous: 0 });
      expect(await pairs(store)).toEqual(['out-1>in-s']);
    });

    it('takes the candidate with more evidence (a side naming the other account, a closer day) over the rest', async () => {
      const store = await freshStoreOn(d);
      await world(
        store,
        [...TWO, { id: 'third' }],
        [
          OUT,
          {
            account: 'savings',
            id: 'in-s',
            amount: '100.00',
            at: '2025-03-11T12:00:00+13:00',
            counterparty: '12-3456-0000001-00',
          },
          { account: 'third', id: 'in-t', amount: '100.00', at: '2025-03-10T15:00:00+13:00' },
        ],
      );
      await refreshTransfers(store, rules());
      expect(await pairs(store)).toEqual(['out-1>in-s']);
      expect(await ambiguous(store)).toEqual([]);
    });

    it('replaces the links whole at each matching', async () => {
      const store = await freshStoreOn(d);
      await world(store, TWO, [
        OUT,
        { account: 'savings', id: 'in-1', amount: '100.00', at: '2025-03-10T09:00:00+13:00' },
      ]);
      await refreshTransfers(store, rules());
      await refreshTransfers(store, rules());
      expect(await queryRows(store, 'SELECT count(*) AS n FROM transfer_links')).toEqual([{ n: 1 }]);
      await refreshTransfers(store, rules({ maxDays: 0 }));
      expect(await pairs(store)).toEqual(['out-1>in-1']);
    });
  });

  describe('consumers', () => {
    async function linkedWorld(store: Store): Promise<void> {
      await world(
        store,
        [...TWO, { id: 'third' }],
        [
          OUT,
          {
            account: 'savings',
            id: 'in-1',
            amount: '100.00',
            at: '2025-03-10T09:30:00+13:00',
            counterparty: '12-3456-0000001-00',
          },
          { account: 'everyday', id: 'salary', amount: '2500.00', at: '2025-03-12T09:00:00+13:00' },
          { account: 'everyday', id: 'rent', amount: '-650.00', at: '2025-03-13T09:00:00+13:00' },
          // Ambiguous: left in the export and in money in and out.
          { account: 'savings', id: 'out-s', amount: '-20.00', at: '2025-03-15T09:00:00+13:00' },
          { account: 'everyday', id: 'in-e', amount: '20.00', at: '2025-03-15T10:00:00+13:00' },
          { account: 'third', id: 'in-t', amount: '20.00', at: '2025-03-15T10:00:00+13:00' },
        ],
      );
      await refreshTransfers(store, rules());
    }

    async function csv(store: Store, excludeTransfers: boolean): Promise<string[]> {
      let text = '';
      const sink = new Writable({
        write(chunk: Buffer, _encoding, done) {
          text += chunk.toString('utf8');
          done();
        },
      });
      await exportDataset(store, {
        dataset: 'transactions',
        format: 'csv',
        out: '-',
        stdout: sink,
        filters: { excludeTransfers },
      });
      const lines = text.trim().split(/\r\n/);
      const id = lines[0]!.split(',').indexOf('transaction_id');
      return lines.slice(1).map((line) => line.split(',')[id]!);
    }

    it('--exclude-transfers leaves both sides of a linked pair out of the export and keeps ambiguous ones', async () => {
      const store = await freshStoreOn(d);
      await linkedWorld(store);
      expect(await pairs(store)).toEqual(['out-1>in-1']);
      expect((await csv(store, false)).sort()).toEqual(['in-1', 'in-e', 'in-t', 'out-1', 'out-s', 'rent', 'salary']);
      expect((await csv(store, true)).sort()).toEqual(['in-e', 'in-t', 'out-s', 'rent', 'salary']);
    });

    it("the report's money in and out leaves linked transfers out and says how much; the balance line keeps them", async () => {
      const store = await freshStoreOn(d);
      await linkedWorld(store);
      const report = await gatherReport(store, { now: NOW });
      const everyday = report.accounts.find((a) => a.account.accountId === 'everyday')!;
      const savings = report.accounts.find((a) => a.account.accountId === 'savings')!;
      // 2500 + 20 in; 650 out (the 100 moved to savings left out). Units of 1/100000.
      expect(everyday.totals).toEqual({ inUnits: 252_000_000n, outUnits: -65_000_000n });
      expect(everyday.transfers).toEqual({ inUnits: 0n, outUnits: -10_000_000n });
      expect(savings.totals).toEqual({ inUnits: 0n, outUnits: -2_000_000n });
      expect(savings.transfers).toEqual({ inUnits: 10_000_000n, outUnits: 0n });
      // No balance stated: the line is movement from zero, the 100 moved in included.
      expect(savings.balances).toEqual([
        { date: '2025-03-10', units: 10_000_000n },
        { date: '2025-03-15', units: 8_000_000n },
      ]);
    });
  });
});
