/**
 * Exports that are partial by construction (docs/exports.md "Partial exports"): the rows of an
 * account can only be what its consent let the sync read. A consent with ReadTransactionsCredits
 * alone gives credits only (Debits alone, debits only), and nothing outside the consent's
 * window [start, end] was ever fetched. Each such account gets one warning line.
 */
import { creditDebitFilter } from '@bankdata/core/endpoint-access';
import { nzDateOf } from '@bankdata/core/nz-time';
import type { Store } from '../store';
import type { ExportRequest } from './filters';

/** Warnings for the accounts a transactions export covers; none for other datasets. */
export async function partialExportWarnings(store: Store, request: ExportRequest): Promise<string[]> {
  if (request.dataset !== 'transactions') return [];
  const { filters } = request;
  const rows = await store.views.exportScope(filters);
  const warnings: string[] = [];
  for (const row of rows) {
    const who = `${row.bank} account ${row.account_id}`;
    const only = creditDebitFilter((row.permissions ?? '').split(' '));
    if (only) {
      const [kept, missing] = only === 'Credit' ? ['credits', 'debits'] : ['debits', 'credits'];
      warnings.push(
        `${who}: its consent ${row.consent_id} grants ${kept} only (ReadTransactions${only}s), so the export holds no ${missing}`,
      );
    }
    const start = row.start_date_time ? nzDateOf(row.start_date_time) : null;
    const end = row.end_date_time ? nzDateOf(row.end_date_time) : null;
    if (filters.from && start && filters.from < start) {
      warnings.push(
        `${who}: its consent ${row.consent_id} starts on ${start}, so nothing from ${filters.from} to the day before can be in the export`,
      );
    }
    if (filters.to && end && filters.to > end) {
      warnings.push(
        `${who}: its consent ${row.consent_id} ends on ${end}, so nothing after it up to ${filters.to} can be in the export`,
      );
    }
  }
  return warnings;
}
