/**
 * What an OFX statement needs from the views besides the transactions: the account (one,
 * resolved by --account and optionally --bank), the period, and the bank's latest booked and
 * available balances of v_balances.
 */
import type Database from 'better-sqlite3';
import { addNzDays, nzMidnight } from '../api/rules';
import { UsageError } from '../errors';
import type { OfxBalance } from './ofx';
import type { AccountFacts } from './ofx-format';
import type { SqlQuery, ValidFilters } from './filters';

export interface OfxAccountRow extends AccountFacts {
  currency: string;
}

/** The one account the statement covers; an account id held at two banks needs --bank. */
export function resolveOfxAccount(db: Database.Database, accountId: string, bank: string | undefined): OfxAccountRow {
  const rows = db
    .prepare<unknown[], { bank: string; account_id: string; currency: string; account_subtype: string | null; identification: string | null }>(
      'SELECT bank, account_id, currency, account_subtype, identification FROM v_accounts WHERE account_id = ?' +
        (bank ? ' AND bank = ?' : '') +
        ' ORDER BY bank',
    )
    .all(...(bank ? [accountId, bank] : [accountId]));
  const first = rows[0];
  if (!first) {
    throw new UsageError(`no account ${JSON.stringify(accountId)}${bank ? ` at ${bank}` : ''} in v_accounts`, 'list them with: bankdata export accounts');
  }
  if (rows.length > 1) {
    throw new UsageError(
      `account ${JSON.stringify(accountId)} exists at ${rows.map((r) => r.bank).join(' and ')}`,
      'add --bank to choose one',
    );
  }
  return {
    bank: first.bank,
    accountId: first.account_id,
    currency: first.currency,
    subtype: first.account_subtype,
    identification: first.identification,
  };
}

export interface OfxPeriod {
  rows: number;
  /** ISO 8601 instants */
  dtStart: string;
  dtEnd: string;
}

/**
 * DTSTART and DTEND: the requested NZ days when given (00:00 of --from to the last millisecond
 * of --to, Pacific/Auckland), else the first and last booking of the exported rows, else now.
 */
export function ofxPeriod(db: Database.Database, select: SqlQuery, filters: ValidFilters, now: Date): OfxPeriod {
  const range = db
    .prepare<unknown[], { n: number; first: string | null; last: string | null }>(
      `SELECT COUNT(*) AS n, MIN(booking_date_time) AS first, MAX(booking_date_time) AS last FROM (${select.sql})`,
    )
    .get(...select.params);
  const nowIso = now.toISOString();
  const dtStart = filters.from ? nzMidnight(filters.from).toUTC().toISO()! : (range?.first ?? nowIso);
  const dtEnd = filters.to
    ? nzMidnight(addNzDays(filters.to, 1)).minus({ milliseconds: 1 }).toUTC().toISO()!
    : (range?.last ?? nowIso);
  return { rows: range?.n ?? 0, dtStart, dtEnd };
}

const LEDGER_TYPES = ['ClosingBooked', 'InterimBooked'] as const;
const AVAILABLE_TYPES = ['ClosingAvailable', 'InterimAvailable'] as const;

/**
 * The latest balance of the given types at or before `asOf` (when the export ends at --to, a
 * later balance would not describe the exported period). At the same instant a closing
 * balance wins over an interim one.
 */
export function latestBalance(
  db: Database.Database,
  account: { bank: string; accountId: string },
  types: readonly string[],
  asOf: string | null,
): OfxBalance | null {
  const row = db
    .prepare<unknown[], { amount: string; date_time: string }>(
      `SELECT amount, date_time FROM v_balances
       WHERE bank = ? AND account_id = ? AND type IN (${types.map(() => '?').join(', ')})` +
        (asOf ? ' AND julianday(date_time) <= julianday(?)' : '') +
        ` ORDER BY julianday(date_time) DESC, type LIKE 'Closing%' DESC LIMIT 1`,
    )
    .get(account.bank, account.accountId, ...types, ...(asOf ? [asOf] : []));
  return row ? { amount: row.amount, dateTime: row.date_time } : null;
}

export function ledgerBalance(db: Database.Database, account: { bank: string; accountId: string }, asOf: string | null) {
  return latestBalance(db, account, LEDGER_TYPES, asOf);
}

export function availableBalance(db: Database.Database, account: { bank: string; accountId: string }, asOf: string | null) {
  return latestBalance(db, account, AVAILABLE_TYPES, asOf);
}
