/**
 * Payment credits in the Data API world. One emulator process serves both APIs and shares
 * state: a payment that settles credits the merchant's account, from its settlement instant on
 * the data clock. The overlay wraps the world so every Data API route (transactions, balances)
 * and every test that reads the world's ground truth sees the credits merged in. Each credit
 * is keyed deterministically by its payment: TransactionId `pmt-` + the payment id's 32 hex digits.
 */
import { formatNz } from '@bankdata/core/nz-time';
import type { Balance, BankName, Transaction } from '@bankdata/core/schemas';
import { FRACTION_DIGITS, UNIT_SCALE, type Units } from '@bankdata/core/money';
import { toWireBalance } from '../generator/amount-units';
import { accountKey, type World } from '../world-types';
import type { PaymentRecord } from './types';

/** The merchant's account: where settled payments land. */
export interface MerchantAccount {
  bank: BankName;
  accountId: string;
  /** accountKey(bank, accountId). */
  key: string;
  /** CreditorName on the credit (at most 20 characters, docs/bank-api.md §6.4). */
  name: string;
}

/**
 * The first NZD current account of the first PNZ customer: in every environment, and readable by
 * that customer's seeded Authorised consent with full permissions (docs/emulator-data.md).
 */
export function chooseMerchantAccount(world: World): MerchantAccount {
  const customer = world.customers.find((c) => c.bank === 'PNZ');
  for (const key of customer?.accountKeys ?? []) {
    const entry = world.accounts.get(key);
    const account = entry?.account;
    if (
      entry &&
      account &&
      account.Currency === 'NZD' &&
      account.AccountSubType === 'CurrentAccount' &&
      account.Account?.SchemeName === 'BECSElectronicCredit'
    ) {
      const name = (account.Account.Name ?? 'MERCHANT').slice(0, 20);
      return { bank: entry.bank, accountId: account.AccountId, key, name };
    }
  }
  throw new RangeError('the world has no PNZ NZD current account to receive payments');
}

export function creditTransactionId(paymentId: string): string {
  return `pmt-${paymentId.replace(/-/g, '')}`;
}

/** The wire transaction a settled payment adds to the merchant's account. */
export function creditTransaction(merchant: MerchantAccount, payment: PaymentRecord): Transaction {
  const at = formatNz(payment.settleMs);
  const reference = {
    Particulars: payment.pcr.particulars,
    ...(payment.pcr.code ? { Code: payment.pcr.code } : {}),
    ...(payment.pcr.reference ? { Reference: payment.pcr.reference } : {}),
  };
  return {
    AccountId: merchant.accountId,
    TransactionId: creditTransactionId(payment.payment_id),
    // The payer's particulars, code and reference for the payee: the merchant's side (CreditorReference).
    TransactionReference: { CreditorName: merchant.name, CreditorReference: reference },
    Amount: { Amount: payment.amount.total, Currency: payment.amount.currency },
    CreditDebitIndicator: 'Credit',
    Status: 'Booked',
    BookingDateTime: at,
    ValueDateTime: at,
    TransactionInformation: `PAYMENT ${payment.pcr.reference ?? payment.pcr.particulars}`,
    BankTransactionCode: { Code: 'ReceivedCreditTransfers', SubCode: 'DomesticCreditTransfer' },
    ProprietaryBankTransactionCode: { Code: 'BP', Issuer: merchant.bank },
  } as Transaction;
}

/** Settled credits visible at `atMs`, oldest first. */
export type CreditSource = (atMs: number) => PaymentRecord[];

function toUnits(amount: string): Units {
  const [whole = '0', fraction = ''] = amount.split('.');
  return BigInt(whole) * UNIT_SCALE + BigInt(fraction.padEnd(FRACTION_DIGITS, '0').slice(0, FRACTION_DIGITS) || '0');
}

/** docs/bank-api.md §1.4 order: BookingDateTime descending, then TransactionId. */
function newestFirst(a: Transaction, b: Transaction): number {
  const d = Date.parse(b.BookingDateTime) - Date.parse(a.BookingDateTime);
  return d !== 0 ? d : a.TransactionId < b.TransactionId ? -1 : a.TransactionId > b.TransactionId ? 1 : 0;
}

/** The world with the merchant's settled payment credits merged into its transactions and balances. */
export function withPaymentCredits(world: World, merchant: MerchantAccount, credits: CreditSource): World {
  const isMerchant = (bank: BankName, accountId: string) => accountKey(bank, accountId) === merchant.key;
  return {
    options: world.options,
    customers: world.customers,
    accounts: world.accounts,
    seededConsents: world.seededConsents,
    transactionsAt(bank, accountId, at, booked) {
      const base = world.transactionsAt(bank, accountId, at, booked);
      if (!isMerchant(bank, accountId)) return base;
      const within = (t: Transaction) => {
        const ms = Date.parse(t.BookingDateTime);
        return !booked || (ms >= booked.fromMs && ms <= booked.toMs);
      };
      const extra = credits(at.toMillis())
        .map((p) => creditTransaction(merchant, p))
        .filter(within);
      return extra.length === 0 ? base : [...base, ...extra].sort(newestFirst);
    },
    balancesAt(bank, accountId, at) {
      const base = world.balancesAt(bank, accountId, at);
      if (!isMerchant(bank, accountId)) return base;
      const settled = credits(at.toMillis());
      if (settled.length === 0) return base;
      const added = settled.reduce((sum, p) => sum + toUnits(p.amount.total), 0n);
      const lastMs = Math.max(...settled.map((p) => p.settleMs));
      return base.map((b): Balance => {
        if (b.Type !== 'InterimBooked' && b.Type !== 'InterimAvailable') return b;
        const signed = (b.CreditDebitIndicator === 'Debit' ? -1n : 1n) * toUnits(b.Amount.Amount) + added;
        const dateTime = Date.parse(b.DateTime) >= lastMs ? b.DateTime : formatNz(lastMs);
        return { ...b, ...toWireBalance(signed, b.Amount.Currency), DateTime: dateTime };
      });
    },
    statementsAt: (bank, accountId, at) => world.statementsAt(bank, accountId, at),
    statementFile: (bank, accountId, statementId, type) => world.statementFile(bank, accountId, statementId, type),
  };
}
