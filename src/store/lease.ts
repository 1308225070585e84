/**
 * The run lock (docs/configuration.md "Sync rules"): one lease row holding pid, host and expiry,
 * renewed every `sync.leaseRenewMs` (15 s) with a `sync.leaseTtlMs` (60 s) expiry. A lease whose expiry has passed, or whose holder
 * process is gone (same host), is taken over at once. Each step is one IMMEDIATE transaction,
 * so two runs starting together cannot both win.
 */
import { hostname } from 'node:os';
import { eq } from 'drizzle-orm';
import { inWriteTransaction, type BankdataDb } from './sqlite/db';
import { lease } from './sqlite/schema';
import { toStoredInstant, toInstantMs, type Instant } from './time';

/** The defaults of config `sync.leaseTtlMs` and `sync.leaseRenewMs`, for callers without a config. */
export const DEFAULT_LEASE_TTL_MS = 60_000;
export const DEFAULT_LEASE_RENEW_MS = 15_000;
export const LEASE_ROW = 1;

export interface LeaseHolder {
  pid: number;
  host: string;
}

/** How long an acquired or renewed lease lasts (config `sync.leaseTtlMs`). */
export interface LeaseTerm {
  ttlMs?: number;
}

export type AcquireResult =
  | { ok: true; expiresAt: string; tookOver: LeaseHolder | null }
  | { ok: false; heldBy: LeaseHolder & { expiresAt: string } };

/** True when a process with this pid exists on this host (`kill(pid, 0)`; ESRCH means gone). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else. Only ESRCH proves it is gone.
    return !(error instanceof Error && 'code' in error && error.code === 'ESRCH');
  }
}

export function acquireLease(
  db: BankdataDb,
  holder: LeaseHolder & LeaseTerm & { now: Instant },
  isAlive: (pid: number) => boolean = isProcessAlive,
): AcquireResult {
  const nowMs = toInstantMs(holder.now);
  return inWriteTransaction(db, (tx) => {
    const current = tx.select().from(lease).where(eq(lease.id, LEASE_ROW)).get();
    const decision = decideAcquire(current, holder, nowMs, isAlive);
    if (!decision.result.ok) return decision.result;
    tx.insert(lease)
      .values({ id: LEASE_ROW, ...decision.values })
      .onConflictDoUpdate({ target: lease.id, set: decision.values })
      .run();
    return decision.result;
  });
}

/** Whether the stored lease lets this holder take it, and the row to write. Shared with the PostgreSQL store. */
export function decideAcquire(
  current: LeaseRow | undefined,
  holder: LeaseHolder & LeaseTerm,
  nowMs: number,
  isAlive: (pid: number) => boolean,
): { result: AcquireResult; values: LeaseRow } {
  const expiresAt = toStoredInstant(nowMs + (holder.ttlMs ?? DEFAULT_LEASE_TTL_MS));
  const values = { holderPid: holder.pid, holderHost: holder.host, acquiredAt: toStoredInstant(nowMs), expiresAt };
  const mine = current && current.holderPid === holder.pid && current.holderHost === holder.host;
  if (current && !mine) {
    const expired = toInstantMs(current.expiresAt) <= nowMs;
    const gone = current.holderHost === holder.host && !isAlive(current.holderPid);
    if (!expired && !gone) {
      return {
        result: {
          ok: false,
          heldBy: { pid: current.holderPid, host: current.holderHost, expiresAt: current.expiresAt },
        },
        values,
      };
    }
  }
  const tookOver = current && !mine ? { pid: current.holderPid, host: current.holderHost } : null;
  return { result: { ok: true, expiresAt, tookOver }, values };
}

/** Extends our lease; false when it is no longer ours (taken over after it lapsed). */
export function renewLease(db: BankdataDb, holder: LeaseHolder & LeaseTerm & { now: Instant }): boolean {
  const expiresAt = toStoredInstant(toInstantMs(holder.now) + (holder.ttlMs ?? DEFAULT_LEASE_TTL_MS));
  return inWriteTransaction(db, (tx) => {
    const current = tx.select().from(lease).where(eq(lease.id, LEASE_ROW)).get();
    if (!current || current.holderPid !== holder.pid || current.holderHost !== holder.host) return false;
    tx.update(lease).set({ expiresAt }).where(eq(lease.id, LEASE_ROW)).run();
    return true;
  });
}

/** Gives the lease up; false when it was not ours. */
export function releaseLease(db: BankdataDb, holder: LeaseHolder): boolean {
  return inWriteTransaction(db, (tx) => {
    const current = tx.select().from(lease).where(eq(lease.id, LEASE_ROW)).get();
    if (!current || current.holderPid !== holder.pid || current.holderHost !== holder.host) return false;
    tx.delete(lease).where(eq(lease.id, LEASE_ROW)).run();
    return true;
  });
}

export interface LeaseRow {
  holderPid: number;
  holderHost: string;
  acquiredAt: string;
  expiresAt: string;
}

/** The lease as stored (expired or not), or null: status tells a live run from a killed one. */
export async function readLease(db: BankdataDb): Promise<LeaseRow | null> {
  const row = db.select().from(lease).where(eq(lease.id, LEASE_ROW)).get();
  return row
    ? { holderPid: row.holderPid, holderHost: row.holderHost, acquiredAt: row.acquiredAt, expiresAt: row.expiresAt }
    : null;
}

/** Whether a lease's holder is gone: its pid is dead on this host (a holder elsewhere cannot be asked). */
export function holderGone(
  holder: LeaseHolder,
  isAlive: (pid: number) => boolean = isProcessAlive,
  host: string = hostname(),
): boolean {
  return holder.host === host && !isAlive(holder.pid);
}

/**
 * What an unfinished run (no finished_at) is: 'running' only while a lease that is not expired
 * was taken no later than the run started (its own) and its holder is not gone; a lease that
 * expired, was given up, was taken over by a later run, or whose holder process is dead (this
 * host) means its process was killed: 'interrupted'. The same rule decides a take-over
 * (decideAcquire), and the same for the workers of a PostgreSQL run (unfinishedWorkersState).
 */
export function unfinishedRunState(
  run: { startedAt: string },
  current: LeaseRow | null,
  now: Date,
  isAlive: (pid: number) => boolean = isProcessAlive,
): 'running' | 'interrupted' {
  if (!current) return 'interrupted';
  if (Date.parse(current.expiresAt) <= now.getTime()) return 'interrupted';
  if (holderGone({ pid: current.holderPid, host: current.holderHost }, isAlive)) return 'interrupted';
  return Date.parse(current.acquiredAt) <= Date.parse(run.startedAt) ? 'running' : 'interrupted';
}

/**
 * An unfinished PostgreSQL run's state from its workers (src/store/pg/work-queue.ts): 'running'
 * while one has not left, was seen within the lease's term (`sync.leaseTtlMs`) and is not gone.
 */
export function unfinishedWorkersState(
  workers: readonly { host: string; pid: number; left_at: string | null; seen_ms_ago: number | null }[],
  leaseTtlMs: number,
  isAlive: (pid: number) => boolean = isProcessAlive,
): 'running' | 'interrupted' {
  const live = workers.some(
    (w) =>
      w.left_at === null &&
      w.seen_ms_ago !== null &&
      w.seen_ms_ago < leaseTtlMs &&
      !holderGone({ pid: w.pid, host: w.host }, isAlive),
  );
  return live ? 'running' : 'interrupted';
}
