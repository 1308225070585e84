/**
 * The emulator's world: the bank data it serves, generated deterministically from a seed and a
 * start instant (generator in world.ts and friends), read by the server at the data clock's
 * instant. Everything here is a pure function of (options, at): the same seed and start give
 * the same bytes.
 */
import type { DateTime } from 'luxon';
import type {
  Account,
  Balance,
  BankName,
  ConsentFlow,
  ConsentStatus,
  Party,
  Permission,
  Statement,
  StatementFileType,
  Transaction,
} from '@bankdata/core/schemas';

export interface WorldOptions {
  seed: number;
  /** The data clock's start instant. History is generated before it, a horizon after it. */
  start: DateTime;
  /** The banks set up for the organisation (sandbox: ['PNZ']; production-like: all seven). */
  banks: readonly BankName[];
  /** Days of history before `start` (default 450: "a year or more"). */
  historyDays?: number;
  /** Days of timeline after `start`, so that moving the clock brings new data (default 60). */
  horizonDays?: number;
  /** Scale knob for benchmarks: customers per bank (default 3). */
  customersPerBank?: number;
  /**
   * Shape knob for benchmarks: card purchases per day on every account are the default's draw
   * times this whole number (default 1; a "large accounts" world uses more).
   */
  spendScale?: number;
  /** Shape knob for benchmarks: a card purchase settles 1 to this many NZ days later (default 3). */
  settleDaysMax?: number;
  /**
   * What each bank offers per the server's meta, so seeded consents request only listed
   * permissions (BDT241) and enabled flows. Banks not named here follow bank-meta.ts's fixtures.
   */
  bankFeatures?: Partial<Record<BankName, BankSeedFeatures>>;
}

/** The part of a bank's meta features that seeded consents depend on. */
export interface BankSeedFeatures {
  permissions: readonly string[];
  redirectFlow: boolean;
  decoupledFlow: boolean;
}

export interface Customer {
  customerId: string;
  bank: BankName;
  /** The consenting customer's party record (GET /v1/party), full detail. */
  party: Party;
  /** Keys of the customer's accounts (see accountKey). */
  accountKeys: string[];
}

export interface WorldAccount {
  bank: BankName;
  customerId: string;
  /** The account as the Detail payload shows it (docs/bank-api.md §6.1). */
  account: Account;
  /** The account's owner (GET /v1/accounts/{id}/party), full detail. */
  accountParty: Party;
}

/** A consent that exists when the emulator starts, in any status. */
export interface SeededConsent {
  consent_id: string;
  bank: BankName;
  customerId: string;
  status: ConsentStatus;
  flow: ConsentFlow;
  permissions: Permission[];
  creation_date_time: string;
  status_update_date_time: string;
  start_date_time: string;
  end_date_time?: string;
  expiration_date_time?: string;
  /** Which of the customer's accounts the customer selected (keys; default all). */
  accountKeys: string[];
}

export interface World {
  readonly options: Required<WorldOptions>;
  readonly customers: readonly Customer[];
  /** All accounts by accountKey(bank, accountId). */
  readonly accounts: ReadonlyMap<string, WorldAccount>;
  readonly seededConsents: readonly SeededConsent[];

  /**
   * Transactions the bank shows at instant `at`, full Detail payload: booked ones whose
   * booking is visible by then, and pending ones still open. Sorted BookingDateTime
   * descending, then TransactionId. (The server, which knows meta, drops anything older than
   * the bank's max_history_days.) With `booked`, only the rows whose BookingDateTime is within
   * it (epoch milliseconds, both ends included).
   */
  transactionsAt(
    bank: BankName,
    accountId: string,
    at: DateTime,
    booked?: { fromMs: number; toMs: number },
  ): Transaction[];
  /** Balances at `at` (InterimBooked, InterimAvailable; a credit line where the account has one). */
  balancesAt(bank: BankName, accountId: string, at: DateTime): Balance[];
  /** Statements created by `at`, full Detail payload, newest first. */
  statementsAt(bank: BankName, accountId: string, at: DateTime): Statement[];
  /** The statement file's bytes (PDF 1.4 document or CSV per docs/bank-api.md §6.7); null when unknown. */
  statementFile(bank: BankName, accountId: string, statementId: string, type: StatementFileType): Buffer | null;
}

export function accountKey(bank: BankName, accountId: string): string {
  return `${bank}:${accountId}`;
}
