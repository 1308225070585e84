/**
 * Sync state: per (bank, account, consent, resource) watermark, the oldest open pending row, and per bank
 * the window size that worked and what transaction queries taught (docs/configuration.md "Sync rules",
 * "Sync windows"). Written once over a SqlRunner for both dialects.
 */
import { eq, sql, type Column, type SQL } from 'drizzle-orm';
import type { AccountId, BankName, ConsentId } from '@bankdata/core/schemas';
import { excluded, insertInto, onConflict } from './sql-build';
import { storedPermissions } from './registry';
import type { SqlRunner } from './sql-runner';
import { strOrNull, toNumber, toNumberOrNull } from './dialect-sql';
import { bankWindow, syncState } from './sqlite/schema';
import { toStoredInstant, toStoredInstantOrNull, type Instant } from './time';

/**
 * What a sync_state row's watermark is of: the transactions read up to it; the instant from which
 * every window of the last complete read of an ended consent's transactions was fetched
 * (`transactions_read`, src/sync/transactions.ts `endedAndSettled`); the floor the reads of the
 * account's transactions reached (`transactions_floor`: an earlier floor is read back to, src/sync/windows.ts
 * `SyncRange.backfill`); the last listing of an account's statements; the last listing of their
 * whole list (src/sync/statements-due.ts).
 */
export type SyncResource =
  | 'transactions'
  | 'transactions_read'
  | 'transactions_floor'
  | 'statements'
  | 'statements_whole';

export interface WatermarkKey {
  bank: BankName;
  accountId: AccountId;
  /** The consent the account is read through: each has its own window and filter. */
  consentId: ConsentId;
  resource?: SyncResource;
}

/** The sync_state row of one (bank, account, consent, resource). */
function stateKey(key: WatermarkKey): SQL {
  return sql`bank = ${key.bank} AND account_id = ${key.accountId} AND consent_id = ${key.consentId} AND resource = ${key.resource ?? 'transactions'}`;
}

const STATE_KEY = [syncState.bank, syncState.accountId, syncState.consentId, syncState.resource];

export async function getWatermark(r: SqlRunner, key: WatermarkKey): Promise<string | null> {
  const row = await r.get(sql`SELECT watermark FROM sync_state WHERE ${stateKey(key)}`);
  return (row?.watermark as string | null | undefined) ?? null;
}

/** Sets the watermark exactly (null forgets it, so the next run backfills). */
export async function setWatermark(
  r: SqlRunner,
  key: WatermarkKey & { watermark: Instant | null; now: Instant },
): Promise<void> {
  const watermark = toStoredInstantOrNull(key.watermark);
  const updatedAt = toStoredInstant(key.now);
  const values = { ...stateValues(key), watermark, updatedAt };
  await r.run(sql`${insertInto(syncState, values)} ${onConflict(syncState, STATE_KEY, { watermark, updatedAt })}`);
}

function stateValues(key: WatermarkKey) {
  return {
    bank: key.bank,
    accountId: key.accountId,
    consentId: key.consentId,
    resource: key.resource ?? 'transactions',
  };
}

/**
 * Moves the watermark forward only, in one statement: a look-back or re-fetch window never moves
 * it back (the upsert's WHERE keeps a later stored instant).
 */
export function advanceWatermarkSql(
  key: WatermarkKey & { resource: SyncResource; watermark: Instant; now: Instant },
): SQL {
  const watermark = toStoredInstant(key.watermark);
  const updatedAt = toStoredInstant(key.now);
  const values = { ...stateValues(key), watermark, updatedAt };
  return sql`${insertInto(syncState, values)} ${onConflict(syncState, STATE_KEY, { watermark, updatedAt })}
    WHERE sync_state.watermark IS NULL OR sync_state.watermark < ${watermark}`;
}

/** Which pending rows a consent can read again: its range's bounds, its Credits/Debits filter. */
export interface PendingReach {
  /** Booked at or after this instant (the range's floor). */
  from?: Instant;
  /** Booked at or before this instant (the range's ceiling). */
  to?: Instant;
  /** Only rows of this indicator (a consent with only ReadTransactionsCredits or Debits). */
  indicator?: 'Credit' | 'Debit' | null;
}

/**
 * The booking instant of the oldest pending row still open (not removed) of the account, among
 * those `reach` allows: a row no fetch of the consent can return (before its floor, after its end,
 * of the other indicator) would otherwise hold its start back for good, every night reading
 * again from there.
 */
export async function oldestOpenPending(
  r: SqlRunner,
  key: { bank: BankName; accountId: AccountId },
  reach: PendingReach = {},
): Promise<string | null> {
  const from = reach.from === undefined ? sql`` : sql` AND booking_date_time >= ${toStoredInstant(reach.from)}`;
  const to = reach.to === undefined ? sql`` : sql` AND booking_date_time <= ${toStoredInstant(reach.to)}`;
  const indicator = reach.indicator ? sql` AND credit_debit_indicator = ${reach.indicator}` : sql``;
  const row = await r.get(
    sql`SELECT min(booking_date_time) AS oldest FROM transactions
        WHERE bank = ${key.bank} AND account_id = ${key.accountId} AND status = 'Pending' AND removed_at IS NULL${from}${to}${indicator}`,
  );
  return (row?.oldest as string | null | undefined) ?? null;
}

export async function getWindowDays(r: SqlRunner, bank: BankName): Promise<number | null> {
  return (await getWindowKnowledge(r, bank)).windowDays;
}

export async function setWindowDays(r: SqlRunner, bank: BankName, windowDays: number, now: Instant): Promise<void> {
  checkWindowDays(windowDays);
  const updatedAt = toStoredInstant(now);
  await r.run(
    sql`${insertInto(bankWindow, { bank, windowDays, updatedAt })} ${onConflict(bankWindow, [bankWindow.bank], { windowDays, updatedAt })}`,
  );
}

// ---------------------------------------------------------------------------
// What transaction queries taught (docs/configuration.md "Sync windows").

export interface WindowKnowledge {
  /** The window size that last worked (NZ days); kept for old databases and the dry run. */
  windowDays: number | null;
  /** The most rows one accepted transactions query returned. */
  maxAcceptedRows: number | null;
  /** The fewest rows known in a query the bank refused (BDT263): its limit is below. */
  minRefusedRows: number | null;
}

export async function getWindowKnowledge(r: SqlRunner, bank: BankName): Promise<WindowKnowledge> {
  const row = await r.get(
    sql`SELECT window_days, max_accepted_rows, min_refused_rows FROM bank_window WHERE ${eq(bankWindow.bank, bank)}`,
  );
  return {
    windowDays: toNumberOrNull(row?.window_days),
    maxAcceptedRows: toNumberOrNull(row?.max_accepted_rows),
    minRefusedRows: toNumberOrNull(row?.min_refused_rows),
  };
}

/** Throws unless `windowDays` is a positive integer; returns it. */
export function checkWindowDays(windowDays: number): number {
  if (!Number.isInteger(windowDays) || windowDays < 1)
    throw new RangeError(`window days must be a positive integer: ${windowDays}`);
  return windowDays;
}

/** Throws unless `rowsPerDay` is a finite number ≥ 0. */
export function checkRowsPerDay(rowsPerDay: number): void {
  if (!(rowsPerDay >= 0) || !Number.isFinite(rowsPerDay))
    throw new RangeError(`rows per day must be a finite number ≥ 0: ${rowsPerDay}`);
}

/** The larger (`>`) or smaller (`<`) of the stored and the new value, NULL on either side skipped. */
function keepBy(column: Column, than: '>' | '<'): SQL {
  const stored = sql`bank_window.${sql.identifier(column.name)}`;
  const offered = excluded(column);
  return sql`CASE WHEN ${offered} IS NULL THEN ${stored} WHEN ${stored} IS NULL THEN ${offered}
    WHEN ${offered} ${sql.raw(than)} ${stored} THEN ${offered} ELSE ${stored} END`;
}

/**
 * Merges what one account's windows taught in one statement: the largest accepted, the smallest
 * refused (a lesson not given keeps the stored one), and the window size unless one is given.
 * Several workers may learn about one bank at once: no worker's lesson is lost to a race.
 */
export async function recordWindowKnowledge(
  r: SqlRunner,
  bank: BankName,
  learned: { acceptedRows?: number | null; refusedRows?: number | null; windowDays?: number | null },
  now: Instant,
): Promise<void> {
  const windowDays = learned.windowDays == null ? null : checkWindowDays(learned.windowDays);
  const values = {
    bank,
    windowDays: windowDays ?? 1,
    maxAcceptedRows: learned.acceptedRows ?? null,
    minRefusedRows: learned.refusedRows ?? null,
    updatedAt: toStoredInstant(now),
  };
  await r.run(
    sql`${insertInto(bankWindow, values)} ${onConflict(bankWindow, [bankWindow.bank], {
      windowDays: windowDays ?? sql`bank_window.window_days`,
      maxAcceptedRows: keepBy(bankWindow.maxAcceptedRows, '>'),
      minRefusedRows: keepBy(bankWindow.minRefusedRows, '<'),
      updatedAt: values.updatedAt,
    })}`,
  );
}

/** Transactions per NZ day last seen for the account through this consent, or null. */
export async function getRowsPerDay(r: SqlRunner, key: WatermarkKey): Promise<number | null> {
  const row = await r.get(sql`SELECT rows_per_day FROM sync_state WHERE ${stateKey(key)}`);
  return toNumberOrNull(row?.rows_per_day);
}

/** An account's rows per day stored through one consent, with what its prior needs to know. */
export interface StoredDensity {
  accountId: AccountId;
  rowsPerDay: number;
  /** The accounts table's type and subtype (null when the account is no longer held, or not given). */
  accountType: string | null;
  accountSubtype: string | null;
  /** The permissions of the consent it was read through; null when unknown (that consent gone, or never read). */
  permissions: string[] | null;
}

/**
 * Every rows-per-day reading stored for the bank's accounts, one per account and consent: the
 * priors an earlier run left for the first window of an account never read through its consent
 * (src/sync/window-learning.ts reads them once per bank and run, with this run's own).
 */
export async function storedDensities(r: SqlRunner, bank: BankName): Promise<StoredDensity[]> {
  const rows = await r.all(
    sql`SELECT s.account_id, s.rows_per_day, a.account_type, a.account_subtype, c.permissions
        FROM sync_state s
        LEFT JOIN accounts a ON a.bank = s.bank AND a.account_id = s.account_id
        LEFT JOIN consents c ON c.consent_id = s.consent_id
        WHERE s.bank = ${bank} AND s.resource = 'transactions' AND s.rows_per_day IS NOT NULL
        ORDER BY s.account_id, s.consent_id`,
  );
  return rows.map((row) => ({
    accountId: String(row.account_id) as AccountId,
    rowsPerDay: toNumber(row.rows_per_day),
    accountType: strOrNull(row.account_type),
    accountSubtype: strOrNull(row.account_subtype),
    permissions: typeof row.permissions === 'string' ? storedPermissions(row.permissions) : null,
  }));
}

/** Saves the account's density; a new row has no watermark yet. */
export async function setRowsPerDay(
  r: SqlRunner,
  key: WatermarkKey & { rowsPerDay: number; now: Instant },
): Promise<void> {
  checkRowsPerDay(key.rowsPerDay);
  const updatedAt = toStoredInstant(key.now);
  const values = { ...stateValues(key), watermark: null, rowsPerDay: key.rowsPerDay, updatedAt };
  await r.run(
    sql`${insertInto(syncState, values)} ${onConflict(syncState, STATE_KEY, { rowsPerDay: key.rowsPerDay, updatedAt })}`,
  );
}
