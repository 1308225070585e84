/**
 * Export filters: validated once (a bad filter is a usage error, exit 2, naming the problem);
 * the store turns them into the WHERE clause over the dataset's view (src/store/view-reads.ts).
 * Dates are NZ dates, both ends inclusive, judged in Pacific/Auckland with DST (packages/core/src/nz-time.ts).
 */
import { isNzDate } from '@bankdata/core/nz-time';
import { BANKS, type BankName } from '@bankdata/core/schemas';
import { UsageError } from '../errors';
import type { Store } from '../store';
import type { ViewFilters } from '../store/view-datasets';
import {
  DATASET_SPECS,
  FORMATS,
  STATEMENT_FORMATS,
  isDataset,
  isFormat,
  type DatasetName,
  type DatasetSpec,
  type ExportFormat,
} from './datasets';

export const STATUSES = ['booked', 'pending', 'all'] as const;
export type StatusFilter = (typeof STATUSES)[number];

/** Filters as a caller gives them (CLI flags or the programmatic API). */
export interface ExportFilters {
  /** NZ date YYYY-MM-DD, inclusive */
  from?: string | undefined;
  /** NZ date YYYY-MM-DD, inclusive */
  to?: string | undefined;
  consentId?: string | undefined;
  /** one account, or several (`--account` repeated) */
  accountId?: string | readonly string[] | undefined;
  bank?: string | undefined;
  status?: StatusFilter | string | undefined;
  /** `--exclude-transfers`: leave out rows linked as own-account transfers (docs/transfers.md). */
  excludeTransfers?: boolean | undefined;
  /** `--exclude-duplicates`: leave out the rows the check suspects the bank served twice. */
  excludeDuplicates?: boolean | undefined;
}

/** Filters after validation: dates checked, bank spelt as the API spells it (the store's ViewFilters). */
export type ValidFilters = ViewFilters;

export interface ExportRequest {
  dataset: DatasetName;
  format: ExportFormat;
  filters: ValidFilters;
}

/**
 * The one reading of an NZ date a command is given (export's --from and --to, report's, sync's
 * and db copy's --since, the dates of `consents create`; docs/exports.md "Filters"): `YYYY-MM-DD`,
 * a calendar date, any year from 0000 to 9999 (core's `isNzDate`, which the `sync.floor` setting
 * is read by too). 9999-12-31 is a valid end ("no end"), 0000-01-01 a valid start: whatever
 * reads one counts its day's end with nzMidnightAfter, never through the next date's text.
 * Anything else is a usage error (exit 2) naming the flag, one line; `hint` says what the option
 * takes when that is more than a date (`consents create`'s date-times).
 */
export function nzDateFlag(flag: string, value: string, hint = 'use an NZ date, YYYY-MM-DD'): string {
  // 2025-02-30 matches the pattern but is no date; isNzDate refuses it and every other form.
  if (!isNzDate(value)) throw new UsageError(`${flag} is not a date: ${JSON.stringify(value)}`, hint);
  return value;
}

function parseBank(value: string): BankName {
  const bank = BANKS.find((b) => b.toLowerCase() === value.toLowerCase());
  if (!bank) throw new UsageError(`unknown bank: ${JSON.stringify(value)}`, `one of ${BANKS.join(', ')}`);
  return bank;
}

function refuseFilter(spec: DatasetSpec, flag: string): never {
  throw new UsageError(`${flag} does not apply to the ${spec.name} dataset`, filterHint(spec));
}

function filterHint(spec: DatasetSpec): string {
  const flags = [
    spec.dates ? '--from, --to' : null,
    spec.consent ? '--consent' : null,
    spec.account ? '--account' : null,
    spec.bank ? '--bank' : null,
    spec.status ? '--status' : null,
    spec.transfers ? '--exclude-transfers' : null,
    spec.duplicates ? '--exclude-duplicates' : null,
  ].filter((f): f is string => f !== null);
  return flags.length > 0 ? `${spec.name} accepts ${flags.join(', ')}` : `${spec.name} accepts no filters`;
}

function nonEmpty(flag: string, value: string): string;
function nonEmpty(flag: string, value: string | undefined): string | undefined;
function nonEmpty(flag: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (value.trim() === '') throw new UsageError(`${flag} is empty`);
  return value;
}

/** Checks dataset, format and filters together; throws UsageError naming the first problem. */
export function validateExportRequest(dataset: string, format: string, filters: ExportFilters): ExportRequest {
  if (!isDataset(dataset)) {
    throw new UsageError(
      `unknown dataset: ${JSON.stringify(dataset)}`,
      `one of ${Object.keys(DATASET_SPECS).join(', ')}`,
    );
  }
  if (!isFormat(format))
    throw new UsageError(`unknown format: ${JSON.stringify(format)}`, `one of ${FORMATS.join(', ')}`);
  const spec = DATASET_SPECS[dataset];
  const valid: ValidFilters = { status: 'all' };

  const from = nonEmpty('--from', filters.from);
  const to = nonEmpty('--to', filters.to);
  if (from !== undefined || to !== undefined) {
    if (!spec.dates) refuseFilter(spec, from !== undefined ? '--from' : '--to');
    if (from !== undefined) valid.from = nzDateFlag('--from', from);
    if (to !== undefined) valid.to = nzDateFlag('--to', to);
    if (valid.from && valid.to && valid.from > valid.to) {
      throw new UsageError(`--from ${valid.from} is after --to ${valid.to}`, 'both ends are inclusive NZ dates');
    }
  }
  const consentId = nonEmpty('--consent', filters.consentId);
  if (consentId !== undefined) {
    if (!spec.consent) refuseFilter(spec, '--consent');
    valid.consentId = consentId;
  }
  const given =
    filters.accountId === undefined
      ? []
      : typeof filters.accountId === 'string'
        ? [filters.accountId]
        : filters.accountId;
  const accountIds = [...new Set(given.map((id) => nonEmpty('--account', id)))];
  if (accountIds.length > 0) {
    if (!spec.account) refuseFilter(spec, '--account');
    valid.accountIds = accountIds;
  }
  const bank = nonEmpty('--bank', filters.bank);
  if (bank !== undefined) {
    if (!spec.bank) refuseFilter(spec, '--bank');
    valid.bank = parseBank(bank);
  }
  const status = filters.status ?? 'all';
  if (!(STATUSES as readonly string[]).includes(status)) {
    throw new UsageError(`unknown status: ${JSON.stringify(status)}`, 'one of booked, pending, all');
  }
  valid.status = status as StatusFilter;
  if (valid.status !== 'all' && !spec.status) refuseFilter(spec, '--status');
  // Duplicates the bank served (docs/exports.md "Duplicates the bank served").
  if (filters.excludeDuplicates === true) {
    if (!spec.duplicates) refuseFilter(spec, '--exclude-duplicates');
    valid.excludeDuplicates = true;
  }

  // Own-account transfers left out (docs/exports.md "Leaving out own-account transfers").
  if (filters.excludeTransfers === true) {
    if (!spec.transfers) refuseFilter(spec, '--exclude-transfers');
    if ((STATEMENT_FORMATS as readonly string[]).includes(format))
      throw new UsageError(
        `--exclude-transfers does not apply to --format ${format}`,
        'a bank statement carries every row, or its balances and your reconciliation no longer add up; use csv, json or ndjson',
      );
    valid.excludeTransfers = true;
  }

  if ((STATEMENT_FORMATS as readonly string[]).includes(format)) {
    if (dataset !== 'transactions') {
      throw new UsageError(`--format ${format} exports only the transactions dataset, not ${dataset}`);
    }
    if (format === 'ofx') {
      // One statement per account: the accounts asked for, or every account of --consent.
      if (valid.accountIds === undefined && valid.consentId === undefined) {
        throw new UsageError(
          '--format ofx needs --account ID (repeat it for several accounts) or --consent ID (all its accounts)',
        );
      }
    } else if (valid.accountIds?.length !== 1) {
      throw new UsageError(
        `--format ${format} needs exactly one --account ID: a bank statement file covers one account`,
      );
    }
    // Statements carry booked transactions only; pending ones would be imported and never settle.
    if (valid.status === 'pending')
      throw new UsageError(`--format ${format} exports booked transactions only; drop --status pending`);
  }
  return { dataset, format, filters: valid };
}

/**
 * Refuses a filter naming an account, consent or bank the database does not hold (exit 2, in the
 * words of `check` and `report`): a mistyped id would otherwise give a header-only file and exit
 * 0, indistinguishable from a quiet period. It reads the public views the export reads (an
 * account is a v_accounts row; a bank a v_consents or a v_accounts row; a consent a v_consents
 * row, except for the payments dataset, whose `--consent` is the payment consent: a v_payments
 * row with that consent_id, docs/exports.md "Filters"). Every export passes through it with its
 * dataset. An empty date range is no such mistake and stays a valid empty export; so do filters
 * that each exist but match no row together.
 */
export async function refuseUnknownFilterTargets(
  store: Store,
  request: Pick<ExportRequest, 'dataset' | 'filters'>,
): Promise<void> {
  const { filters } = request;
  for (const accountId of filters.accountIds ?? []) {
    if ((await store.views.accounts({ accountId })).length === 0)
      throw new UsageError(
        `--account ${accountId}: no such account in the database`,
        'bankdata export accounts lists them',
      );
  }
  const consentId = filters.consentId;
  if (consentId !== undefined) {
    // Payment consents live only as v_payments.consent_id; v_consents holds the data consents.
    const payment = request.dataset === 'payments';
    if (!(await holdsRows(store, payment ? 'payments' : 'consents', { consentId, status: 'all' })))
      throw new UsageError(
        `--consent ${consentId}: no such ${payment ? 'payment consent' : 'consent'} in the database`,
        payment ? 'bankdata export payments lists them (consent_id)' : 'bankdata export consents lists them',
      );
  }
  const bank = filters.bank;
  if (
    bank !== undefined &&
    (await store.views.accounts({ bank })).length === 0 &&
    !(await holdsRows(store, 'consents', { bank, status: 'all' }))
  )
    throw new UsageError(
      `--bank ${bank}: no such bank in the database`,
      'bankdata export consents lists the banks held',
    );
}

/** Whether the dataset's view has a row for these filters: one row read, the cursor closed after it. */
async function holdsRows(store: Store, dataset: 'consents' | 'payments', filters: ValidFilters): Promise<boolean> {
  const { batches } = await store.views.rows(dataset, filters, { batchSize: 1 });
  for await (const batch of batches) return batch.length > 0;
  return false;
}
