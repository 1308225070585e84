/**
 * The unit commits of ../resource-writes.ts on PostgreSQL (accounts, balances, statements and
 * their files, parties), each one transaction with its rejects, with the same merge rules
 * (`planUpsert`, ../merge.ts), so both dialects store the same rows. Two workers may commit the
 * same account at once (two consents over one account): each read-then-write takes the account's
 * advisory lock first (window-commit.ts `lockAccount`), as the transaction window does.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { eq, sql, type SQL } from 'drizzle-orm';
import type { AccountId, BankName, ConsentId, StatementId } from '@bankdata/core/schemas';
import {
  checkPartyInput,
  checkRowsBelong,
  checkStatementFile,
  partyKey,
  planUpsertWrite,
  type InsertCounts,
  type PartyInput,
  type StatementFileInput,
  type UnitInput,
  type UpsertCounts,
} from '../resource-writes';
import { ACCOUNT_DETAIL_COLUMNS, type AccountRow, type BalanceRow, type StatementRow } from '../rows';
import { toStoredInstant } from '../time';
import type { PgDb } from './open';
import { accounts, balances, parties, statementFiles, statements } from './schema';
import { otherOwners, withOwner } from '../row-owner';
import { insertRejectsPg, liveConsentsPg, lockAccount } from './window-commit';
import { allOf } from '../dialect-sql';

export type PgTx = Parameters<Parameters<PgDb['transaction']>[0]>[0];

/** ../row-owner.ts `ownedRow` on PostgreSQL. */
async function ownedRowPg<R extends { consentId: ConsentId }>(
  tx: PgTx,
  row: R,
  stored: { consentId: ConsentId } | undefined,
): Promise<R> {
  return withOwner(row, stored, await liveConsentsPg(tx, otherOwners([stored], row.consentId)));
}

export async function commitAccountsPg(db: PgDb, input: UnitInput<AccountRow>): Promise<UpsertCounts> {
  return commitUpsertsPg(db, input, async (tx, row, now) => {
    const key = allOf(eq(accounts.bank, row.bank), eq(accounts.accountId, row.accountId));
    const [stored] = await tx.select().from(accounts).where(key);
    const write = planUpsertWrite<AccountRow>(
      stored && withoutBookkeeping(stored),
      await ownedRowPg(tx, row, stored),
      ACCOUNT_DETAIL_COLUMNS,
      now,
    );
    if (write.outcome === 'added') await tx.insert(accounts).values(write.values);
    else await tx.update(accounts).set(write.values).where(key);
    return write.outcome;
  });
}

export async function commitBalancesPg(db: PgDb, input: UnitInput<BalanceRow>): Promise<InsertCounts> {
  checkRowsBelong(input, input.rows);
  const now = toStoredInstant(input.now);
  return db.transaction(async (tx) => {
    let added = 0;
    // One row at a time, as SQLite's: ids follow the order of the rows.
    for (const row of input.rows)
      added += (await tx.insert(balances).values(row).onConflictDoNothing().returning({ id: balances.id })).length;
    await insertRejectsPg(tx, input.rejects ?? [], input.runId, now);
    return { added, unchanged: input.rows.length - added };
  });
}

function statementKey(row: { bank: BankName; accountId: AccountId; statementId: StatementId }): SQL {
  return allOf(
    eq(statements.bank, row.bank),
    eq(statements.accountId, row.accountId),
    eq(statements.statementId, row.statementId),
  );
}

export async function commitStatementsPg(db: PgDb, input: UnitInput<StatementRow>): Promise<UpsertCounts> {
  return commitUpsertsPg(db, input, async (tx, row, now) => {
    const key = statementKey(row);
    const [stored] = await tx.select().from(statements).where(key);
    const write = planUpsertWrite<StatementRow>(
      stored && statementRowOf(stored),
      await ownedRowPg(tx, row, stored),
      [],
      now,
    );
    if (write.outcome === 'added') await tx.insert(statements).values(write.values);
    else await tx.update(statements).set(write.values).where(key);
    return write.outcome;
  });
}

/** A unit of rows upserted one by one (`write`), each under its account's lock, and its rejects: one transaction. */
async function commitUpsertsPg<Row extends { bank: BankName; accountId: AccountId; consentId: ConsentId }>(
  db: PgDb,
  input: UnitInput<Row>,
  write: (tx: PgTx, row: Row, now: string) => Promise<keyof UpsertCounts>,
): Promise<UpsertCounts> {
  checkRowsBelong(input, input.rows);
  const now = toStoredInstant(input.now);
  return db.transaction(async (tx) => {
    const counts: UpsertCounts = { added: 0, updated: 0, unchanged: 0 };
    for (const row of input.rows) {
      await lockAccount(tx, row.bank, row.accountId);
      counts[await write(tx, row, now)] += 1;
    }
    await insertRejectsPg(tx, input.rejects ?? [], input.runId, now);
    return counts;
  });
}

/**
 * The statement's file: its bytes (read from `localPath`, checked against the hash and size the
 * sync measured) into `statement_files`, and the statement's file columns, in one transaction
 * (docs/postgres.md "Statement files").
 */
export async function recordStatementFilePg(db: PgDb, input: StatementFileInput): Promise<void> {
  checkStatementFile(input);
  if (!input.localPath)
    throw new RangeError(`statement file ${input.filePath}: the PostgreSQL store needs its bytes (localPath)`);
  const content = await readFile(input.localPath);
  const sha256 = createHash('sha256').update(content).digest('hex');
  if (sha256 !== input.sha256 || content.byteLength !== input.bytes) {
    throw new Error(`statement file ${input.filePath}: the bytes on disk differ from those recorded`);
  }
  const now = toStoredInstant(input.now);
  await db.transaction(async (tx) => {
    const file = { contentType: input.contentType, sha256, bytes: input.bytes, content, storedAt: now };
    await tx
      .insert(statementFiles)
      .values({ filePath: input.filePath, ...file })
      .onConflictDoUpdate({ target: statementFiles.filePath, set: file });
    const updated = await tx
      .update(statements)
      .set({
        filePath: input.filePath,
        fileContentType: input.contentType,
        fileSha256: sha256,
        fileBytes: input.bytes,
        fileFetchedAt: now,
      })
      .where(statementKey(input))
      .returning({ id: statements.statementId });
    if (updated.length !== 1)
      throw new RangeError(`no stored statement ${input.bank}/${input.accountId}/${input.statementId}`);
  });
}

export async function commitPartyPg(db: PgDb, input: PartyInput): Promise<UpsertCounts> {
  const row = checkPartyInput(input);
  const now = toStoredInstant(input.now);
  const key = partyKey(parties, input);
  return db.transaction(async (tx) => {
    const counts: UpsertCounts = { added: 0, updated: 0, unchanged: 0 };
    if (row) {
      if (input.accountId === null) {
        // The customer's party: one per (bank, consent); its own lock space (seed 1).
        await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtextextended(${`${input.bank}/${input.consentId}`}, 1))`);
      } else {
        await lockAccount(tx, input.bank, input.accountId);
      }
      const [stored] = await tx.select().from(parties).where(key);
      const write = planUpsertWrite(stored && partyRowOf(stored), await ownedRowPg(tx, row, stored), [], now);
      if (write.outcome === 'added') await tx.insert(parties).values(write.values);
      else await tx.update(parties).set(write.values).where(key);
      counts[write.outcome] += 1;
    }
    await insertRejectsPg(tx, input.rejects ?? [], input.runId, now);
    return counts;
  });
}

// The stored rows without the store's bookkeeping columns: what the merge compares.
function withoutBookkeeping<R extends { firstSeenAt: string; lastSeenAt: string; updatedAt: string }>(
  row: R,
): Omit<R, 'firstSeenAt' | 'lastSeenAt' | 'updatedAt'> {
  const { firstSeenAt: _f, lastSeenAt: _l, updatedAt: _u, ...rest } = row;
  return rest;
}

function statementRowOf(stored: typeof statements.$inferSelect): StatementRow {
  const {
    filePath: _p,
    fileContentType: _c,
    fileSha256: _s,
    fileBytes: _b,
    fileFetchedAt: _a,
    ...rest
  } = withoutBookkeeping(stored);
  return rest;
}

function partyRowOf(stored: typeof parties.$inferSelect) {
  const { id: _id, ...rest } = withoutBookkeeping(stored);
  return rest;
}
