/**
 * A run's work as the sync sees it, the same on both dialects (docs/scaling.md): `begin` joins
 * the open run or opens one with the consents to sync, `next` hands this process the next consent
 * nobody else holds, `done` marks it finished, `renew` keeps what it holds, and `leave` records
 * what it did. On SQLite one process works a run alone under the single-run lease (a second one
 * is refused: exit 4); on PostgreSQL any number of workers share it (pg/run-work.ts).
 */
import type { ConsentId } from '@bankdata/core/schemas';
import { acquireLease, holdsLease, releaseLease, renewLease, type LeaseHolder } from './lease';
import type { SqlRunner } from './sql-runner';
import { finishRun, startRun, type RunSummary } from './runs';
import type { ConsentOutcome } from './sqlite/schema';
import type { Instant } from './time';

export interface RunWork {
  readonly runId: string;
  /**
   * The next consent for this worker, or null when none is left for it. On PostgreSQL, while
   * other workers still hold consents it waits: a holder that died loses them when its lease
   * expires, and this worker takes them over (null at once when `stopping` says so).
   */
  next(now: Instant, stopping?: () => boolean): Promise<ConsentId | null>;
  /** The consent is finished; false when another worker had taken it over (its result stands). */
  done(consentId: ConsentId, outcome: ConsentOutcome, now: Instant): Promise<boolean>;
  /** Keeps the lease(s) this worker holds; false when one was lost (stop after the unit in flight). */
  renew(now: Instant): Promise<boolean>;
  /** Records this worker's summary and leaves; the run closes when its consents are done. */
  leave(summary: RunSummary, now: Instant): Promise<void>;
  /** Gives the run up without a summary (a hard stop): the lease released, held consents requeued. */
  abandon(): Promise<void>;
}

/**
 * A unit's write refused because this process no longer holds its consent (SQLite: another run
 * took the lease over after it lapsed; PostgreSQL: another worker took the consent over, or this
 * worker was judged gone): the unit's transaction is rolled back, so a stale fetch never
 * overwrites what the consent's new holder wrote (docs/configuration.md "Sync rules",
 * docs/postgres.md "Cooperating workers"). The sync records the unit failed and stops, as for a
 * lease lost.
 */
export class LeaseLostError extends Error {
  constructor(readonly unit: { runId: string; consentId: ConsentId }) {
    super(
      `lease lost: this process no longer holds consent ${unit.consentId} in run ${unit.runId} (taken over after its lease lapsed); the unit's writes were rolled back`,
    );
    this.name = 'LeaseLostError';
  }
}

/**
 * What a unit's transaction runs just before it commits: throws LeaseLostError when this process
 * no longer holds the unit's consent in its run, so the transaction is rolled back.
 */
export type UnitFence = (tx: SqlRunner) => Promise<void>;

/** `runner` whose every transaction runs `fence` just before it commits; `runner` itself without one. */
export function fencedRunner(runner: SqlRunner, fence: UnitFence | null): SqlRunner {
  if (!fence) return runner;
  return {
    ...runner,
    transaction: (work, options) =>
      runner.transaction(async (tx) => {
        const result = await work(tx);
        await fence(tx);
        return result;
      }, options),
  };
}

/**
 * The SQLite runs this process holds, by run id, with the lease each acquired: whom a unit's
 * write is fenced for. A process paused past its lease's expiry (a laptop asleep, SIGSTOP) whose
 * lease another run took over would otherwise wake and commit the window it fetched before over
 * what the new run wrote since; the renewals notice a lost lease only every `sync.leaseRenewMs`.
 * Under SQLite's one write lock, the lease row read in the unit's own transaction is the truth
 * at its commit (docs/configuration.md "Sync rules").
 */
export class SqliteRuns {
  private readonly held = new Map<string, LeaseHolder & { acquiredAt: string }>();

  add(runId: string, lease: LeaseHolder & { acquiredAt: string }): void {
    this.held.set(runId, lease);
  }

  remove(runId: string): void {
    this.held.delete(runId);
  }

  /** The fence of a unit of this run, or null when the run is not this process's (a write outside a sync). */
  fenceOf(unit: { runId: string | null; consentId: ConsentId }): UnitFence | null {
    const { runId, consentId } = unit;
    if (runId === null) return null;
    const lease = this.held.get(runId);
    if (!lease) return null;
    return async (tx) => {
      if (!(await holdsLease(tx, lease))) throw new LeaseLostError({ runId, consentId });
    };
  }
}

export type BeginResult =
  | { ok: true; work: RunWork }
  | { ok: false; heldBy: { pid: number; host: string; expiresAt: string } };

export interface BeginInput {
  consentIds: readonly ConsentId[];
  holder: LeaseHolder;
  now: Instant;
  leaseTtlMs: number;
  /**
   * The work needs a run of its own (`--full`, `--since`, `--consent`): on PostgreSQL an open run
   * with a live worker refuses it (exit 4, as SQLite refuses any second run), unless that run's
   * id is `runId`. SQLite runs are always exclusive.
   */
  exclusive?: boolean;
  /** The id of the run to open, which workers started together (`sync --workers N`) share. */
  runId?: string;
}

/** SQLite: one process per run, under the single-run lease; its queue is its own list. */
export async function beginSqliteRun(
  r: SqlRunner,
  input: BeginInput,
  local: SqliteRuns = new SqliteRuns(),
): Promise<BeginResult> {
  const lease = await acquireLease(r, { ...input.holder, now: input.now, ttlMs: input.leaseTtlMs });
  if (!lease.ok) return lease;
  const runId = await startRun(r, { now: input.now });
  const queue = [...input.consentIds];
  const holder = input.holder;
  // Its units' writes are fenced by this lease until it is given up (SqliteRuns.fenceOf).
  local.add(runId, { ...holder, acquiredAt: lease.acquiredAt });
  let released = false;
  const release = async () => {
    if (released) return;
    released = true;
    local.remove(runId);
    await releaseLease(r, holder);
  };
  return {
    ok: true,
    work: {
      runId,
      next: async () => queue.shift() ?? null,
      done: async () => true,
      renew: (now) => renewLease(r, { ...holder, now, ttlMs: input.leaseTtlMs }),
      leave: async (summary, now) => {
        try {
          await finishRun(r, runId, summary, now);
        } finally {
          await release();
        }
      },
      abandon: () => release(),
    },
  };
}
