/**
 * Exports that are partial by construction (docs/exports.md "Partial exports"): the rows of an
 * account can only be what its consent let the sync read. A consent with ReadTransactionsCredits
 * alone gives credits only (Debits alone, debits only), and nothing outside the consent's
 * window [start, end] was ever fetched. Each such account gets one warning line.
 */
import type Database from 'better-sqlite3';
import { creditDebitFilter, nzDateOf } from '../api/rules';
import type { ExportRequest } from './filters';

interface ScopeRow {
  bank: string;
  account_id: string;
  consent_id: string;
  permissions: string | null;
  start_date_time: string | null;
  end_date_time: string | null;
}

/** Warnings for the accounts a transactions export covers; none for other datasets. */
export function partialExportWarnings(db: Database.Database, request: ExportRequest): string[] {
  if (request.dataset !== 'transactions') return [];
  const { filters } = request;
  const where: string[] = [];
  const params: string[] = [];
  if (filters.accountIds) {
    where.push(`a.account_id IN (${filters.accountIds.map(() => '?').join(', ')})`);
    params.push(...filters.accountIds);
  }
  if (filters.bank) {
    where.push('a.bank = ?');
    params.push(filters.bank);
  }
  if (filters.consentId !== undefined) {
    where.push('a.consent_id = ?');
    params.push(filters.consentId);
  }
  const rows = db
    .prepare<unknown[], ScopeRow>(
      `SELECT a.bank, a.account_id, a.consent_id, c.permissions, c.start_date_time, c.end_date_time
       FROM v_accounts a LEFT JOIN v_consents c ON c.consent_id = a.consent_id` +
        (where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '') +
        ' ORDER BY a.bank, a.account_id',
    )
    .all(...params);
  const warnings: string[] = [];
  for (const row of rows) {
    const who = `${row.bank} account ${row.account_id}`;
    const only = creditDebitFilter((row.permissions ?? '').split(' '));
    if (only) {
      const [kept, missing] = only === 'Credit' ? ['credits', 'debits'] : ['debits', 'credits'];
      warnings.push(`${who}: its consent ${row.consent_id} grants ${kept} only (ReadTransactions${only}s), so the export holds no ${missing}`);
    }
    const start = row.start_date_time ? nzDateOf(row.start_date_time) : null;
    const end = row.end_date_time ? nzDateOf(row.end_date_time) : null;
    if (filters.from && start && filters.from < start) {
      warnings.push(`${who}: its consent ${row.consent_id} starts on ${start}, so nothing from ${filters.from} to the day before can be in the export`);
    }
    if (filters.to && end && filters.to > end) {
      warnings.push(`${who}: its consent ${row.consent_id} ends on ${end}, so nothing after it up to ${filters.to} can be in the export`);
    }
  }
  return warnings;
}
