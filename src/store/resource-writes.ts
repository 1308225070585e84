/**
 * Unit commits for accounts, balances, statements and parties: each call is one SQLite
 * transaction holding the rows and the unit's rejects, and returns what it did.
 */
import { and, desc, eq, isNull, max, type Column, type SQL } from 'drizzle-orm';
import type { AccountId, BankName, ConsentId, StatementId } from '@bankdata/core/schemas';
import { inWriteTransaction, type BankdataDb, type Conn } from './sqlite/db';
import { mergeRow } from './merge';
import { insertRejectRows } from './rejects';
import {
  ACCOUNT_DETAIL_COLUMNS,
  type AccountRow,
  type BalanceRow,
  type PartyRow,
  type RejectInput,
  type StatementRow,
} from './rows';
import { accounts, balances, parties, statements } from './sqlite/schema';
import { toStoredInstant, type Instant } from './time';
import { allOf } from './dialect-sql';
import { ownedRow } from './row-owner';

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

/** Shared with the PostgreSQL store. */
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
export function commitAccounts(db: BankdataDb, input: UnitInput<AccountRow>): UpsertCounts {
  return commitUpserts(db, input, (tx, row, now) => {
    const key = allOf(eq(accounts.bank, row.bank), eq(accounts.accountId, row.accountId));
    const stored = tx.select().from(accounts).where(key).get();
    const write = planUpsertWrite(stored, ownedRow(tx, row, stored), ACCOUNT_DETAIL_COLUMNS, now);
    if (write.outcome === 'added') tx.insert(accounts).values(write.values).run();
    else tx.update(accounts).set(write.values).where(key).run();
    return write.outcome;
  });
}

/** Balance history: a row only when (bank, account, type, date_time, amount, indicator) is new. */
export function commitBalances(db: BankdataDb, input: UnitInput<BalanceRow>): InsertCounts {
  checkRowsBelong(input, input.rows);
  const now = toStoredInstant(input.now);
  return inWriteTransaction(db, (tx) => {
    let added = 0;
    for (const row of input.rows) added += tx.insert(balances).values(row).onConflictDoNothing().run().changes;
    insertRejectRows(tx, input.rejects ?? [], input.runId, now);
    return { added, unchanged: input.rows.length - added };
  });
}

/** Statements keyed by (bank, AccountId, StatementId). File metadata is written separately. */
export function commitStatements(db: BankdataDb, input: UnitInput<StatementRow>): UpsertCounts {
  return commitUpserts(db, input, (tx, row, now) => {
    const key = statementKey(row);
    const stored = tx.select().from(statements).where(key).get();
    const write = planUpsertWrite(stored, ownedRow(tx, row, stored), [], now);
    if (write.outcome === 'added') tx.insert(statements).values(write.values).run();
    else tx.update(statements).set(write.values).where(key).run();
    return write.outcome;
  });
}

/** A unit of rows upserted one by one (`write`), and its rejects: one transaction. */
function commitUpserts<Row extends { bank: BankName; consentId: ConsentId }>(
  db: BankdataDb,
  input: UnitInput<Row>,
  write: (tx: Conn, row: Row, now: string) => keyof UpsertCounts,
): UpsertCounts {
  checkRowsBelong(input, input.rows);
  const now = toStoredInstant(input.now);
  return inWriteTransaction(db, (tx) => {
    const counts: UpsertCounts = { added: 0, updated: 0, unchanged: 0 };
    for (const row of input.rows) counts[write(tx, row, now)] += 1;
    insertRejectRows(tx, input.rejects ?? [], input.runId, now);
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

/** Throws unless the path is relative and the hash and size well formed. Shared with the PostgreSQL store. */
export function checkStatementFile(input: StatementFileInput): void {
  if (input.filePath.startsWith('/') || input.filePath.split(/[\\/]/).includes('..')) {
    throw new RangeError(`statement file path must be relative to the data dir: ${input.filePath}`);
  }
  if (!/^[0-9a-f]{64}$/.test(input.sha256)) throw new RangeError(`not a hex SHA-256: ${input.sha256}`);
  if (!Number.isSafeInteger(input.bytes) || input.bytes < 0) throw new RangeError(`bad byte count: ${input.bytes}`);
}

/** Records a statement's file once it is on disk (the caller writes the file first). */
export function recordStatementFile(db: BankdataDb, input: StatementFileInput): void {
  checkStatementFile(input);
  const now = toStoredInstant(input.now);
  const result = inWriteTransaction(db, (tx) =>
    tx
      .update(statements)
      .set({
        filePath: input.filePath,
        fileContentType: input.contentType,
        fileSha256: input.sha256,
        fileBytes: input.bytes,
        fileFetchedAt: now,
      })
      .where(statementKey(input))
      .run(),
  );
  if (result.changes !== 1) {
    throw new RangeError(`no stored statement ${input.bank}/${input.accountId}/${input.statementId}`);
  }
}

/** Statements of an account whose file is not on disk yet. */
export function listStatementsWithoutFile(
  db: BankdataDb,
  key: { bank: BankName; accountId: AccountId },
): StatementId[] {
  return db
    .select({ statementId: statements.statementId })
    .from(statements)
    .where(and(eq(statements.bank, key.bank), eq(statements.accountId, key.accountId), isNull(statements.filePath)))
    .orderBy(statements.statementId)
    .all()
    .map((r) => r.statementId);
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

/** The input's row, checked to be of its bank, consent and account. Shared with the PostgreSQL store. */
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
 * or the account's owner (one per bank and account, whichever consent read it). Either dialect's
 * `parties` table; shared with the PostgreSQL store.
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
export function commitParty(db: BankdataDb, input: PartyInput): UpsertCounts {
  const row = checkPartyInput(input);
  const now = toStoredInstant(input.now);
  const key = partyKey(parties, input);
  return inWriteTransaction(db, (tx) => {
    const counts: UpsertCounts = { added: 0, updated: 0, unchanged: 0 };
    if (row) {
      const stored = tx.select().from(parties).where(key).get();
      const write = planUpsertWrite(stored, ownedRow(tx, row, stored), [], now);
      if (write.outcome === 'added') tx.insert(parties).values(write.values).run();
      else tx.update(parties).set(write.values).where(key).run();
      counts[write.outcome] += 1;
    }
    insertRejectRows(tx, input.rejects ?? [], input.runId, now);
    return counts;
  });
}

export type UpsertPlan<R> = { outcome: 'added' } | { outcome: 'unchanged' } | { outcome: 'updated'; merged: R };

/** Insert when new; rewrite only when the content changed (merge.ts); else touch bookkeeping. Shared with the PostgreSQL store. */
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
 * Shared with the PostgreSQL store.
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
 * owner (whichever consent read it). Null when never. Async like the Store will be.
 */
export async function partyLastSeen(
  db: Conn,
  key: { bank: BankName; consentId: ConsentId; accountId: AccountId | null },
): Promise<string | null> {
  return (
    db
      .select({ at: max(parties.lastSeenAt) })
      .from(parties)
      .where(partyKey(parties, key))
      .get()?.at ?? null
  );
}

/** The `StartDateTime` of the newest statement held for the account, or null. */
export async function latestStatementStart(
  db: Conn,
  key: { bank: BankName; accountId: AccountId },
): Promise<string | null> {
  const row = db
    .select({ start: statements.startDateTime })
    .from(statements)
    .where(and(eq(statements.bank, key.bank), eq(statements.accountId, key.accountId)))
    .orderBy(desc(statements.startDateTime))
    .limit(1)
    .get();
  return row?.start ?? null;
}
