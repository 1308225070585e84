/**
 * What a statement export needs from the views besides the transactions: the accounts (named by
 * --account, or every account of --consent), the period, and the balances: LEDGERBAL by the rule
 * of docs/exports.md "OFX" (the last row's running balance, else a booked balance carried through
 * the booked rows between), AVAILBAL the latest available balance read.
 */
import type Database from 'better-sqlite3';
import { addNzDays, creditDebitFilter, nzDateOf, nzMidnight } from '../api/rules';
import { UsageError } from '../errors';
import { sumDecimals } from './decimal';
import type { SqlQuery, ValidFilters } from './filters';
import type { OfxBalance } from './ofx';
import type { AccountFacts } from './ofx-format';

export interface StatementAccount extends AccountFacts {
  currency: string;
  consentId: string;
}

interface AccountViewRow {
  bank: string;
  account_id: string;
  consent_id: string;
  currency: string;
  account_subtype: string | null;
  identification: string | null;
}

const ACCOUNT_SQL = 'SELECT bank, account_id, consent_id, currency, account_subtype, identification FROM v_accounts';

function toAccount(row: AccountViewRow): StatementAccount {
  return {
    bank: row.bank,
    accountId: row.account_id,
    consentId: row.consent_id,
    currency: row.currency,
    subtype: row.account_subtype,
    identification: row.identification,
  };
}

/** One account by id; an account id held at two banks needs --bank. */
export function resolveAccount(db: Database.Database, accountId: string, bank: string | undefined): StatementAccount {
  const rows = db
    .prepare<unknown[], AccountViewRow>(`${ACCOUNT_SQL} WHERE account_id = ?${bank ? ' AND bank = ?' : ''} ORDER BY bank`)
    .all(...(bank ? [accountId, bank] : [accountId]));
  const first = rows[0];
  if (!first) {
    throw new UsageError(`no account ${JSON.stringify(accountId)}${bank ? ` at ${bank}` : ''} in v_accounts`, 'list them with: bankdata export accounts');
  }
  if (rows.length > 1) {
    throw new UsageError(`account ${JSON.stringify(accountId)} exists at ${rows.map((r) => r.bank).join(' and ')}`, 'add --bank to choose one');
  }
  return toAccount(first);
}

/**
 * The statement's accounts: each --account (in the order given), else every account of
 * --consent. One bank per file: OFX has one FI for the whole download.
 */
export function resolveStatementAccounts(db: Database.Database, filters: ValidFilters): StatementAccount[] {
  let accounts: StatementAccount[];
  if (filters.accountIds) {
    accounts = filters.accountIds.map((id) => resolveAccount(db, id, filters.bank));
    if (filters.consentId !== undefined) accounts = accounts.filter((a) => a.consentId === filters.consentId);
  } else {
    accounts = db
      .prepare<unknown[], AccountViewRow>(`${ACCOUNT_SQL} WHERE consent_id = ?${filters.bank ? ' AND bank = ?' : ''} ORDER BY bank, account_id`)
      .all(...(filters.bank ? [filters.consentId, filters.bank] : [filters.consentId]))
      .map(toAccount);
  }
  if (accounts.length === 0) throw new UsageError('no account matches --account / --consent / --bank', 'list them with: bankdata export accounts');
  const banks = [...new Set(accounts.map((a) => a.bank))];
  if (banks.length > 1) {
    throw new UsageError(`the accounts are at ${banks.join(' and ')}: an OFX file holds one bank's statements`, 'add --bank, one file per bank');
  }
  return accounts;
}

export interface StatementRange {
  rows: number;
  /** booking instant and NZ date of the last row in export order; its running balance, if sent */
  last: { bookingDateTime: string; bookingDate: string; balanceAfter: string | null } | null;
  firstDate: string | null;
}

/** Count, first date and last row of one account's exported rows (the file's own select). */
export function statementRange(db: Database.Database, select: SqlQuery): StatementRange {
  const stats = db
    .prepare<unknown[], { n: number; first: string | null }>(`SELECT COUNT(*) AS n, MIN(booking_date) AS first FROM (${select.sql})`)
    .get(...select.params)!;
  const last = db
    .prepare<unknown[], { booking_date_time: string; booking_date: string; balance_after: string | null }>(
      `SELECT booking_date_time, booking_date, balance_after FROM (${select.sql}) ORDER BY booking_date_time DESC, transaction_id DESC LIMIT 1`,
    )
    .get(...select.params);
  return {
    rows: stats.n,
    firstDate: stats.first,
    last: last ? { bookingDateTime: last.booking_date_time, bookingDate: last.booking_date, balanceAfter: last.balance_after } : null,
  };
}

/** DTSTART / DTEND as NZ dates: the requested days, else the first and last booking, else today. */
export function statementPeriod(range: StatementRange, filters: ValidFilters, now: Date): { dtStart: string; dtEnd: string } {
  const today = nzDateOf(now);
  return {
    dtStart: filters.from ?? range.firstDate ?? today,
    dtEnd: filters.to ?? range.last?.bookingDate ?? today,
  };
}

const LEDGER_TYPES = ['ClosingBooked', 'InterimBooked'] as const;
const AVAILABLE_TYPES = ['ClosingAvailable', 'InterimAvailable'] as const;

interface BalanceRead {
  amount: string;
  dateTime: string;
}

/**
 * The latest balance of the given types at or before `asOf` (an instant; none: the latest).
 * At the same instant a closing balance wins over an interim one.
 */
function latestBalance(db: Database.Database, account: StatementAccount, types: readonly string[], asOf: string | null): BalanceRead | null {
  const row = db
    .prepare<unknown[], { amount: string; date_time: string }>(
      `SELECT amount_text AS amount, date_time FROM v_balances
       WHERE bank = ? AND account_id = ? AND type IN (${types.map(() => '?').join(', ')})` +
        (asOf ? ' AND date_time <= ?' : '') +
        ` ORDER BY date_time DESC, type LIKE 'Closing%' DESC LIMIT 1`,
    )
    .get(account.bank, account.accountId, ...types, ...(asOf ? [asOf] : []));
  return row ? { amount: row.amount, dateTime: row.date_time } : null;
}

/** The last instant of --to's NZ day, as the views store instants (UTC ISO, milliseconds). */
function endOfNzDay(date: string): string {
  return nzMidnight(addNzDays(date, 1)).minus({ milliseconds: 1 }).toUTC().toISO()!;
}

function consentFilter(db: Database.Database, consentId: string): 'Credit' | 'Debit' | null {
  const row = db.prepare<unknown[], { permissions: string | null }>('SELECT permissions FROM v_consents WHERE consent_id = ?').get(consentId);
  return creditDebitFilter((row?.permissions ?? '').split(' '));
}

export type LedgerBalance = { ok: true; balance: OfxBalance } | { ok: false; reason: string };

/**
 * LEDGERBAL: the last exported row's running balance when the bank sent one; else the latest
 * booked balance read at or before --to, carried to the last row (or to --to when there is no
 * row) by the booked rows between; else the reason it cannot be known.
 */
export function ledgerBalance(db: Database.Database, account: StatementAccount, range: StatementRange, filters: ValidFilters): LedgerBalance {
  if (range.last?.balanceAfter) return { ok: true, balance: { amount: range.last.balanceAfter, nzDate: range.last.bookingDate } };
  const toEnd = filters.to ? endOfNzDay(filters.to) : null;
  const read = latestBalance(db, account, LEDGER_TYPES, toEnd);
  if (!read) {
    return {
      ok: false,
      reason: `no booked balance of ${account.accountId} was read${toEnd ? ` at or before ${filters.to}` : ''} (the consent may lack ReadBalances) and its last row carries no running balance`,
    };
  }
  const target = range.last?.bookingDateTime ?? toEnd ?? read.dateTime;
  const targetDate = range.last?.bookingDate ?? filters.to ?? nzDateOf(read.dateTime);
  if (target === read.dateTime) return { ok: true, balance: { amount: read.amount, nzDate: targetDate } };
  const only = consentFilter(db, account.consentId);
  if (only) {
    return {
      ok: false,
      reason: `${account.accountId}'s consent grants ${only === 'Credit' ? 'credits' : 'debits'} only, so the balance read at ${read.dateTime} cannot be carried to ${targetDate}`,
    };
  }
  const forward = read.dateTime < target;
  const [after, upTo] = forward ? [read.dateTime, target] : [target, read.dateTime];
  const between = db
    .prepare<unknown[], { amount: string }>(
      `SELECT amount_text AS amount FROM v_transactions
       WHERE bank = ? AND account_id = ? AND status = 'Booked' AND booking_date_time > ? AND booking_date_time <= ?`,
    )
    .all(account.bank, account.accountId, after, upTo)
    .map((r) => (forward ? r.amount : r.amount.startsWith('-') ? r.amount.slice(1) : `-${r.amount}`));
  return { ok: true, balance: { amount: sumDecimals([read.amount, ...between]), nzDate: targetDate } };
}

/** AVAILBAL: the latest available balance read at or before --to, as of its own NZ date. */
export function availableBalance(db: Database.Database, account: StatementAccount, filters: ValidFilters): OfxBalance | null {
  const read = latestBalance(db, account, AVAILABLE_TYPES, filters.to ? endOfNzDay(filters.to) : null);
  return read ? { amount: read.amount, nzDate: nzDateOf(read.dateTime) } : null;
}
