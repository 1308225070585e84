/**
 * Unit commits for accounts, balances, statements and parties: each call is one SQLite
 * transaction holding the rows and the unit's rejects, and returns what it did.
 */
import { and, desc, eq, isNull, max, type SQL } from 'drizzle-orm';
import type { AccountId, BankName, ConsentId, StatementId } from '../api/schemas';
import { inWriteTransaction, type BankdataDb, type Conn } from './db';
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
import { accounts, balances, parties, statements } from './schema';
import { toStoredInstant, type Instant } from './time';

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
export function checkRowsBelong(input: { bank: BankName; consentId: ConsentId }, rows: readonly { bank: BankName; consentId: ConsentId }[]): void {
  for (const row of rows) {
    if (row.bank !== input.bank || row.consentId !== input.consentId) {
      throw new RangeError(`row of ${row.bank}/${row.consentId} committed as ${input.bank}/${input.consentId}`);
    }
  }
}

/** Accounts keyed by (bank, AccountId) (docs/bank-api.md §6.0). Accounts not returned are kept. */
export function commitAccounts(db: BankdataDb, input: UnitInput<AccountRow>): UpsertCounts {
  checkRowsBelong(input, input.rows);
  const now = toStoredInstant(input.now);
  return inWriteTransaction(db, (tx) => {
    const counts: UpsertCounts = { added: 0, updated: 0, unchanged: 0 };
    for (const row of input.rows) {
      const key = and(eq(accounts.bank, row.bank), eq(accounts.accountId, row.accountId))!;
      const outcome = upsert({
        stored: tx.select().from(accounts).where(key).get(),
        row,
        coalesce: ACCOUNT_DETAIL_COLUMNS,
        insert: () => tx.insert(accounts).values({ ...row, firstSeenAt: now, lastSeenAt: now, updatedAt: now }).run(),
        touch: () => tx.update(accounts).set({ lastSeenAt: now, consentId: row.consentId }).where(key).run(),
        update: (merged) => tx.update(accounts).set({ ...merged, lastSeenAt: now, updatedAt: now }).where(key).run(),
      });
      counts[outcome] += 1;
    }
    insertRejectRows(tx, input.rejects ?? [], input.runId, now);
    return counts;
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
  checkRowsBelong(input, input.rows);
  const now = toStoredInstant(input.now);
  return inWriteTransaction(db, (tx) => {
    const counts: UpsertCounts = { added: 0, updated: 0, unchanged: 0 };
    for (const row of input.rows) {
      const key = statementKey(row);
      const outcome = upsert({
        stored: tx.select().from(statements).where(key).get(),
        row,
        coalesce: [],
        insert: () => tx.insert(statements).values({ ...row, firstSeenAt: now, lastSeenAt: now, updatedAt: now }).run(),
        touch: () => tx.update(statements).set({ lastSeenAt: now, consentId: row.consentId }).where(key).run(),
        update: (merged) => tx.update(statements).set({ ...merged, lastSeenAt: now, updatedAt: now }).where(key).run(),
      });
      counts[outcome] += 1;
    }
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
  return and(
    eq(statements.bank, row.bank),
    eq(statements.accountId, row.accountId),
    eq(statements.statementId, row.statementId),
  )!;
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

/**
 * The party of a consent (customer) or of an account (owner). Each endpoint answers one object,
 * so the new answer replaces the stored one, whatever its PartyId.
 */
export function commitParty(db: BankdataDb, input: PartyInput): UpsertCounts {
  const { row } = input;
  if (row) {
    checkRowsBelong(input, [row]);
    if (row.accountId !== input.accountId) throw new RangeError('party row is not of the given account');
  }
  const now = toStoredInstant(input.now);
  const key =
    input.accountId === null
      ? and(eq(parties.bank, input.bank), eq(parties.consentId, input.consentId), isNull(parties.accountId))!
      : and(eq(parties.bank, input.bank), eq(parties.accountId, input.accountId))!;
  return inWriteTransaction(db, (tx) => {
    const counts: UpsertCounts = { added: 0, updated: 0, unchanged: 0 };
    if (row) {
      const outcome = upsert({
        stored: tx.select().from(parties).where(key).get(),
        row,
        coalesce: [],
        insert: () => tx.insert(parties).values({ ...row, firstSeenAt: now, lastSeenAt: now, updatedAt: now }).run(),
        touch: () => tx.update(parties).set({ lastSeenAt: now, consentId: row.consentId }).where(key).run(),
        update: (merged) => tx.update(parties).set({ ...merged, lastSeenAt: now, updatedAt: now }).where(key).run(),
      });
      counts[outcome] += 1;
    }
    insertRejectRows(tx, input.rejects ?? [], input.runId, now);
    return counts;
  });
}

export type UpsertPlan<R> = { outcome: 'added' } | { outcome: 'unchanged' } | { outcome: 'updated'; merged: R };

/** Insert when new; rewrite only when the content changed (merge.ts); else touch bookkeeping. Shared with the PostgreSQL store. */
export function planUpsert<R extends { rawJson: string; consentId: ConsentId }>(stored: R | undefined, row: R, coalesce: readonly (keyof R)[]): UpsertPlan<R> {
  if (!stored) return { outcome: 'added' };
  const { merged, changed } = mergeRow<R>(stored, row, { coalesce, bookkeeping: CONSENT_ONLY });
  return changed ? { outcome: 'updated', merged } : { outcome: 'unchanged' };
}

function upsert<R extends { rawJson: string; consentId: ConsentId }>(step: {
  stored: R | undefined;
  row: R;
  coalesce: readonly (keyof R)[];
  insert: () => unknown;
  touch: () => unknown;
  update: (merged: R) => unknown;
}): 'added' | 'updated' | 'unchanged' {
  const plan = planUpsert(step.stored, step.row, step.coalesce);
  if (plan.outcome === 'added') step.insert();
  else if (plan.outcome === 'unchanged') step.touch();
  else step.update(plan.merged);
  return plan.outcome;
}

/**
 * When party data was last read: the consent's customer (accountId null) or the account's
 * owner (whichever consent read it). Null when never. Async like the Store will be.
 */
export async function partyLastSeen(db: Conn, key: { bank: BankName; consentId: ConsentId; accountId: AccountId | null }): Promise<string | null> {
  const where =
    key.accountId === null
      ? and(eq(parties.bank, key.bank), eq(parties.consentId, key.consentId), isNull(parties.accountId))
      : and(eq(parties.bank, key.bank), eq(parties.accountId, key.accountId));
  return db.select({ at: max(parties.lastSeenAt) }).from(parties).where(where).get()?.at ?? null;
}

/** The `StartDateTime` of the newest statement held for the account, or null. */
export async function latestStatementStart(db: Conn, key: { bank: BankName; accountId: AccountId }): Promise<string | null> {
  const row = db
    .select({ start: statements.startDateTime })
    .from(statements)
    .where(and(eq(statements.bank, key.bank), eq(statements.accountId, key.accountId)))
    .orderBy(desc(statements.startDateTime))
    .limit(1)
    .get();
  return row?.start ?? null;
}
