/**
 * What a statement export needs from the views besides the transactions: the accounts (named by
 * --account, or every account of --consent), the period, and the balances: LEDGERBAL by the rule
 * of docs/exports.md "OFX" (the last row's running balance, else a booked balance carried through
 * the booked rows between), AVAILBAL the latest available balance read.
 */
import { nzDateOf, nzMidnightAfter } from '@bankdata/core/nz-time';
import { creditDebitFilter } from '@bankdata/core/endpoint-access';
import { UsageError } from '../errors';
import { sumDecimals } from '@bankdata/core/money';
import type { ViewAccount, ViewRange, ViewReads } from '../store/view-reads';
import { toStoredInstant } from '../store/time';
import type { ValidFilters } from './filters';
import type { OfxBalance } from './ofx';
import type { AccountFacts } from './ofx-format';

export interface StatementAccount extends AccountFacts {
  currency: string;
  consentId: string;
}

function toAccount(row: ViewAccount): StatementAccount {
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
export async function resolveAccount(
  views: ViewReads,
  accountId: string,
  bank: string | undefined,
): Promise<StatementAccount> {
  const rows = await views.accounts({ accountId, bank });
  const first = rows[0];
  if (!first) {
    throw new UsageError(
      `no account ${JSON.stringify(accountId)}${bank ? ` at ${bank}` : ''} in v_accounts`,
      'list them with: bankdata export accounts',
    );
  }
  if (rows.length > 1) {
    throw new UsageError(
      `account ${JSON.stringify(accountId)} exists at ${rows.map((r) => r.bank).join(' and ')}`,
      'add --bank to choose one',
    );
  }
  return toAccount(first);
}

/**
 * The statement's accounts: each --account (in the order given), else every account of
 * --consent. One bank per file: OFX has one FI for the whole download.
 */
export async function resolveStatementAccounts(views: ViewReads, filters: ValidFilters): Promise<StatementAccount[]> {
  let accounts: StatementAccount[] = [];
  if (filters.accountIds) {
    for (const id of filters.accountIds) accounts.push(await resolveAccount(views, id, filters.bank));
    if (filters.consentId !== undefined) accounts = accounts.filter((a) => a.consentId === filters.consentId);
  } else {
    accounts = (await views.accounts({ consentId: filters.consentId, bank: filters.bank })).map(toAccount);
  }
  if (accounts.length === 0)
    throw new UsageError(
      'no account matches --account / --consent / --bank',
      'list them with: bankdata export accounts',
    );
  const banks = [...new Set(accounts.map((a) => a.bank))];
  if (banks.length > 1) {
    throw new UsageError(
      `the accounts are at ${banks.join(' and ')}: an OFX file holds one bank's statements`,
      'add --bank, one file per bank',
    );
  }
  return accounts;
}

export type StatementRange = ViewRange;

/**
 * DTSTART / DTEND as NZ dates (docs/exports.md "OFX"): the requested days, else the first and
 * last booking; with no row, a missing start is --to (else today) and a missing end today, or
 * --from when that is later. DTSTART is never after DTEND: a period of no rows ending before today
 * started today, and one from a later --from ended today (importers take such a statement as
 * broken or as covering nothing).
 */
export function statementPeriod(
  range: StatementRange,
  filters: ValidFilters,
  now: Date,
): { dtStart: string; dtEnd: string } {
  const today = nzDateOf(now);
  const laterOf = (a: string, b: string) => (a > b ? a : b);
  return {
    dtStart: filters.from ?? range.firstDate ?? filters.to ?? today,
    dtEnd: filters.to ?? range.last?.bookingDate ?? (filters.from !== undefined ? laterOf(filters.from, today) : today),
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
function latestBalance(
  views: ViewReads,
  account: StatementAccount,
  types: readonly string[],
  asOf: string | null,
): Promise<BalanceRead | null> {
  return views.latestBalance(account, types, asOf);
}

/** The last instant of --to's NZ day, as the views store instants (UTC ISO, milliseconds). */
function endOfNzDay(date: string): string {
  return toStoredInstant(nzMidnightAfter(date).minus({ milliseconds: 1 }));
}

async function consentFilter(views: ViewReads, consentId: string): Promise<'Credit' | 'Debit' | null> {
  return creditDebitFilter(((await views.consentPermissions(consentId)) ?? '').split(' '));
}

export type LedgerBalance = { ok: true; balance: OfxBalance } | { ok: false; reason: string };

/**
 * LEDGERBAL: the last exported row's running balance when the bank sent one; else the latest
 * booked balance read at or before --to, carried to the last row (or to --to when there is no
 * row) by the booked rows between; else the reason it cannot be known.
 */
export async function ledgerBalance(
  views: ViewReads,
  account: StatementAccount,
  range: StatementRange,
  filters: ValidFilters,
): Promise<LedgerBalance> {
  if (range.last?.balanceAfter)
    return { ok: true, balance: { amount: range.last.balanceAfter, nzDate: range.last.bookingDate } };
  const toEnd = filters.to ? endOfNzDay(filters.to) : null;
  const read = await latestBalance(views, account, LEDGER_TYPES, toEnd);
  if (!read) {
    return {
      ok: false,
      reason: `no booked balance of ${account.accountId} was read${toEnd ? ` at or before ${filters.to}` : ''} (the consent may lack ReadBalances) and its last row carries no running balance`,
    };
  }
  const target = range.last?.bookingDateTime ?? toEnd ?? read.dateTime;
  const targetDate = range.last?.bookingDate ?? filters.to ?? nzDateOf(read.dateTime);
  if (target === read.dateTime) return { ok: true, balance: { amount: read.amount, nzDate: targetDate } };
  const only = await consentFilter(views, account.consentId);
  if (only) {
    return {
      ok: false,
      reason: `${account.accountId}'s consent grants ${only === 'Credit' ? 'credits' : 'debits'} only, so the balance read at ${read.dateTime} cannot be carried to ${targetDate}`,
    };
  }
  const forward = read.dateTime < target;
  const [after, upTo] = forward ? [read.dateTime, target] : [target, read.dateTime];
  // The rows the export leaves out as served twice are no movement of the bank's balance either.
  const excludeDuplicates = filters.excludeDuplicates === true;
  const between = (await views.bookedAmounts(account, after, upTo, { excludeDuplicates })).map((amount) =>
    forward ? amount : amount.startsWith('-') ? amount.slice(1) : `-${amount}`,
  );
  return { ok: true, balance: { amount: sumDecimals([read.amount, ...between]), nzDate: targetDate } };
}

/** AVAILBAL: the latest available balance read at or before --to, as of its own NZ date. */
export async function availableBalance(
  views: ViewReads,
  account: StatementAccount,
  filters: ValidFilters,
): Promise<OfxBalance | null> {
  const read = await latestBalance(views, account, AVAILABLE_TYPES, filters.to ? endOfNzDay(filters.to) : null);
  return read ? { amount: read.amount, nzDate: nzDateOf(read.dateTime) } : null;
}
