/** Accounts, balances and transactions (docs/bank-api.md §6.1–§6.4). */
import type { DateTime } from 'luxon';
import { paginate, type ListResult } from '../paginate';
import { parseSingle, type SingleResult } from '../parse';
import { formatNz } from '@bankdata/core/nz-time';
import type { Account, AccountId, Balance, ConsentId, Transaction } from '@bankdata/core/schemas';
import type { Transport } from '../transport';

export const accountPath = (accountId: AccountId) => `/v1/accounts/${encodeURIComponent(accountId)}`;

export function listAll<M extends 'Account' | 'Balance' | 'Transaction' | 'Statement'>(
  transport: Transport,
  kind: 'accounts' | 'balances' | 'transactions' | 'statements',
  member: M,
  first: URL,
) {
  return paginate({
    member,
    first,
    origin: transport.base.origin,
    maxPages: transport.maxPages,
    maxRecords: transport.maxRecords,
    fetchPage: (url) => transport.exchange({ kind, method: 'GET', url }),
  });
}

/** GET /v1/accounts?consent_id=: every page. */
export function listAccounts(transport: Transport, consentId: ConsentId): Promise<ListResult<Account>> {
  return listAll(transport, 'accounts', 'Account', transport.url('/v1/accounts', { consent_id: consentId }));
}

/** GET /v1/accounts/{account_id}?consent_id=. */
export async function getAccount(
  transport: Transport,
  consentId: ConsentId,
  accountId: AccountId,
): Promise<SingleResult<'Account'>> {
  const url = transport.url(accountPath(accountId), { consent_id: consentId });
  return parseSingle('Account', await transport.exchange({ kind: 'account', method: 'GET', url }));
}

/** GET /v1/accounts/{account_id}/balances?consent_id= (any page may carry Next: followed). */
export function getBalances(
  transport: Transport,
  consentId: ConsentId,
  accountId: AccountId,
): Promise<ListResult<Balance>> {
  const url = transport.url(`${accountPath(accountId)}/balances`, { consent_id: consentId });
  return listAll(transport, 'balances', 'Balance', url);
}

/** A query date: a DateTime (sent with its Pacific/Auckland offset) or a wire string as is. */
export type QueryDate = DateTime | string;

export function formatQueryDate(value: QueryDate): string {
  return typeof value === 'string' ? value : formatNz(value);
}

export interface TransactionRange {
  /** Inclusive (docs/bank-api.md §6.4: fromBookingDateTime). */
  from: QueryDate;
  /** Inclusive (toBookingDateTime). */
  to: QueryDate;
}

/**
 * GET /v1/accounts/{account_id}/transactions, every page. The `+` of an offset travels as
 * `%2B` (URLSearchParams encodes it), never as a raw `+` that reads as a space.
 */
export function listTransactions(
  transport: Transport,
  consentId: ConsentId,
  accountId: AccountId,
  range: TransactionRange,
): Promise<ListResult<Transaction>> {
  const url = transport.url(`${accountPath(accountId)}/transactions`, {
    consent_id: consentId,
    fromBookingDateTime: formatQueryDate(range.from),
    toBookingDateTime: formatQueryDate(range.to),
  });
  return listAll(transport, 'transactions', 'Transaction', url);
}
