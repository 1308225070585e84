/**
 * What every part of one sync run shares: the store, the client, the settings, the clock the
 * bank judges by, the run's counters, and the stop flag (SIGTERM: finish the unit in flight).
 */
import { DateTime } from 'luxon';
import type { DataApiClient } from '../api';
import type { ConsentId } from '@bankdata/core/schemas';
import type { Logger } from '../log';
import type { Store } from '../store';
import type { AccountKey } from '../store/continuity';
import { utcNow, type Clock } from '@bankdata/core/clock';
import type { Lanes } from './pool';

export interface SyncSettings {
  /** Config `sync.lookbackDays`. */
  lookbackDays: number;
  /** Config `sync.floor`: an NZ date, or null. */
  floor: string | null;
  /** Config `sync.concurrency`: the most consents in parallel (fewer once the rate is known). */
  concurrency: number;
  /** Config `sync.windowDays`: the largest transaction window, NZ days. */
  windowDays: number;
  /** Config `sync.minWindowDays` (default 1): the smallest window planned. */
  minWindowDays?: number;
  /** Config `sync.partyRefreshDays` (default 7): party data read again after this many days. */
  partyRefreshDays?: number;
  /** Config `sync.minLookbackDays` (default 3): the shortest look-back of a dense account. */
  minLookbackDays?: number;
  /** Config `sync.pageSize` (default 50): rows one page of the bank holds. */
  pageSize?: number;
  /** Config `sync.statementSafetyDays` (default 31): the longest time between two statement listings. */
  statementSafetyDays?: number;
  /** Config `sync.leaseTtlMs` (default 60 s): the run lease's expiry after each renewal. */
  leaseTtlMs?: number;
  /** Config `sync.leaseRenewMs` (default 15 s): how often the run renews its lease. */
  leaseRenewMs?: number;
  /**
   * Spare lanes (src/sync/pool.ts): once no consent is left to start, run a running consent's
   * accounts, units and statement files side by side. On unless false (not a config key: the
   * bench measures without them by BENCH_SPARE_LANES=0; docs/configuration.md "How far
   * `sync.concurrency` raises the requests in flight").
   */
  spareLanes?: boolean;
}

export interface FailedUnit {
  consentId: ConsentId;
  unit: string;
  reason: string;
}

export interface SkippedResource {
  consentId: ConsentId;
  resource: string;
  reason: string;
}

export interface RunCounters {
  rowsAdded: number;
  rowsUpdated: number;
  rowsRemoved: number;
  rejects: number;
  windows: number;
  splits: number;
  filesWritten: number;
  failedUnits: FailedUnit[];
  skipped: SkippedResource[];
}

/**
 * One consent's own share of the run's counters: the windows it committed and the rows it wrote.
 * Every lane writes the run's counters at once, so a consent's share is counted where its units
 * write (`countRows`, `countWindow`), never read off the growth of the run's counters while it
 * ran, which holds the other lanes' too (src/sync/run.ts reports it per consent).
 */
export interface ConsentTally {
  windows: number;
  rows: number;
}

export function emptyCounters(): RunCounters {
  return {
    rowsAdded: 0,
    rowsUpdated: 0,
    rowsRemoved: 0,
    rejects: 0,
    windows: 0,
    splits: 0,
    filesWritten: 0,
    failedUnits: [],
    skipped: [],
  };
}

export interface SyncContext {
  store: Store;
  client: DataApiClient;
  /** Where statement files go (the configured data dir). */
  dataDir: string;
  settings: SyncSettings;
  logger: Logger;
  runId: string;
  counters: RunCounters;
  /** The consent's own windows and rows (src/sync/run.ts sets it per consent); absent outside one. */
  tally?: ConsentTally;
  /** `--since` (NZ date) and `--full`. */
  since: string | null;
  full: boolean;
  /** The local clock. */
  now: Clock;
  /** When this process's run started, by `now`: rows first written after it are this run's own (window-commit.ts). */
  runStartedAt?: Date;
  /** True once a stop was asked for: no new unit starts. */
  stopping: () => boolean;
  /**
   * A unit's write was refused: this process no longer holds its consent (LeaseLostError: a
   * SQLite run's lease or a PostgreSQL worker's consent taken over). The run stops after the unit
   * in flight, as for a lease lost.
   */
  onLeaseLost?: () => void;
  /** Progress callback (TTY bar); called after each window and consent. */
  onProgress: () => void;
  /**
   * The accounts this process synced in the run (an accounts answer listed them), by
   * `bank` and account id: the closing continuity check covers these (src/sync/run.ts).
   */
  syncedAccounts: Map<string, AccountKey>;
  /**
   * The statement files this run fetches, by `bank account statement`: whether the fetch got the
   * file (false when it failed, whatever the failure). Consents that share an account run in
   * different lanes, and each lists the files still missing before the other has fetched them
   * (src/sync/consent.ts): a file is fetched once, and again by another consent only if that
   * fetch did not get it.
   */
  statementFileClaims: Map<string, Promise<boolean>>;
  /**
   * The run's lanes (src/sync/pool.ts `runLanes`): the spare ones run a consent's accounts, an
   * account's units and its statement files side by side. Absent: one after another.
   */
  lanes?: Lanes;
}

/**
 * The instant the bank judges "today" by: the earlier of the local clock and the server's
 * `Date`, so that a bank clock behind ours never answers BDT238 for a range we think is fine.
 */
export function bankNow(ctx: Pick<SyncContext, 'now' | 'client'>): DateTime {
  const local = utcNow(ctx.now);
  const server = ctx.client.serverNow();
  return server && server < local ? server : local;
}

export function addRows(counters: RunCounters, counts: { added?: number; updated?: number; removed?: number }): void {
  counters.rowsAdded += counts.added ?? 0;
  counters.rowsUpdated += counts.updated ?? 0;
  counters.rowsRemoved += counts.removed ?? 0;
}

/** Rows written: counted in the run's counters and in the consent's own tally. */
export function countRows(
  ctx: Pick<SyncContext, 'counters' | 'tally'>,
  counts: { added?: number; updated?: number; removed?: number },
): void {
  addRows(ctx.counters, counts);
  if (ctx.tally) ctx.tally.rows += (counts.added ?? 0) + (counts.updated ?? 0) + (counts.removed ?? 0);
}

/** A transaction window committed: counted in the run's counters and in the consent's own tally. */
export function countWindow(ctx: Pick<SyncContext, 'counters' | 'tally'>): void {
  ctx.counters.windows += 1;
  if (ctx.tally) ctx.tally.windows += 1;
}
