/**
 * What transaction queries taught, on PostgreSQL: the twins of ../sync-state.ts getRowsPerDay,
 * maxRowsPerDay, setRowsPerDay, getWindowKnowledge and recordWindowKnowledge (SQLite migration 0008, PostgreSQL
 * migration 0003; docs/configuration.md "Sync windows"), writing the same values. The sync calls
 * setRowsPerDay once per account after its windows have committed (src/sync/transactions.ts), so
 * the window commit (window-commit.ts) leaves `rows_per_day` as it is, as SQLite's does.
 * Several workers may learn about one bank at once: recordWindowKnowledgePg merges in one upsert
 * (the largest accepted, the smallest refused), so no worker's lesson is lost to a race.
 */
import { and, eq, max, sql } from 'drizzle-orm';
import type { BankName } from '@bankdata/core/schemas';
import { checkRowsPerDay, checkWindowDays, type WatermarkKey, type WindowKnowledge } from '../sync-state';
import { toStoredInstant, type Instant } from '../time';
import type { PgDb } from './open';
import { bankWindow, syncState } from './schema';

/** Transactions per NZ day last seen for the account through this consent, or null. */
export async function getRowsPerDayPg(db: PgDb, key: WatermarkKey): Promise<number | null> {
  const [row] = await db
    .select({ rowsPerDay: syncState.rowsPerDay })
    .from(syncState)
    .where(
      and(
        eq(syncState.bank, key.bank),
        eq(syncState.accountId, key.accountId),
        eq(syncState.consentId, key.consentId),
        eq(syncState.resource, key.resource ?? 'transactions'),
      ),
    );
  return row?.rowsPerDay ?? null;
}

/** ../sync-state.ts maxRowsPerDay: the densest stored account of the bank, or null. */
export async function maxRowsPerDayPg(db: PgDb, bank: BankName): Promise<number | null> {
  const [row] = await db
    .select({ rowsPerDay: max(syncState.rowsPerDay) })
    .from(syncState)
    .where(and(eq(syncState.bank, bank), eq(syncState.resource, 'transactions')));
  return row?.rowsPerDay ?? null;
}

/** Saves the account's density; a new row has no watermark yet (as in SQLite). */
export async function setRowsPerDayPg(
  db: PgDb,
  key: WatermarkKey & { rowsPerDay: number; now: Instant },
): Promise<void> {
  checkRowsPerDay(key.rowsPerDay);
  const updatedAt = toStoredInstant(key.now);
  await db
    .insert(syncState)
    .values({
      bank: key.bank,
      accountId: key.accountId,
      consentId: key.consentId,
      resource: key.resource ?? 'transactions',
      watermark: null,
      rowsPerDay: key.rowsPerDay,
      updatedAt,
    })
    .onConflictDoUpdate({
      target: [syncState.bank, syncState.accountId, syncState.consentId, syncState.resource],
      set: { rowsPerDay: key.rowsPerDay, updatedAt },
    });
}

export async function getWindowKnowledgePg(db: PgDb, bank: BankName): Promise<WindowKnowledge> {
  const [row] = await db
    .select({
      windowDays: bankWindow.windowDays,
      maxAcceptedRows: bankWindow.maxAcceptedRows,
      minRefusedRows: bankWindow.minRefusedRows,
    })
    .from(bankWindow)
    .where(eq(bankWindow.bank, bank));
  return row ?? { windowDays: null, maxAcceptedRows: null, minRefusedRows: null };
}

/**
 * ../sync-state.ts recordWindowKnowledge in one statement: GREATEST and LEAST skip NULLs, so a
 * lesson not given keeps the stored one, and the window size stays unless one is given.
 */
export async function recordWindowKnowledgePg(
  db: PgDb,
  bank: BankName,
  learned: { acceptedRows?: number | null; refusedRows?: number | null; windowDays?: number | null },
  now: Instant,
): Promise<void> {
  const windowDays = learned.windowDays == null ? null : checkWindowDays(learned.windowDays);
  const accepted = learned.acceptedRows ?? null;
  const refused = learned.refusedRows ?? null;
  const updatedAt = toStoredInstant(now);
  await db
    .insert(bankWindow)
    .values({ bank, windowDays: windowDays ?? 1, maxAcceptedRows: accepted, minRefusedRows: refused, updatedAt })
    .onConflictDoUpdate({
      target: bankWindow.bank,
      set: {
        windowDays: windowDays ?? sql`${bankWindow.windowDays}`,
        maxAcceptedRows: sql`GREATEST(${bankWindow.maxAcceptedRows}, ${accepted}::integer)`,
        minRefusedRows: sql`LEAST(${bankWindow.minRefusedRows}, ${refused}::integer)`,
        updatedAt,
      },
    });
}
