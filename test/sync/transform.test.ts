/** The pure wire → row transforms, on the example payloads of docs/bank-api.md §6.1–§6.8. */
import { describe, expect, it } from 'vitest';
import {
  Account,
  Balance,
  Party,
  Statement,
  Transaction,
  type AccountId,
  type ConsentId,
} from '@bankdata/core/schemas';
import { toAccountRow, toBalanceRow, toPartyRow, toStatementRow, toTransactionRow } from '../../src/sync/transform';

const ctx = {
  bank: 'PNZ' as const,
  consentId: 'c0a8012e-7d3b-4f5e-9a61-2b9f4c1d8e70' as ConsentId,
  fetchedAt: '2025-03-05T10:00:00+13:00',
};

// docs/bank-api.md §6.4, first example (Detail payload).
const bookedWire = {
  AccountId: 'acc-0001',
  TransactionId: 'txn-20250303-0001',
  TransactionReference: {
    CreditorName: 'CITY POWER LTD',
    CreditorReference: { Particulars: 'ACCT 5531', Code: 'MAR', Reference: 'INV-2291' },
    DebtorName: 'J SMITH',
    DebtorReference: { Particulars: 'POWER', Reference: 'MAR25' },
  },
  Amount: { Amount: '142.50', Currency: 'NZD' },
  CreditDebitIndicator: 'Debit',
  Status: 'Booked',
  BookingDateTime: '2025-03-03T09:15:00+13:00',
  ValueDateTime: '2025-03-03T00:00:00+13:00',
  TransactionInformation: 'AP CITY POWER LTD',
  BankTransactionCode: { Code: 'IssuedCreditTransfers', SubCode: 'AutomaticTransfer' },
  ProprietaryBankTransactionCode: { Code: 'AP', Issuer: 'PNZ' },
  Balance: { Amount: { Amount: '2315.07', Currency: 'NZD' }, CreditDebitIndicator: 'Credit', Type: 'InterimBooked' },
  CreditorAccount: { SchemeName: 'BECSElectronicCredit', Identification: '12-3456-0765432-00', Name: 'CITY POWER LTD' },
};
// docs/bank-api.md §6.4, second example (a card pending entry).
const pendingWire = {
  AccountId: 'acc-0001',
  TransactionId: 'txn-pend-7731',
  Amount: { Amount: '18.9', Currency: 'NZD' },
  CreditDebitIndicator: 'Debit',
  Status: 'Pending',
  BookingDateTime: '2025-03-04T12:02:41+13:00',
  CardInstrument: { CardSchemeName: 'VISA', AuthorisationType: 'Contactless', Identification: '************1111' },
  MerchantDetails: { MerchantName: 'CORNER CAFE', MerchantCategoryCode: '5814' },
};

describe('toTransactionRow', () => {
  it('maps every v_transactions field of a booked debit, with UTC instants and the NZ booking date', () => {
    expect(toTransactionRow(Transaction.parse(bookedWire), ctx, bookedWire)).toEqual({
      bank: 'PNZ',
      accountId: 'acc-0001',
      transactionId: 'txn-20250303-0001',
      consentId: ctx.consentId,
      status: 'Booked',
      bookingDateTime: '2025-03-02T20:15:00.000Z',
      bookingDate: '2025-03-03',
      valueDateTime: '2025-03-02T11:00:00.000Z',
      amount: '-142.50',
      amountMinor: -14250,
      currency: 'NZD',
      creditDebitIndicator: 'Debit',
      description: 'AP CITY POWER LTD',
      merchantName: null,
      merchantCategoryCode: null,
      creditorName: 'CITY POWER LTD',
      debtorName: 'J SMITH',
      creditorParticulars: 'ACCT 5531',
      creditorCode: 'MAR',
      creditorReference: 'INV-2291',
      debtorParticulars: 'POWER',
      debtorCode: null,
      debtorReference: 'MAR25',
      bankTransactionCode: 'IssuedCreditTransfers',
      bankTransactionSubcode: 'AutomaticTransfer',
      proprietaryCode: 'AP',
      balanceAfter: '2315.07',
      // On a debit the counterparty is the creditor.
      counterpartyAccount: '12-3456-0765432-00',
      rawJson: JSON.stringify(bookedWire),
    });
  });

  it('leaves every field the bank did not send NULL (pending card entry)', () => {
    const row = toTransactionRow(Transaction.parse(pendingWire), ctx);
    expect(row).toMatchObject({
      status: 'Pending',
      amount: '-18.9',
      amountMinor: -1890,
      bookingDate: '2025-03-04',
      merchantName: 'CORNER CAFE',
      merchantCategoryCode: '5814',
      valueDateTime: null,
      description: null,
      creditorName: null,
      debtorName: null,
      debtorReference: null,
      bankTransactionCode: null,
      proprietaryCode: null,
      balanceAfter: null,
      counterpartyAccount: null,
    });
    expect(JSON.parse(row.rawJson)).toMatchObject({ CardInstrument: { CardSchemeName: 'VISA' } });
  });

  it('takes the counterparty from DebtorAccount on a credit, never from CreditorAccount', () => {
    const credit = {
      ...bookedWire,
      CreditDebitIndicator: 'Credit',
      DebtorAccount: { SchemeName: 'BECSElectronicCredit', Identification: '38-9000-7654321-00' },
    };
    expect(toTransactionRow(Transaction.parse(credit), ctx)).toMatchObject({
      amount: '142.50',
      counterpartyAccount: '38-9000-7654321-00',
    });
    const { DebtorAccount: _omitted, ...creditWithoutDebtor } = credit;
    expect(toTransactionRow(Transaction.parse(creditWithoutDebtor), ctx).counterpartyAccount).toBeNull();
  });

  it('dates the booking by the NZ date, across the DST change (2025-04-06)', () => {
    const at = (BookingDateTime: string) =>
      toTransactionRow(Transaction.parse({ ...pendingWire, BookingDateTime }), ctx);
    expect(at('2025-04-05T13:30:00Z')).toMatchObject({
      bookingDate: '2025-04-06',
      bookingDateTime: '2025-04-05T13:30:00.000Z',
    });
    expect(at('2025-04-06T11:59:59Z')).toMatchObject({ bookingDate: '2025-04-06' });
    expect(at('2025-04-06T12:00:00Z')).toMatchObject({ bookingDate: '2025-04-07' });
  });

  it('signs a debit running balance negative', () => {
    const overdrawn = { ...bookedWire, Balance: { ...bookedWire.Balance, CreditDebitIndicator: 'Debit' } };
    expect(toTransactionRow(Transaction.parse(overdrawn), ctx).balanceAfter).toBe('-2315.07');
  });
});

describe('toAccountRow', () => {
  it('maps the Detail account of docs/bank-api.md §6.1', () => {
    const wire = {
      AccountId: 'acc-0001',
      Currency: 'NZD',
      AccountType: 'Personal',
      AccountSubType: 'CurrentAccount',
      Description: 'Everyday account',
      Nickname: 'Bills',
      Account: { SchemeName: 'BECSElectronicCredit', Identification: '12-3456-0123456-00', Name: 'J SMITH' },
    };
    expect(toAccountRow(Account.parse(wire), ctx, wire)).toEqual({
      bank: 'PNZ',
      accountId: 'acc-0001',
      consentId: ctx.consentId,
      currency: 'NZD',
      nickname: 'Bills',
      description: 'Everyday account',
      accountType: 'Personal',
      accountSubtype: 'CurrentAccount',
      schemeName: 'BECSElectronicCredit',
      identification: '12-3456-0123456-00',
      accountName: 'J SMITH',
      secondaryIdentification: null,
      servicerIdentification: null,
      rawJson: JSON.stringify(wire),
    });
  });

  it('leaves the Detail-only fields NULL for a Basic account (docs/bank-api.md §6.2)', () => {
    const wire = {
      AccountId: 'acc-0001',
      Currency: 'NZD',
      Nickname: 'Bills',
      AccountType: 'Personal',
      AccountSubType: 'CurrentAccount',
    };
    expect(toAccountRow(Account.parse(wire), ctx)).toMatchObject({
      description: null,
      schemeName: null,
      identification: null,
      accountName: null,
    });
  });
});

describe('toBalanceRow', () => {
  it('maps the InterimAvailable balance of docs/bank-api.md §6.3', () => {
    const wire = {
      AccountId: 'acc-0001',
      Amount: { Amount: '2796.17', Currency: 'NZD' },
      CreditDebitIndicator: 'Credit',
      Type: 'InterimAvailable',
      DateTime: '2025-03-04T12:05:00+13:00',
      CreditLine: [{ Included: true, Type: 'Pre-Agreed', Amount: { Amount: '500.00', Currency: 'NZD' } }],
    };
    expect(toBalanceRow(Balance.parse(wire), ctx, wire)).toEqual({
      bank: 'PNZ',
      accountId: 'acc-0001',
      consentId: ctx.consentId,
      type: 'InterimAvailable',
      amount: '2796.17',
      amountMinor: 279617,
      currency: 'NZD',
      creditDebitIndicator: 'Credit',
      dateTime: '2025-03-03T23:05:00.000Z',
      rawJson: JSON.stringify(wire),
      fetchedAt: '2025-03-04T21:00:00.000Z',
    });
  });
});

describe('toStatementRow', () => {
  it('maps the statement of docs/bank-api.md §6.5', () => {
    const wire = {
      AccountId: 'acc-0001',
      StatementId: 'stm-2025-02',
      StatementReference: '002',
      Type: 'RegularPeriodic',
      StartDateTime: '2025-02-01T00:00:00+13:00',
      EndDateTime: '2025-02-28T23:59:59+13:00',
      CreationDateTime: '2025-03-01T06:00:00+13:00',
      StatementDescription: ['February 2025'],
    };
    expect(toStatementRow(Statement.parse(wire), ctx)).toMatchObject({
      statementId: 'stm-2025-02',
      type: 'RegularPeriodic',
      reference: '002',
      startDateTime: '2025-01-31T11:00:00.000Z',
      endDateTime: '2025-02-28T10:59:59.000Z',
      creationDateTime: '2025-02-28T17:00:00.000Z',
    });
  });
});

describe('toPartyRow', () => {
  const wire = {
    PartyId: 'pty-5512',
    PartyNumber: '00811234',
    PartyType: 'Sole',
    Name: 'Jane Smith',
    EmailAddress: 'jane@example.nz',
    Mobile: '+64-211234567',
    Address: [
      {
        AddressType: 'Residential',
        AddressLine: ['Flat 2', '10 Queen Street'],
        TownName: 'Auckland',
        PostCode: '1010',
        Country: 'NZ',
      },
    ],
  };

  it('joins address lines, town, post code and country with ", " (docs/bank-api.md §6.8 example)', () => {
    expect(toPartyRow(Party.parse(wire), ctx, 'acc-0001' as AccountId)).toMatchObject({
      accountId: 'acc-0001',
      partyId: 'pty-5512',
      partyType: 'Sole',
      name: 'Jane Smith',
      email: 'jane@example.nz',
      phone: null,
      mobile: '+64-211234567',
      address: 'Flat 2, 10 Queen Street, Auckland, 1010, NZ',
    });
  });

  it('leaves the address NULL when none was sent and skips the parts that were not', () => {
    const { Address: _none, ...bare } = wire;
    expect(toPartyRow(Party.parse(bare), ctx, null)).toMatchObject({ accountId: null, address: null });
    expect(
      toPartyRow(Party.parse({ ...bare, Address: [{ Country: 'NZ', PostCode: '6011' }] }), ctx, null).address,
    ).toBe('6011, NZ');
  });
});
