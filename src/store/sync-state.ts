/**
 * Sync state: per (bank, account, consent, resource) watermark, the oldest open pending row, and per bank
 * the window size that worked (docs/configuration.md "Sync rules").
 */
import { and, eq, isNull, max, min } from 'drizzle-orm';
import type { AccountId, BankName, ConsentId } from '@bankdata/core/schemas';
import type { BankdataDb, Conn } from './sqlite/db';
import { bankWindow, syncState, transactions } from './sqlite/schema';
import { toStoredInstant, toStoredInstantOrNull, type Instant } from './time';

export type SyncResource = 'transactions' | 'statements';

export interface WatermarkKey {
  bank: BankName;
  accountId: AccountId;
  /** The consent the account is read through: each has its own window and filter. */
  consentId: ConsentId;
  resource?: SyncResource;
}

/** The sync_state row of one (bank, account, consent, resource). */
function stateKey(key: WatermarkKey) {
  return and(
    eq(syncState.bank, key.bank),
    eq(syncState.accountId, key.accountId),
    eq(syncState.consentId, key.consentId),
    eq(syncState.resource, key.resource ?? 'transactions'),
  );
}

export function getWatermark(db: Conn, key: WatermarkKey): string | null {
  return readState(db, key)?.watermark ?? null;
}

/** The key's sync_state row, if any. */
function readState(db: Conn, key: WatermarkKey): { watermark: string | null; rowsPerDay: number | null } | undefined {
  return db
    .select({ watermark: syncState.watermark, rowsPerDay: syncState.rowsPerDay })
    .from(syncState)
    .where(stateKey(key))
    .get();
}

/** Sets the watermark exactly (null forgets it, so the next run backfills). */
export function setWatermark(db: Conn, key: WatermarkKey & { watermark: Instant | null; now: Instant }): void {
  const watermark = toStoredInstantOrNull(key.watermark);
  const updatedAt = toStoredInstant(key.now);
  db.insert(syncState)
    .values({
      bank: key.bank,
      accountId: key.accountId,
      consentId: key.consentId,
      resource: key.resource ?? 'transactions',
      watermark,
      updatedAt,
    })
    .onConflictDoUpdate({
      target: [syncState.bank, syncState.accountId, syncState.consentId, syncState.resource],
      set: { watermark, updatedAt },
    })
    .run();
}

/** Moves the watermark forward only: a look-back or re-fetch window never moves it back. */
export function advanceWatermark(
  db: Conn,
  key: WatermarkKey & { resource: SyncResource; watermark: Instant; now: Instant },
): void {
  const next = toStoredInstant(key.watermark);
  const current = getWatermark(db, key);
  if (current !== null && current >= next) return;
  setWatermark(db, { ...key, watermark: next });
}

/** The booking instant of the oldest pending row still open (not removed) of the account. */
export function oldestOpenPending(db: Conn, key: { bank: BankName; accountId: AccountId }): string | null {
  const row = db
    .select({ oldest: min(transactions.bookingDateTime) })
    .from(transactions)
    .where(
      and(
        eq(transactions.bank, key.bank),
        eq(transactions.accountId, key.accountId),
        eq(transactions.status, 'Pending'),
        isNull(transactions.removedAt),
      ),
    )
    .get();
  return row?.oldest ?? null;
}

export function getWindowDays(db: Conn, bank: BankName): number | null {
  return (
    db.select({ days: bankWindow.windowDays }).from(bankWindow).where(eq(bankWindow.bank, bank)).get()?.days ?? null
  );
}

export function setWindowDays(db: BankdataDb, bank: BankName, windowDays: number, now: Instant): void {
  if (!Number.isInteger(windowDays) || windowDays < 1)
    throw new RangeError(`window days must be a positive integer: ${windowDays}`);
  const updatedAt = toStoredInstant(now);
  db.insert(bankWindow)
    .values({ bank, windowDays, updatedAt })
    .onConflictDoUpdate({ target: bankWindow.bank, set: { windowDays, updatedAt } })
    .run();
}

// ---------------------------------------------------------------------------
// What transaction queries taught (docs/configuration.md "Sync windows"). Async like the
// Store's other operations will be: the callers await them.

export interface WindowKnowledge {
  /** The window size that last worked (NZ days); kept for old databases and the dry run. */
  windowDays: number | null;
  /** The most rows one accepted transactions query returned. */
  maxAcceptedRows: number | null;
  /** The fewest rows known in a query the bank refused (BDT263): its limit is below. */
  minRefusedRows: number | null;
}

export async function getWindowKnowledge(db: Conn, bank: BankName): Promise<WindowKnowledge> {
  const row = db
    .select({
      windowDays: bankWindow.windowDays,
      maxAcceptedRows: bankWindow.maxAcceptedRows,
      minRefusedRows: bankWindow.minRefusedRows,
    })
    .from(bankWindow)
    .where(eq(bankWindow.bank, bank))
    .get();
  return row ?? { windowDays: null, maxAcceptedRows: null, minRefusedRows: null };
}

/** Throws unless `windowDays` is a positive integer; returns it. Shared with pg/sync-state.ts. */
export function checkWindowDays(windowDays: number): number {
  if (!Number.isInteger(windowDays) || windowDays < 1)
    throw new RangeError(`window days must be a positive integer: ${windowDays}`);
  return windowDays;
}

/** Throws unless `rowsPerDay` is a finite number ≥ 0. Shared with pg/sync-state.ts. */
export function checkRowsPerDay(rowsPerDay: number): void {
  if (!(rowsPerDay >= 0) || !Number.isFinite(rowsPerDay))
    throw new RangeError(`rows per day must be a finite number ≥ 0: ${rowsPerDay}`);
}

/** Merges what one account's windows taught: the largest accepted, the smallest refused. */
export async function recordWindowKnowledge(
  db: BankdataDb,
  bank: BankName,
  learned: { acceptedRows?: number | null; refusedRows?: number | null; windowDays?: number | null },
  now: Instant,
): Promise<void> {
  const current = await getWindowKnowledge(db, bank);
  const pick = (a: number | null, b: number | null | undefined, f: (x: number, y: number) => number) =>
    b == null ? a : a == null ? b : f(a, b);
  const maxAcceptedRows = pick(current.maxAcceptedRows, learned.acceptedRows, Math.max);
  const minRefusedRows = pick(current.minRefusedRows, learned.refusedRows, Math.min);
  const windowDays = checkWindowDays(learned.windowDays ?? current.windowDays ?? 1);
  const updatedAt = toStoredInstant(now);
  db.insert(bankWindow)
    .values({ bank, windowDays, maxAcceptedRows, minRefusedRows, updatedAt })
    .onConflictDoUpdate({ target: bankWindow.bank, set: { windowDays, maxAcceptedRows, minRefusedRows, updatedAt } })
    .run();
}

/** Transactions per NZ day last seen for the account through this consent, or null. */
export async function getRowsPerDay(db: Conn, key: WatermarkKey): Promise<number | null> {
  return readState(db, key)?.rowsPerDay ?? null;
}

/**
 * The densest account of the bank whose rows per day are stored (any consent), or null: the
 * prior for the first window of an account never read (src/sync/transactions.ts).
 */
export async function maxRowsPerDay(db: Conn, bank: BankName): Promise<number | null> {
  const row = db
    .select({ rowsPerDay: max(syncState.rowsPerDay) })
    .from(syncState)
    .where(and(eq(syncState.bank, bank), eq(syncState.resource, 'transactions')))
    .get();
  return row?.rowsPerDay ?? null;
}

export async function setRowsPerDay(db: Conn, key: WatermarkKey & { rowsPerDay: number; now: Instant }): Promise<void> {
  checkRowsPerDay(key.rowsPerDay);
  const updatedAt = toStoredInstant(key.now);
  db.insert(syncState)
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
    })
    .run();
}
