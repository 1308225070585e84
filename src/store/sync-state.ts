/**
 * Sync state: per (bank, account, consent, resource) watermark, the oldest open pending row, and per bank
 * the window size that worked (ARCHITECTURE.md "Sync rules").
 */
import { and, eq, isNull, min } from 'drizzle-orm';
import type { AccountId, BankName, ConsentId } from '../api/schemas';
import type { BankdataDb, Conn } from './db';
import { bankWindow, syncState, transactions } from './schema';
import { toStoredInstant, toStoredInstantOrNull, type Instant } from './time';

export type SyncResource = 'transactions' | 'statements';

export interface WatermarkKey {
  bank: BankName;
  accountId: AccountId;
  /** The consent the account is read through: each has its own window and filter. */
  consentId: ConsentId;
  resource?: SyncResource;
}

export function getWatermark(db: Conn, key: WatermarkKey): string | null {
  const row = db
    .select({ watermark: syncState.watermark })
    .from(syncState)
    .where(
      and(
        eq(syncState.bank, key.bank),
        eq(syncState.accountId, key.accountId),
        eq(syncState.consentId, key.consentId),
        eq(syncState.resource, key.resource ?? 'transactions'),
      ),
    )
    .get();
  return row?.watermark ?? null;
}

/** Sets the watermark exactly (null forgets it, so the next run backfills). */
export function setWatermark(
  db: Conn,
  key: WatermarkKey & { watermark: Instant | null; now: Instant },
): void {
  const watermark = toStoredInstantOrNull(key.watermark);
  const updatedAt = toStoredInstant(key.now);
  db.insert(syncState)
    .values({ bank: key.bank, accountId: key.accountId, consentId: key.consentId, resource: key.resource ?? 'transactions', watermark, updatedAt })
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
  return db.select({ days: bankWindow.windowDays }).from(bankWindow).where(eq(bankWindow.bank, bank)).get()?.days ?? null;
}

export function setWindowDays(db: BankdataDb, bank: BankName, windowDays: number, now: Instant): void {
  if (!Number.isInteger(windowDays) || windowDays < 1) throw new RangeError(`window days must be a positive integer: ${windowDays}`);
  const updatedAt = toStoredInstant(now);
  db.insert(bankWindow)
    .values({ bank, windowDays, updatedAt })
    .onConflictDoUpdate({ target: bankWindow.bank, set: { windowDays, updatedAt } })
    .run();
}
