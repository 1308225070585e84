/**
 * Unit commits for accounts, balances, statements and parties, written once for both dialects
 * over a SqlRunner: each call is one transaction holding the rows and the unit's rejects, and
 * returns what it did. Two PostgreSQL workers may commit the same account at once (two consents
 * over one account): each transaction takes its accounts' locks before its first write, in one
 * order (dialect-sql.ts `lockAccounts`), as the transaction window does; SQLite's BEGIN IMMEDIATE already holds the
 * one write lock.
 */
import { and, eq, isNull, type Column, type SQL, sql } from 'drizzle-orm';
import type { AccountId, BankName, ConsentId, StatementId } from '@bankdata/core/schemas';
import { mergeRow } from './merge';
import { insertRejects } from './rejects';
import {
  ACCOUNT_DETAIL_COLUMNS,
  type AccountRow,
  type BalanceRow,
  type PartyRow,
  type RejectInput,
  type StatementRow,
} from './rows';
import { accounts, balances, parties, runs, statements } from './sqlite/schema';
import { excluded, insertInto, onConflict, rowOf, selectFrom, updateSet } from './sql-build';
import type { SqlRunner } from './sql-runner';
import { toStoredInstant, type Instant } from './time';
import { allOf, lockAccounts, takeLock } from './dialect-sql';
import { ownedRowOf } from './row-owner';
import { countedOutcome } from './window-commit';

export interface UnitInput<Row> {
  bank: BankName;
  consentId: ConsentId;
  rows: readonly Row[];
  rejects?: readonly RejectInput[];
  runId: string | null;
  now: Instant;
}

export interface UpsertCounts {
  added: number;
  updated: number;
  unchanged: number;
}

export interface InsertCounts {
  added: number;
  unchanged: number;
}

export const CONSENT_ONLY = ['consentId'] as const;

/** */
export function checkRowsBelong(
  input: { bank: BankName; consentId: ConsentId },
  rows: readonly { bank: BankName; consentId: ConsentId }[],
): void {
  for (const row of rows) {
    if (row.bank !== input.bank || row.consentId !== input.consentId) {
      throw new RangeError(`row of ${row.bank}/${row.consentId} committed as ${input.bank}/${input.consentId}`);
    }
  }
}

/** Accounts keyed by (bank, AccountId) (docs/bank-api.md §6.0). Accounts not returned are kept. */
export function commitAccounts(r: SqlRunner, input: UnitInput<AccountRow>): Promise<UpsertCounts> {
  return commitUpserts(r, input, async (tx, row, now) => {
    const key = allOf(eq(accounts.bank, row.bank), eq(accounts.accountId, row.accountId));
    const found = await tx.get(sql`${selectFrom(accounts)} WHERE ${key}`);
    const stored = found && rowOf(accounts, found);
    const write = planUpsertWrite(stored, await ownedRowOf(tx, row, stored), ACCOUNT_DETAIL_COLUMNS, now);
    if (write.outcome === 'added') await tx.run(insertInto(accounts, write.values));
    else await tx.run(sql`${updateSet(accounts, write.values)} WHERE ${key}`);
    return { outcome: write.outcome, stored };
  });
}

/** The balance's identity: a row per (bank, account, type, date_time, amount, indicator). */
const BALANCE_IDENTITY = [
  balances.bank,
  balances.accountId,
  balances.type,
  balances.dateTime,
  balances.amount,
  balances.creditDebitIndicator,
] as const;

/**
 * Balance history: a row only when (bank, account, type, date_time, amount, indicator) is new. A
 * balance fetched again is not rewritten (its fetched_at, consent and raw JSON stay those of the
 * fetch that first returned it) but records that fetch: `last_seen_at` moves to the row's
 * fetchedAt, never back (a fetch of before it, committed after it by another worker, leaves it).
 * So a balance the bank restated and then restated back (A, B, A) is A as the bank's latest word
 * (LATEST_BALANCE_FIRST). Counted `unchanged`.
 */
export function commitBalances(r: SqlRunner, input: UnitInput<BalanceRow>): Promise<InsertCounts> {
  checkRowsBelong(input, input.rows);
  const now = toStoredInstant(input.now);
  return r.transaction(async (tx) => {
    await lockAccounts(tx, input.rows);
    let added = 0;
    // One row at a time: ids follow the order of the rows.
    for (const row of input.rows) {
      const seen = excluded(balances.lastSeenAt);
      const written = await tx.all(
        sql`${insertInto(balances, { ...row, lastSeenAt: row.fetchedAt })}
            ${onConflict(balances, BALANCE_IDENTITY, { lastSeenAt: seen })} WHERE ${balances.lastSeenAt} < ${seen}
            RETURNING fetched_at, last_seen_at`,
      );
      // Returned: a row inserted (first and last seen by this fetch) or one seen again (first
      // fetched before, so its fetched_at is older than the last_seen_at just written).
      added += written.filter((w) => w.fetched_at === w.last_seen_at).length;
    }
    await insertRejects(tx, input.rejects ?? [], input.runId, now);
    return { added, unchanged: input.rows.length - added };
  });
}

/** Statements keyed by (bank, AccountId, StatementId). File metadata is written separately. */
export function commitStatements(r: SqlRunner, input: UnitInput<StatementRow>): Promise<UpsertCounts> {
  return commitUpserts(r, input, async (tx, row, now) => {
    const key = statementKey(row);
    const found = await tx.get(sql`${selectFrom(statements)} WHERE ${key}`);
    const stored = found && rowOf(statements, found);
    const write = planUpsertWrite(stored, await ownedRowOf(tx, row, stored), [], now);
    if (write.outcome === 'added') await tx.run(insertInto(statements, write.values));
    else await tx.run(sql`${updateSet(statements, write.values)} WHERE ${key}`);
    return { outcome: write.outcome, stored };
  });
}

/** What one upsert did, and the row stored before it (undefined when there was none). */
interface CountedWrite {
  outcome: keyof UpsertCounts;
  stored: { firstSeenAt: string } | undefined;
}

/** The stored start of the run writing (runs.started_at), or null for a write outside a run. */
async function runStartOf(tx: SqlRunner, runId: string | null): Promise<string | null> {
  if (runId === null) return null;
  const row = await tx.get(sql`SELECT started_at FROM runs WHERE ${eq(runs.runId, runId)}`);
  return (row?.started_at as string | null | undefined) ?? null;
}

/** A unit of rows upserted one by one (`write`), each under its account's lock, and its rejects: one transaction. */
function commitUpserts<Row extends { bank: BankName; accountId: AccountId; consentId: ConsentId }>(
  r: SqlRunner,
  input: UnitInput<Row>,
  write: (tx: SqlRunner, row: Row, now: string) => Promise<CountedWrite>,
): Promise<UpsertCounts> {
  checkRowsBelong(input, input.rows);
  const now = toStoredInstant(input.now);
  return r.transaction(async (tx) => {
    const counts: UpsertCounts = { added: 0, updated: 0, unchanged: 0 };
    await lockAccounts(tx, input.rows);
    const runStartedAt = await runStartOf(tx, input.runId);
    for (const row of input.rows) {
      const { outcome, stored } = await write(tx, row, now);
      counts[countedOutcome(outcome, stored, runStartedAt)] += 1;
    }
    await insertRejects(tx, input.rejects ?? [], input.runId, now);
    return counts;
  });
}

export interface StatementFileInput {
  bank: BankName;
  accountId: AccountId;
  statementId: StatementId;
  /** Relative to the data dir, as the file now lies on disk. */
  filePath: string;
  /**
   * Where the file lies now (absolute). The SQLite store records the path only; the PostgreSQL
   * store copies the bytes into `statement_files` (docs/postgres.md "Statement files") and
   * refuses a call without it.
   */
  localPath?: string;
  contentType: string;
  sha256: string;
  bytes: number;
  now: Instant;
}

/** Whose unit a batch of statement files is: its consent, and the run writing it (null outside a sync). */
export interface StatementFileUnit {
  runId: string | null;
  consentId: ConsentId;
}

/** Throws unless the path is relative and the hash and size well formed. */
export function checkStatementFile(input: StatementFileInput): void {
  if (input.filePath.startsWith('/') || input.filePath.split(/[\\/]/).includes('..')) {
    throw new RangeError(`statement file path must be relative to the data dir: ${input.filePath}`);
  }
  if (!/^[0-9a-f]{64}$/.test(input.sha256)) throw new RangeError(`not a hex SHA-256: ${input.sha256}`);
  if (!Number.isSafeInteger(input.bytes) || input.bytes < 0) throw new RangeError(`bad byte count: ${input.bytes}`);
}

/**
 * Records statements' files once they are on disk (the caller writes and fsyncs them first): each
 * statement's file columns, after its `alongside` (PostgreSQL stores the file's bytes: pg-store.ts),
 * all in one transaction, so that a batch of files costs one commit; a statement not stored
 * fails the whole call and records none.
 */
export async function recordStatementFiles(
  r: SqlRunner,
  inputs: readonly StatementFileInput[],
  alongside: readonly ((tx: SqlRunner, now: string) => Promise<void>)[] = [],
): Promise<void> {
  for (const input of inputs) checkStatementFile(input);
  if (inputs.length === 0) return;
  await r.transaction(async (tx) => {
    // The account's lock, as the statements' commit takes it: a file recorded beside another
    // worker's listing of the same account would otherwise hold rows the listing needs.
    await lockAccounts(tx, inputs);
    for (const [i, input] of inputs.entries()) {
      const now = toStoredInstant(input.now);
      await alongside[i]?.(tx, now);
      const set = {
        filePath: input.filePath,
        fileContentType: input.contentType,
        fileSha256: input.sha256,
        fileBytes: input.bytes,
        fileFetchedAt: now,
      };
      const done = await tx.all(sql`${updateSet(statements, set)} WHERE ${statementKey(input)} RETURNING statement_id`);
      if (done.length !== 1) {
        throw new RangeError(`no stored statement ${input.bank}/${input.accountId}/${input.statementId}`);
      }
    }
  });
}

/** Statements of an account whose file is not on disk yet. */
export async function listStatementsWithoutFile(
  r: SqlRunner,
  key: { bank: BankName; accountId: AccountId },
): Promise<StatementId[]> {
  const rows = await r.all(
    sql`SELECT statement_id FROM statements WHERE ${and(eq(statements.bank, key.bank), eq(statements.accountId, key.accountId), isNull(statements.filePath))} ORDER BY statement_id`,
  );
  return rows.map((row) => row.statement_id as StatementId);
}

function statementKey(row: { bank: BankName; accountId: AccountId; statementId: StatementId }): SQL {
  return allOf(
    eq(statements.bank, row.bank),
    eq(statements.accountId, row.accountId),
    eq(statements.statementId, row.statementId),
  );
}

export interface PartyInput {
  bank: BankName;
  consentId: ConsentId;
  /** null: the consenting customer (GET /v1/party); else that account's owner. */
  accountId: AccountId | null;
  /** null when the record was rejected (then `rejects` says why). */
  row: PartyRow | null;
  rejects?: readonly RejectInput[];
  runId: string | null;
  now: Instant;
}

/** The input's row, checked to be of its bank, consent and account. */
export function checkPartyInput(input: PartyInput): PartyRow | null {
  const { row } = input;
  if (row) {
    checkRowsBelong(input, [row]);
    if (row.accountId !== input.accountId) throw new RangeError('party row is not of the given account');
  }
  return row;
}

/**
 * The stored party a key names: the consent's customer (accountId null, one per bank and consent)
 * or the account's owner (one per bank and account, whichever consent read it).
 */
export function partyKey(
  t: Record<'bank' | 'consentId' | 'accountId', Column>,
  key: { bank: BankName; consentId: ConsentId; accountId: AccountId | null },
): SQL {
  return key.accountId === null
    ? allOf(eq(t.bank, key.bank), eq(t.consentId, key.consentId), isNull(t.accountId))
    : allOf(eq(t.bank, key.bank), eq(t.accountId, key.accountId));
}

/**
 * The party of a consent (customer) or of an account (owner). Each endpoint answers one object,
 * so the new answer replaces the stored one, whatever its PartyId.
 */
export function commitParty(r: SqlRunner, input: PartyInput): Promise<UpsertCounts> {
  const row = checkPartyInput(input);
  const now = toStoredInstant(input.now);
  const key = partyKey(parties, input);
  return r.transaction(async (tx) => {
    const counts: UpsertCounts = { added: 0, updated: 0, unchanged: 0 };
    if (row) {
      if (input.accountId === null) await takeLock(tx, 'customer', `${input.bank}/${input.consentId}`);
      else await lockAccounts(tx, [{ bank: input.bank, accountId: input.accountId }]);
      const found = await tx.get(sql`${selectFrom(parties)} WHERE ${key}`);
      const stored = found && rowOf(parties, found);
      const write = planUpsertWrite(stored, await ownedRowOf(tx, row, stored), [], now);
      if (write.outcome === 'added') await tx.run(insertInto(parties, write.values));
      else await tx.run(sql`${updateSet(parties, write.values)} WHERE ${key}`);
      counts[countedOutcome(write.outcome, stored, await runStartOf(tx, input.runId))] += 1;
    }
    await insertRejects(tx, input.rejects ?? [], input.runId, now);
    return counts;
  });
}

export type UpsertPlan<R> = { outcome: 'added' } | { outcome: 'unchanged' } | { outcome: 'updated'; merged: R };

/** Insert when new; rewrite only when the content changed (merge.ts); else touch bookkeeping. */
export function planUpsert<R extends { rawJson: string; consentId: ConsentId }>(
  stored: R | undefined,
  row: R,
  coalesce: readonly (keyof R)[],
): UpsertPlan<R> {
  if (!stored) return { outcome: 'added' };
  const { merged, changed } = mergeRow<R>(stored, row, { coalesce, bookkeeping: CONSENT_ONLY });
  return changed ? { outcome: 'updated', merged } : { outcome: 'unchanged' };
}

/**
 * What an upsert writes (planUpsert): a new row with its bookkeeping; a changed row merged, last
 * seen and updated now; an unchanged one only touched (last seen, and its consent: row-owner.ts).
 *
 */
export type UpsertWrite<R> =
  | { outcome: 'added'; values: R & { firstSeenAt: string; lastSeenAt: string; updatedAt: string } }
  | { outcome: 'updated'; values: R & { lastSeenAt: string; updatedAt: string } }
  | { outcome: 'unchanged'; values: { lastSeenAt: string; consentId: ConsentId } };

export function planUpsertWrite<R extends { rawJson: string; consentId: ConsentId }>(
  stored: R | undefined,
  row: R,
  coalesce: readonly (keyof R)[],
  now: string,
): UpsertWrite<R> {
  const plan = planUpsert(stored, row, coalesce);
  if (plan.outcome === 'added')
    return { outcome: 'added', values: { ...row, firstSeenAt: now, lastSeenAt: now, updatedAt: now } };
  if (plan.outcome === 'unchanged')
    return { outcome: 'unchanged', values: { lastSeenAt: now, consentId: row.consentId } };
  return { outcome: 'updated', values: { ...plan.merged, lastSeenAt: now, updatedAt: now } };
}

/**
 * When party data was last read: the consent's customer (accountId null) or the account's
 * owner (whichever consent read it). Null when never.
 */
export async function partyLastSeen(
  r: SqlRunner,
  key: { bank: BankName; consentId: ConsentId; accountId: AccountId | null },
): Promise<string | null> {
  const row = await r.get(sql`SELECT max(last_seen_at) AS at FROM parties WHERE ${partyKey(parties, key)}`);
  return (row?.at as string | null | undefined) ?? null;
}
