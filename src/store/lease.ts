/**
 * The run lock (docs/configuration.md "Sync rules"): one lease row holding pid, host and expiry,
 * renewed every `sync.leaseRenewMs` (15 s) with a `sync.leaseTtlMs` (60 s) expiry. A lease whose expiry has passed, or whose holder
 * process is gone (same host), is taken over at once. Each step is one transaction under the
 * lease's lock (`leaseLock`: SQLite's BEGIN IMMEDIATE, a PostgreSQL advisory lock), so two runs
 * starting together cannot both win. Written once over a SqlRunner for both dialects.
 */
import { sql, type SQL } from 'drizzle-orm';
import { insertInto, onConflict, rowOf, selectFrom, updateSet } from './sql-build';
import type { SqlRunner } from './sql-runner';
import { hostname } from 'node:os';
import { lease } from './sqlite/schema';
import { toStoredInstant, toInstantMs, type Instant } from './time';
import { isProcessAlive } from '../fs/writers';

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
  | { ok: true; acquiredAt: string; expiresAt: string; tookOver: LeaseHolder | null }
  | { ok: false; heldBy: LeaseHolder & { expiresAt: string } };

/** An arbitrary constant: the PostgreSQL advisory lock key "bankdata run lease". */
const LEASE_LOCK_KEY = 0x6c656173;

/**
 * Runs `step` in one transaction that holds the lease's lock, with the stored lease row. SQLite:
 * BEGIN IMMEDIATE holds the one write lock; PostgreSQL: a transaction-scoped advisory lock (the
 * row may not exist yet, so a row lock would not do).
 */
function withLease<T>(r: SqlRunner, step: (tx: SqlRunner, current: LeaseRow | undefined) => Promise<T>): Promise<T> {
  return r.transaction(async (tx) => {
    if (tx.dialect === 'postgres') await tx.run(sql`SELECT pg_advisory_xact_lock(${LEASE_LOCK_KEY})`);
    const row = await tx.get(sql`${selectFrom(lease)} WHERE id = ${LEASE_ROW}`);
    return step(tx, row ? leaseRowOf(row) : undefined);
  });
}

function leaseRowOf(row: Record<string, unknown>): LeaseRow {
  const { holderPid, holderHost, acquiredAt, expiresAt } = rowOf(lease, row);
  return { holderPid, holderHost, acquiredAt, expiresAt };
}

const ours = (current: LeaseRow | undefined, holder: LeaseHolder): current is LeaseRow =>
  current !== undefined && current.holderPid === holder.pid && current.holderHost === holder.host;

const LEASE_KEY: SQL = sql`id = ${LEASE_ROW}`;

export function acquireLease(
  r: SqlRunner,
  holder: LeaseHolder & LeaseTerm & { now: Instant },
  isAlive: (pid: number) => boolean = isProcessAlive,
): Promise<AcquireResult> {
  const nowMs = toInstantMs(holder.now);
  return withLease(r, async (tx, current) => {
    const decision = decideAcquire(current, holder, nowMs, isAlive);
    if (!decision.result.ok) return decision.result;
    await tx.run(
      sql`${insertInto(lease, { id: LEASE_ROW, ...decision.values })} ${onConflict(lease, [lease.id], decision.values)}`,
    );
    return decision.result;
  });
}

/** Whether the stored lease lets this holder take it, and the row to write. */
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
  return { result: { ok: true, acquiredAt: values.acquiredAt, expiresAt, tookOver }, values };
}

/** Extends our lease; false when it is no longer ours (taken over after it lapsed). */
export function renewLease(r: SqlRunner, holder: LeaseHolder & LeaseTerm & { now: Instant }): Promise<boolean> {
  const expiresAt = toStoredInstant(toInstantMs(holder.now) + (holder.ttlMs ?? DEFAULT_LEASE_TTL_MS));
  return withLease(r, async (tx, current) => {
    if (!ours(current, holder)) return false;
    await tx.run(sql`${updateSet(lease, { expiresAt })} WHERE ${LEASE_KEY}`);
    return true;
  });
}

/**
 * Whether the lease is still the one this holder acquired (same pid, host and acquisition: not
 * taken over, nor acquired again by a later run of the same process), read in the caller's
 * transaction: a unit's fence (run-work.ts SqliteRuns). Its expiry passing alone does not lose it.
 */
export async function holdsLease(tx: SqlRunner, held: LeaseHolder & { acquiredAt: string }): Promise<boolean> {
  const row = await tx.get(sql`${selectFrom(lease)} WHERE ${LEASE_KEY}`);
  if (!row) return false;
  const current = leaseRowOf(row);
  return ours(current, held) && toInstantMs(current.acquiredAt) === toInstantMs(held.acquiredAt);
}

/** Gives the lease up; false when it was not ours. */
export function releaseLease(r: SqlRunner, holder: LeaseHolder): Promise<boolean> {
  return withLease(r, async (tx, current) => {
    if (!ours(current, holder)) return false;
    await tx.run(sql`DELETE FROM lease WHERE ${LEASE_KEY}`);
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
export async function readLease(r: SqlRunner): Promise<LeaseRow | null> {
  const row = await r.get(sql`${selectFrom(lease)} WHERE ${LEASE_KEY}`);
  return row ? leaseRowOf(row) : null;
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
 * while one has not left, its own term has not passed (`expires_in_ms`: from the worker's own
 * `sync.leaseTtlMs`, not the reader's) and is not gone.
 */
export function unfinishedWorkersState(
  workers: readonly { host: string; pid: number; left_at: string | null; expires_in_ms: number | null }[],
  isAlive: (pid: number) => boolean = isProcessAlive,
): 'running' | 'interrupted' {
  const live = workers.some(
    (w) =>
      w.left_at === null &&
      w.expires_in_ms !== null &&
      w.expires_in_ms >= 0 &&
      !holderGone({ pid: w.pid, host: w.host }, isAlive),
  );
  return live ? 'running' : 'interrupted';
}
