/**
 * The lean check of Transaction records (packages/core/src/lean-records.ts) against the zod schema
 * it stands in for: it accepts only what zod accepts, with zod's exact output, and every record it
 * does not accept still meets zod, which rejects it with the same reason as before.
 */
import { describe, expect, it } from 'vitest';
import { leanTransaction } from '@bankdata/core/lean-records';
import { Transaction } from '@bankdata/core/schemas';
import { generateWorld } from '@bankdata/emulator/world';
import { DateTime } from 'luxon';
import { formatIssues, parseListPage } from '../../src/api/parse';
import type { HttpAnswer } from '../../src/api/http';

const BASE = {
  AccountId: 'acc-0001',
  TransactionId: 'txn-0001',
  TransactionReference: {
    CreditorName: 'Countdown',
    CreditorReference: { Particulars: 'groceries', Code: 'C1', Reference: 'R1' },
    DebtorName: 'J Smith',
    DebtorReference: { Particulars: 'p', Code: 'c', Reference: 'r' },
  },
  StatementReference: ['S1'],
  AddressLine: '1 Queen St',
  Amount: { Amount: '12.50', Currency: 'NZD' },
  CreditDebitIndicator: 'Debit',
  Status: 'Booked',
  BookingDateTime: '2025-03-03T09:15:00+13:00',
  ValueDateTime: '2025-03-03T09:15:00.123+13:00',
  TransactionInformation: 'COUNTDOWN AUCKLAND',
  BankTransactionCode: { Code: 'POS', SubCode: 'EFTPOS' },
  ProprietaryBankTransactionCode: { Code: 'EFT', Issuer: 'BNZ' },
  Balance: { Amount: { Amount: '100.00', Currency: 'NZD' }, CreditDebitIndicator: 'Credit', Type: 'InterimBooked' },
  CreditorAgent: { SchemeName: 'BICFI', Identification: 'BKNZNZ22' },
  DebtorAgent: { SchemeName: 'BICFI', Identification: 'ANZBNZ22' },
  CreditorAccount: { SchemeName: 'BECSElectronicCredit', Identification: '02-0100-0123456-00', Name: 'Countdown' },
  DebtorAccount: {
    SchemeName: 'BECSElectronicCredit',
    Identification: '01-0100-0123456-00',
    SecondaryIdentification: 'x',
  },
  CardInstrument: { CardSchemeName: 'VISA', AuthorisationType: 'Contactless', Name: 'J SMITH', Identification: '1234' },
  MerchantDetails: { MerchantName: 'Countdown', MerchantCategoryCode: '5411' },
};

type Raw = Record<string, unknown>;
const DELETE = Symbol('delete');
/** A copy of `record` with the value at `path` replaced (deleted for DELETE); null when a parent is absent. */
function withValue(record: Raw, path: string, value: unknown): Raw | null {
  const raw = structuredClone(record);
  const keys = path.split('.');
  let at: unknown = raw;
  for (const key of keys.slice(0, -1)) {
    at = (at as Raw)[key];
    if (typeof at !== 'object' || at === null) return null;
  }
  const last = keys.at(-1)!;
  if (value === DELETE) delete (at as Raw)[last];
  else (at as Raw)[last] = value;
  return raw;
}

/** One rule of the schema broken per row: the path changed and its new value. */
const BAD_FIELDS: [string, string, unknown][] = [
  ['AccountId missing', 'AccountId', DELETE],
  ['AccountId empty', 'AccountId', ''],
  ['AccountId of 41 characters', 'AccountId', 'a'.repeat(41)],
  ['AccountId a number', 'AccountId', 1],
  ['TransactionId missing', 'TransactionId', DELETE],
  ['TransactionId of 41 characters', 'TransactionId', 't'.repeat(41)],
  ['Amount missing', 'Amount', DELETE],
  ['Amount not an object', 'Amount', '12.50'],
  ['Amount.Amount negative', 'Amount.Amount', '-12.50'],
  ['Amount.Amount with 6 decimals', 'Amount.Amount', '1.123456'],
  ['Amount.Amount with 14 integer digits', 'Amount.Amount', '12345678901234'],
  ['Amount.Amount a number', 'Amount.Amount', 12.5],
  ['Amount.Currency lower case', 'Amount.Currency', 'nzd'],
  ['Amount.Currency missing', 'Amount.Currency', DELETE],
  ['CreditDebitIndicator lower case', 'CreditDebitIndicator', 'debit'],
  ['Status unknown', 'Status', 'Posted'],
  ['Status missing', 'Status', DELETE],
  ['BookingDateTime missing', 'BookingDateTime', DELETE],
  ['BookingDateTime without seconds', 'BookingDateTime', '2025-03-03T09:15+13:00'],
  ['BookingDateTime without offset', 'BookingDateTime', '2025-03-03T09:15:00'],
  ['BookingDateTime 30 February', 'BookingDateTime', '2025-02-30T09:15:00Z'],
  ['BookingDateTime month 13', 'BookingDateTime', '2025-13-01T09:15:00Z'],
  ['BookingDateTime hour 24', 'BookingDateTime', '2025-03-03T24:15:00Z'],
  ['ValueDateTime a date only', 'ValueDateTime', '2025-03-03'],
  ['ValueDateTime null', 'ValueDateTime', null],
  ['TransactionInformation empty', 'TransactionInformation', ''],
  ['TransactionInformation of 501 characters', 'TransactionInformation', 'x'.repeat(501)],
  ['TransactionReference not an object', 'TransactionReference', 'ref'],
  ['TransactionReference.CreditorName missing', 'TransactionReference.CreditorName', DELETE],
  ['TransactionReference.CreditorName of 21 characters', 'TransactionReference.CreditorName', 'c'.repeat(21)],
  ['TransactionReference.DebtorName of 21 characters', 'TransactionReference.DebtorName', 'd'.repeat(21)],
  ['CreditorReference.Code of 13 characters', 'TransactionReference.CreditorReference.Code', 'c'.repeat(13)],
  ['DebtorReference.Reference a number', 'TransactionReference.DebtorReference.Reference', 1],
  ['DebtorReference an array', 'TransactionReference.DebtorReference', []],
  ['StatementReference not an array', 'StatementReference', 'S1'],
  ['StatementReference with an empty item', 'StatementReference', ['S1', '']],
  ['StatementReference with an item of 36 characters', 'StatementReference', ['s'.repeat(36)]],
  ['AddressLine of 71 characters', 'AddressLine', 'a'.repeat(71)],
  ['BankTransactionCode.SubCode missing', 'BankTransactionCode.SubCode', DELETE],
  ['BankTransactionCode.Code a number', 'BankTransactionCode.Code', 1],
  ['ProprietaryBankTransactionCode.Code empty', 'ProprietaryBankTransactionCode.Code', ''],
  ['ProprietaryBankTransactionCode.Issuer of 36', 'ProprietaryBankTransactionCode.Issuer', 'i'.repeat(36)],
  ['Balance.Type unknown', 'Balance.Type', 'Closing'],
  ['Balance.Amount.Amount with a sign', 'Balance.Amount.Amount', '+1.00'],
  ['Balance.CreditDebitIndicator missing', 'Balance.CreditDebitIndicator', DELETE],
  ['CreditorAgent.SchemeName not BICFI', 'CreditorAgent.SchemeName', 'BIC'],
  ['DebtorAgent.Identification of 36', 'DebtorAgent.Identification', 'b'.repeat(36)],
  ['CreditorAccount.SchemeName unknown', 'CreditorAccount.SchemeName', 'IBAN'],
  ['CreditorAccount.Identification of 35', 'CreditorAccount.Identification', '0'.repeat(35)],
  ['DebtorAccount.Name empty', 'DebtorAccount.Name', ''],
  ['DebtorAccount.SecondaryIdentification of 35', 'DebtorAccount.SecondaryIdentification', 's'.repeat(35)],
  ['CardInstrument.CardSchemeName in other case', 'CardInstrument.CardSchemeName', 'Visa'],
  ['CardInstrument.AuthorisationType unknown', 'CardInstrument.AuthorisationType', 'Chip'],
  ['CardInstrument.Identification of 35', 'CardInstrument.Identification', '1'.repeat(35)],
  ['MerchantDetails.MerchantCategoryCode of 2', 'MerchantDetails.MerchantCategoryCode', '54'],
  ['MerchantDetails.MerchantName of 351', 'MerchantDetails.MerchantName', 'm'.repeat(351)],
  ['MerchantDetails not an object', 'MerchantDetails', 'Countdown'],
  ['CurrencyExchange.ExchangeRate a string', 'CurrencyExchange', { SourceCurrency: 'USD', ExchangeRate: '1.6' }],
];

/** Records the schema refuses, each a copy of BASE with one rule broken, and values that are no record. */
const BAD: [string, unknown][] = [
  ['not an object', 'txn'],
  ['null', null],
  ['an array', [BASE]],
  ...BAD_FIELDS.map(([label, path, value]): [string, unknown] => [label, withValue(BASE, path, value)]),
];

/** Records the schema accepts that the lean check leaves to zod (its output must still be zod's). */
const LEFT_TO_ZOD: [string, Raw][] = [
  ['a CurrencyExchange', withValue(BASE, 'CurrencyExchange', { SourceCurrency: 'USD', ExchangeRate: 1.6 })!],
  // An hour 24 luxon accepts as the next day's midnight: not the common shape, so luxon judges it.
  ['an offset past 18 hours, which luxon accepts', withValue(BASE, 'BookingDateTime', '2025-03-03T09:15:00+25:00')!],
  ['a key present with the value undefined', withValue(BASE, 'ValueDateTime', undefined)!],
  ['a date-time only luxon judges', withValue(BASE, 'BookingDateTime', '2025-03-03T24:00:00Z')!],
];

const page = (records: unknown[]): HttpAnswer => ({
  status: 200,
  headers: { 'content-type': 'application/json' },
  requestId: null,
  path: '/v1/accounts/acc-0001/transactions',
  body: Buffer.from(
    JSON.stringify({
      Data: { Transaction: records },
      Links: { Self: 'https://bank.example/v1/accounts/acc-0001/transactions' },
      Meta: {},
    }),
  ),
});

describe('the lean Transaction check', () => {
  it("accepts a record with every field zod knows, with zod's output (keys, order, unknown keys dropped)", () => {
    const raw = { ...structuredClone(BASE), Unknown: 1, Amount: { Amount: '12.50', Currency: 'NZD', Extra: true } };
    const lean = leanTransaction(raw);
    expect(lean).not.toBeNull();
    expect(JSON.stringify(lean)).toBe(JSON.stringify(Transaction.parse(raw)));
  });

  it.each(BAD)("rejects %s, as zod does, and the page keeps it aside with zod's reason", (_, raw) => {
    expect(leanTransaction(raw)).toBeNull();
    const zod = Transaction.safeParse(raw);
    expect(zod.success).toBe(false);
    const parsed = parseListPage('Transaction', page([BASE, raw]));
    expect(parsed.records).toHaveLength(1);
    expect(parsed.rejects).toEqual([
      { resource: 'Transaction', reason: formatIssues(zod.error!), raw: JSON.parse(JSON.stringify(raw)) },
    ]);
  });

  it.each(LEFT_TO_ZOD)('leaves %s to zod, which accepts it', (_, raw) => {
    expect(leanTransaction(raw)).toBeNull();
    expect(Transaction.safeParse(raw).success).toBe(true);
    expect(parseListPage('Transaction', page([raw])).records).toEqual([Transaction.parse(raw)]);
  });

  it('agrees with zod on every transaction of a generated world and on each bad rule applied to some of them', () => {
    const at = DateTime.fromISO('2026-03-10T10:00:00+13:00', { setZone: true }).toUTC();
    const world = generateWorld({ seed: 3, start: at, banks: ['ANZ', 'BNZ', 'Kiwibank'], customersPerBank: 2 });
    let records = 0;
    let lean = 0;
    for (const account of world.accounts.values()) {
      for (const tx of world.transactionsAt(account.bank, account.account.AccountId, at)) {
        const raw = JSON.parse(JSON.stringify(tx)) as Raw;
        records += 1;
        const fast = leanTransaction(raw);
        const zod = Transaction.safeParse(raw);
        expect(zod.success).toBe(true);
        if (fast !== null) {
          lean += 1;
          expect(JSON.stringify(fast)).toBe(JSON.stringify(zod.data));
        } else {
          expect(raw).toHaveProperty('CurrencyExchange');
        }
        // Every 50th record of the world broken by each rule of the table, one at a time.
        if (records % 50 !== 0) continue;
        for (const [, path, value] of BAD_FIELDS) {
          const broken = withValue(raw, path, value);
          if (broken === null) continue;
          const decided = leanTransaction(broken);
          const judged = Transaction.safeParse(broken);
          if (decided !== null) {
            expect(judged.success).toBe(true);
            expect(JSON.stringify(decided)).toBe(JSON.stringify(judged.data));
          }
        }
      }
    }
    expect(records).toBeGreaterThan(1000);
    // The point of the lean path: the world's records take it, but those with a CurrencyExchange.
    expect(lean).toBeGreaterThan(records * 0.9);
  });
});
