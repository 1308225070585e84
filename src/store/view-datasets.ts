/**
 * The exportable datasets: one public view each (docs/data-model.md "Views"), the filters that
 * apply to it and a stable row order. The columns themselves are never listed here: they are read
 * from the view at export time, so an export follows the view when a column is added. The store
 * builds the rows' SELECT from this (view-reads.ts); src/export validates filters against it.
 */
import type { BankName } from '@bankdata/core/schemas';

export const DATASETS = [
  'transactions',
  'accounts',
  'balances',
  'statements',
  'parties',
  'consents',
  'runs',
  'payments',
  'payment_matches',
] as const;
export type DatasetName = (typeof DATASETS)[number];

/** How `--from` / `--to` (NZ dates, both inclusive) select rows of a dataset. */
export type DateRule =
  /** a column that already holds the NZ date (YYYY-MM-DD) */
  | { kind: 'nz-date-column'; column: string }
  /** the NZ date of an instant column (ISO 8601 with offset or Z) */
  | { kind: 'instant-column'; column: string }
  /** a period [start, end] that overlaps the requested days */
  | { kind: 'period'; start: string; end: string };

/** How `--consent` selects rows: a column of the view, or through the account's consent. */
export type ConsentRule = { kind: 'column' } | { kind: 'via-account' };

export interface DatasetSpec {
  readonly name: DatasetName;
  readonly view: string;
  readonly dates?: DateRule;
  readonly consent?: ConsentRule;
  readonly account?: true;
  readonly bank?: true;
  readonly status?: true;
  /** `--exclude-transfers` applies: rows linked as own-account transfers (v_transfers) can be left out. */
  readonly transfers?: true;
  /** `--exclude-duplicates` applies (docs/exports.md "Duplicates the bank served"). */
  readonly duplicates?: true;
  /** A total order, so two exports of the same data are byte-identical. */
  readonly orderBy: readonly string[];
}

export const DATASET_SPECS: Record<DatasetName, DatasetSpec> = {
  transactions: {
    name: 'transactions',
    view: 'v_transactions',
    dates: { kind: 'nz-date-column', column: 'booking_date' },
    consent: { kind: 'column' },
    account: true,
    bank: true,
    status: true,
    transfers: true,
    duplicates: true,
    orderBy: ['bank', 'account_id', 'booking_date_time', 'transaction_id'],
  },
  accounts: {
    name: 'accounts',
    view: 'v_accounts',
    consent: { kind: 'column' },
    account: true,
    bank: true,
    orderBy: ['bank', 'account_id'],
  },
  balances: {
    name: 'balances',
    view: 'v_balances',
    dates: { kind: 'instant-column', column: 'date_time' },
    consent: { kind: 'via-account' },
    account: true,
    bank: true,
    // The rest of the balance's identity (balances_identity) after the instant and type: statements
    // of one instant restated in one fetch tie on all else (docs/exports.md "Datasets and columns").
    orderBy: ['bank', 'account_id', 'date_time', 'type', 'fetched_at', 'credit_debit_indicator', 'amount_text'],
  },
  statements: {
    name: 'statements',
    view: 'v_statements',
    dates: { kind: 'period', start: 'start_date_time', end: 'end_date_time' },
    consent: { kind: 'via-account' },
    account: true,
    bank: true,
    orderBy: ['bank', 'account_id', 'start_date_time', 'statement_id'],
  },
  parties: {
    name: 'parties',
    view: 'v_parties',
    consent: { kind: 'column' },
    account: true,
    bank: true,
    orderBy: ['bank', 'consent_id', 'account_id', 'party_id'],
  },
  consents: {
    name: 'consents',
    view: 'v_consents',
    consent: { kind: 'column' },
    bank: true,
    orderBy: ['bank', 'consent_id'],
  },
  runs: {
    name: 'runs',
    view: 'v_runs',
    dates: { kind: 'instant-column', column: 'started_at' },
    orderBy: ['started_at', 'run_id'],
  },
  // Payments (docs/payments-contract.md): the Payments API's payments and their matches.
  payments: {
    name: 'payments',
    view: 'v_payments',
    dates: { kind: 'instant-column', column: 'created_at' },
    consent: { kind: 'column' },
    orderBy: ['created_at', 'payment_id'],
  },
  payment_matches: {
    name: 'payment_matches',
    view: 'v_payment_matches',
    account: true,
    bank: true,
    orderBy: ['payment_id', 'bank', 'account_id', 'transaction_id'],
  },
};

export function isDataset(value: string): value is DatasetName {
  return (DATASETS as readonly string[]).includes(value);
}

/**
 * Filters of a dataset's rows, validated (src/export/filters.ts): NZ dates YYYY-MM-DD, both ends
 * inclusive, judged in Pacific/Auckland with DST; `status` applies to datasets with a status.
 */
export interface ViewFilters {
  from?: string;
  to?: string;
  consentId?: string;
  /** one or more account ids, each given once */
  accountIds?: string[];
  bank?: BankName;
  status: 'booked' | 'pending' | 'all';
  /** Leave out the rows linked as own-account transfers (either side of a v_transfers pair). */
  excludeTransfers?: boolean;
  /** Leave out the rows the check suspects the bank served twice (v_transactions.suspected_duplicate). */
  excludeDuplicates?: boolean;
}
