/**
 * One sync run: joins the run (SQLite: under the single-run lease; PostgreSQL: shared with other
 * workers, src/store/run-work.ts), meta once, then the run's consents from its queue in a bounded
 * pool, and this process's summary recorded in `runs` (v_runs; summed over workers on PostgreSQL).
 */
import { tracingChannel } from 'node:diagnostics_channel';
import { hostname } from 'node:os';
import { AuthenticationError, UnavailableError, countingRequests, type DataApiClient, type RequestCount } from '../api';
import type { BankMeta, ConsentId } from '@bankdata/core/schemas';
import { checkContinuity } from '../check/check-accounts';
import { applyCategories } from '../categories/apply';
import { loadRules } from '../categories/rules-file';
import { DEFAULT_TRANSFER_RULES, type TransferRules } from '../transfers/match';
import { refreshTransfers } from '../transfers/refresh';
import { silentLogger, type Logger } from '../log';
import { UsageError } from '../errors';
import { DEFAULT_LEASE_RENEW_MS, DEFAULT_LEASE_TTL_MS, type RunOutcome, type RunWork, type Store } from '../store';
import { emptyCounters, type ConsentTally, type RunCounters, type SyncContext, type SyncSettings } from './run-context';
import { syncConsent, type ConsentResult } from './consent';
import { sweepTempFiles } from './files';
import { scopeGapForSync } from './plan';
import { isLongRun, resumePacing, savePacing } from './pacing-memory';
import { drainQueue, runLanes } from './pool';
import { describeError, isStoreLost } from './unit-outcome';
import { lostPostgresError } from '../database-url';
import { escapeNul } from './transform';
import { systemClock, type Clock } from '@bankdata/core/clock';

/**
 * The closing continuity check, traced so that a profiler or the sync-backfill bench can count its
 * time apart from the sync's own (test/bench/sync-support/sync-child.ts). No cost without a subscriber.
 */
export const closingCheckChannel = tracingChannel<object, object>('bankdata:sync:closing-check');

export interface SyncOptions {
  store: Store;
  client: DataApiClient;
  dataDir: string;
  settings: SyncSettings;
  /** Only these registered consents (`--consent`); default all that have not ended. */
  consentIds?: readonly ConsentId[];
  since?: string | null;
  full?: boolean;
  logger?: Logger;
  now?: Clock;
  /** Aborted on SIGTERM/SIGINT: the unit in flight finishes, nothing new starts. */
  signal?: AbortSignal;
  onProgress?: (progress: SyncProgress) => void;
  /**
   * Told the run's work once it is begun: a hard stop gives it up (`abandon`) before exiting; the
   * nightly sync tags the run with its job here, so that a run which then fails is still its job's
   * (src/jobs/nightly-sync.ts). Awaited before the run's work starts; a rejection fails the run.
   */
  onRun?: (run: RunWork) => void | Promise<void>;
  /**
   * Told the error that ends the run (SyncSummary.fatal holds its kind and message only), so that
   * the command reports it with its own text, request details and hint, as other commands do.
   */
  onFatal?: (error: AuthenticationError | UnavailableError) => void;
  /**
   * The id of the run to open or join (PostgreSQL): the workers `sync --workers N` starts together
   * share one, so that a `--full`, `--since` or `--consent` run may be theirs alone.
   */
  runId?: string;
  /**
   * The categories rules file (config `categories.rulesFile`, docs/categories.md "When rows are
   * decided"): when given, the rows without a decision (or changed since) are decided once the
   * run's rows are written, before the run is recorded finished and its lease released.
   */
  categoriesRulesFile?: string;
  /** Config `transfers` (docs/transfers.md): the matching run at the run's end; default DEFAULT_TRANSFER_RULES. */
  transfers?: TransferRules;
}

export interface SyncProgress {
  consentsDone: number;
  consentsTotal: number;
  windowsDone: number;
  rows: number;
  /**
   * The consent this report is of, when it is one consent's: its own windows committed and rows
   * written so far (counted by its units as they write: lanes run at once, and the run's counters
   * hold the other consents' too), and whether it is finished.
   */
  consent?: ConsentProgress;
}

export interface ConsentProgress {
  consentId: ConsentId;
  windowsDone: number;
  rows: number;
  finished: boolean;
}

export interface SyncSummary {
  runId: string;
  outcome: RunOutcome;
  startedAt: string;
  finishedAt: string;
  requests: number;
  counters: RunCounters;
  consents: ConsentResult[];
  /** Consents whose status says a new consent is needed. */
  needsReconsent: ConsentId[];
  /** Stopped after the unit in flight: asked to (SIGTERM/SIGINT) or the lease could not be held. */
  interrupted: boolean;
  /** Set when the whole run could not proceed: authentication (exit 3) or unreachable (exit 5). */
  fatal: { kind: 'authentication' | 'unavailable'; message: string } | null;
  /**
   * The closing continuity check (v_continuity, run_id = this run): breaks found, or why it could
   * not run. Never changes the outcome: a lasting bank error must not make every run partial.
   * Null when the run could not proceed. `accounts` covered = `checked` (judged) + `skipped` (not
   * judged: transactions of one direction only; src/check/check-accounts.ts CheckResult).
   */
  continuity: { accounts: number; checked: number; skipped: number; breaks: number } | { error: string } | null;
  /**
   * The rows decided at the run's end (those without a decision or changed since; `written`: whose
   * decision is new or changed; `stopped`: the run was asked to stop, later batches left for the
   * next run) (docs/categories.md "When rows are decided"), per source, or why they could not be.
   * `configError`: the rules file is invalid or unreadable, nothing decided; the run's data is
   * stored, and `bankdata sync` exits 2 naming the file's first error (`hint`). Present only with
   * `categoriesRulesFile`; never changes the run's outcome. Null when the run could not proceed.
   */
  categories?:
    | { decided: number; written: number; bySource: Record<string, number>; stopped: boolean }
    | { error: string; configError: boolean; hint?: string }
    | null;
  /**
   * The own-account transfer matching at the run's end (docs/transfers.md): pairs linked and
   * ambiguous candidates, or why it could not run; never changes the outcome. Null when the run
   * could not proceed. Absent from the summary of a dry run.
   */
  transfers?: { pairs: number; ambiguous: number } | { error: string } | null;
}

/** Another run holds the lease (exit 4); `why` says why this run cannot share it (PostgreSQL). */
export class RunLockedError extends Error {
  constructor(
    readonly holder: { pid: number; host: string; expiresAt: string },
    why?: string,
  ) {
    super(
      `another sync run holds the lock (pid ${holder.pid} on ${holder.host}, lease until ${holder.expiresAt})${why ? `: ${why}` : ''}`,
    );
    this.name = 'RunLockedError';
  }
}

/** Why an exclusive run (`--full`, `--since`, `--consent`) cannot join an open run on PostgreSQL. */
export const EXCLUSIVE_RUN_REASON =
  'a run with --full, --since or --consent needs a run of its own (the open run would not do its work)';

/** Consents this run walks: the given ones (registered, or an error), else every active one. */
/**
 * A registry with no consent: nothing to sync, a set-up not finished (README "Exit codes": 2 for
 * `bankdata sync`; a failed run for the nightly sync, src/jobs/nightly-sync.ts), never a run that
 * did its work.
 */
export const NOTHING_TO_SYNC = {
  message: 'no consent is registered: there is nothing to sync',
  hint: 'register a consent the customer authorised with `bankdata consents add CONSENT_ID`, or make one with `bankdata consents create`',
} as const;

export async function consentsToSync(store: Store, consentIds: readonly ConsentId[] | undefined): Promise<ConsentId[]> {
  if (!consentIds || consentIds.length === 0)
    return (await store.consents.list({ active: true })).map((c) => c.consentId);
  for (const id of consentIds) {
    if (!(await store.consents.get(id)))
      throw new RangeError(`consent ${id} is not registered (bankdata consents add ${id})`);
  }
  return [...consentIds];
}

/** How long after a 429 spare lanes stay closed (real time: the sync's clock may be a test's frozen one). */
const SPARE_QUIET_MS = 2000;

/**
 * Spare lanes (src/sync/pool.ts) only while the bank is not refusing the client: a 429 closes them
 * until the pacer knows a rate and SPARE_QUIET_MS pass without another. Against a bank whose
 * limit is low, a run of one consent would otherwise put all its lanes on it before the pacer has
 * learnt the rate, and each refused request is retried (up to its attempts) at once with the others.
 */
export function sparesWhileUnrefused(client: Pick<DataApiClient, 'stats'>): () => boolean {
  // The client's 429s before this run (a client that lives on: the scheduler's, the demo's).
  const before = client.stats().pacing?.refused ?? 0;
  let refused = before;
  let refusedAt = -Infinity;
  return () => {
    const pacing = client.stats().pacing;
    if (!pacing) return true;
    const t = performance.now();
    if (pacing.refused !== refused) {
      refused = pacing.refused;
      refusedAt = t;
    }
    return refused === before || (pacing.rate !== null && t - refusedAt >= SPARE_QUIET_MS);
  };
}

/**
 * One run. The store's database lost (PostgreSQL stopped or unreachable) at any point, in a unit,
 * a lease renewal, the work queue or the run's end, stops it: the unit in flight is abandoned
 * whole, nothing more is written, and the loss is raised as the database's error (exit 6, naming
 * host and database). The run keeps no end; `status` shows it interrupted once its holder is gone,
 * and the next run takes over at once (src/store/pg/work-queue.ts).
 */
export async function runSync(options: SyncOptions): Promise<SyncSummary> {
  try {
    // The client may serve other work at the same time (the scheduler's jobs): this run's requests only.
    return await countingRequests((requests) => syncRun(options, requests));
  } catch (error) {
    throw (options.store.dialect === 'postgres' ? lostPostgresError(error, options.store.path) : null) ?? error;
  }
}

async function syncRun(options: SyncOptions, requests: RequestCount): Promise<SyncSummary> {
  const { store, client } = options;
  const logger = options.logger ?? silentLogger;
  const now = options.now ?? systemClock;
  const holder = { pid: process.pid, host: hostname() };
  const consentIds = await consentsToSync(store, options.consentIds);

  const startedAt = now();
  // Work that another run would not do needs a run of its own: a re-read, or named consents.
  const exclusive =
    (options.full ?? false) || (options.since ?? null) !== null || (options.consentIds ?? []).length > 0;
  const askedAt = performance.now(); // the lease's first term begins no earlier
  const begun = await store.runs.begin({
    consentIds,
    holder,
    now: startedAt,
    leaseTtlMs: options.settings.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS,
    exclusive,
    ...(options.runId ? { runId: options.runId } : {}),
  });
  if (!begun.ok)
    throw new RunLockedError(
      begun.heldBy,
      store.dialect === 'postgres' && exclusive ? EXCLUSIVE_RUN_REASON : undefined,
    );
  const run = begun.work;
  let leaseLost = false;
  /** The store's database was lost (isStoreLost): the run stops and raises it, writing nothing more. */
  let storeLost: { error: unknown } | null = null;
  // Asked to stop (SIGTERM/SIGINT) or the lease could not be held: the run stops after the unit
  // in flight, and is "interrupted" (partial; the rest waits for the next run).
  const stopAsked = () => (options.signal?.aborted ?? false) || leaseLost;
  // A renewal that fails is tried again at the next tick while the lease still holds (a database
  // busy with another writer past its busy timeout, a statement that failed once). When the next
  // tick would come after the lease lapsed (the last renewal that succeeded, or the run's start,
  // plus its TTL), or a renewal still unanswered at a tick finds it lapsed, the run stops after the
  // unit in flight and skips its closing steps; it goes on renewing until it records its end, so a
  // database that answers again keeps the lease held while it winds down. A lease taken over, or
  // the database lost, stops it at once, and the renewals.
  const renewMs = options.settings.leaseRenewMs ?? DEFAULT_LEASE_RENEW_MS;
  const ttlMs = options.settings.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS;
  let heldSince = askedAt; // monotonic: when the lease's current term began, at the earliest
  let renewing = false;
  let takenOver = false;
  const stopFor = (reason: string) => {
    // A lease we cannot renew in time will expire under us: stop after the unit in flight rather
    // than write on while another run (or worker) may take over.
    leaseLost = true;
    logger.error('lease renewal failed: stopping after the unit in flight', { reason });
  };
  const renewFailed = (reason: string) => {
    if (leaseLost) return; // stopping already: the renewals go on, the run winds down
    const t = performance.now();
    if (t + renewMs >= heldSince + ttlMs) stopFor(reason);
    else
      logger.warn('lease renewal failed: trying again at the next renewal', {
        reason,
        leaseHoldsMs: Math.round(heldSince + ttlMs - t),
      });
  };
  const renew = setInterval(() => {
    if (takenOver || storeLost) return;
    if (renewing) {
      // A slow answer is not a failure while the lease holds; one not come by its lapse is.
      if (!leaseLost && performance.now() >= heldSince + ttlMs) stopFor('the renewal before has had no answer');
      return;
    }
    renewing = true;
    const sentAt = performance.now();
    run.renew(now()).then(
      (renewed) => {
        renewing = false;
        if (!renewed) {
          takenOver = true;
          leaseLost = true;
        } else heldSince = Math.max(heldSince, sentAt);
      },
      (error: unknown) => {
        renewing = false;
        if (isStoreLost({ store }, error)) {
          storeLost ??= { error };
          stopFor(describeError(error));
        } else renewFailed(describeError(error));
      },
    );
  }, renewMs);
  renew.unref();
  // The lease is renewed until the run is recorded finished: through the consents, and through the
  // closing steps (the check, the transfers, the categories), which read and write under it.
  const stopRenewing = () => clearInterval(renew);

  const runId = run.runId;
  const counters = emptyCounters();
  const results: ConsentResult[] = [];
  let fatal: SyncSummary['fatal'] = null;
  const progress: SyncProgress = { consentsDone: 0, consentsTotal: consentIds.length, windowsDone: 0, rows: 0 };
  // Each consent's own windows and rows, counted by its units as they write (run-context.ts
  // `ConsentTally`): the run's counters grow with every lane's at once.
  const tallies = new Map<ConsentId, ConsentTally>();
  const tallyOf = (consentId: ConsentId): ConsentTally => {
    let tally = tallies.get(consentId);
    if (!tally) tallies.set(consentId, (tally = { windows: 0, rows: 0 }));
    return tally;
  };
  const report = (consentId?: ConsentId, finished = false) => {
    progress.windowsDone = counters.windows;
    progress.rows = counters.rowsAdded + counters.rowsUpdated + counters.rowsRemoved;
    let consent: ConsentProgress | undefined;
    if (consentId !== undefined) {
      const tally = tallyOf(consentId);
      consent = { consentId, windowsDone: tally.windows, rows: tally.rows, finished };
    }
    options.onProgress?.({ ...progress, ...(consent ? { consent } : {}) });
  };
  const ctx: SyncContext = {
    store,
    client,
    dataDir: options.dataDir,
    settings: options.settings,
    logger,
    runId,
    counters,
    since: options.since ?? null,
    full: options.full ?? false,
    now,
    runStartedAt: startedAt,
    stopping: () => stopAsked() || fatal !== null,
    // A unit's write refused (its consent taken over while it was in flight): stop, as a renewal
    // that finds the lease lost does.
    onLeaseLost: () => {
      if (!takenOver) logger.error('consent taken over by another run or worker: stopping after the unit in flight');
      takenOver = true;
      leaseLost = true;
    },
    onProgress: report,
    syncedAccounts: new Map(),
    statementFileClaims: new Map(),
    lanes: runLanes(
      options.settings.concurrency,
      options.settings.spareLanes === false ? () => false : sparesWhileUnrefused(client),
      SPARE_QUIET_MS / 2,
    ),
  };
  logger.info('sync started', { run_id: runId, consents: consentIds.length });

  try {
    // Told at once (a hard stop may come during any await); its work awaited before the run's.
    await options.onRun?.(run);
    const swept = await sweepTempFiles(options.dataDir, (refusal) =>
      logger.warn(`temp files not swept: ${refusal.message}`),
    );
    if (swept > 0) logger.info('removed temp files of an interrupted run', { files: swept });
    // The pacer starts from what the last run learned; only a long run probes above its ceiling.
    await resumePacing(store, client, { long: await isLongRun(store, consentIds, ctx.full), logger });
    const meta = await fetchMeta(ctx);
    const scopes = await client.grantedScopes();
    // A scope missing for everything asked is an authentication error (exit 3), not a run of skips.
    const scopeGap = scopeGapForSync(scopes);
    if (scopeGap) {
      fatal = { kind: 'authentication', message: scopeGap };
    } else {
      // Lanes: `sync.concurrency` (16); the client's pacer holds those the bank's rate leaves
      // idle, so latency is no limit while rate × (latency + a lane's own work) < lanes. Once no
      // consent is left to start, the lanes that finish help the consents still running.
      // The run's queue: this process's list on SQLite, the shared queue of the workers on PostgreSQL.
      const next = async () => (ctx.stopping() ? null : run.next(now(), ctx.stopping));
      await drainQueue(
        next,
        options.settings.concurrency,
        async (consentId) => {
          try {
            // Its own reports name it (SyncProgress.consent).
            const result = await syncConsent(
              { ...ctx, tally: tallyOf(consentId), onProgress: () => report(consentId) },
              consentId,
              meta,
              scopes,
            );
            results.push(result);
            const kept = await run.done(consentId, result.outcome, now());
            if (!kept)
              logger.warn('consent taken over by another worker after its lease expired', { consent_id: consentId });
            logger.info('consent synced', { consent_id: consentId, outcome: result.outcome, reason: result.reason });
          } catch (error) {
            if (error instanceof AuthenticationError) {
              if (fatal === null) options.onFatal?.(error);
              fatal ??= { kind: 'authentication', message: describeError(error) };
            } else throw error;
          } finally {
            progress.consentsDone += 1;
            report(consentId, true);
          }
        },
        ctx.lanes,
      );
    }
  } catch (error) {
    if (error instanceof AuthenticationError || error instanceof UnavailableError) {
      options.onFatal?.(error);
      fatal = {
        kind: error instanceof AuthenticationError ? 'authentication' : 'unavailable',
        message: describeError(error),
      };
    } else if (isStoreLost({ store }, error)) storeLost ??= { error };
    else {
      stopRenewing();
      await finish(
        ctx,
        run,
        results,
        { kind: 'failed', message: describeError(error) },
        stopAsked(),
        startedAt,
        now,
        requests,
      );
      throw error;
    }
  }
  if (storeLost) {
    stopRenewing();
    // Nothing is written without the database: the run keeps no end, and this worker's consents
    // go back to the queue if the server answers again (else the next run takes them over).
    await run.abandon().catch(() => undefined);
    throw storeLost.error;
  }
  // Every consent unreachable is the service being down, not a partial run.
  if (!fatal && results.length > 0 && results.every((r) => r.unreachable)) {
    fatal = { kind: 'unavailable', message: 'the service could not be reached for any consent' };
  }
  let continuity: SyncSummary['continuity'];
  let transfers: SyncSummary['transfers'];
  let categories: SyncSummary['categories'];
  try {
    // Not without the lease (it could not be renewed, or was taken over): the next run does them.
    const closing = !fatal && !leaseLost;
    continuity = closing ? await closingCheckChannel.tracePromise(() => closingCheck(ctx), {}) : null;
    transfers = closing ? await closingTransfers(ctx, options.transfers ?? DEFAULT_TRANSFER_RULES) : null;
    // Under the run's lease, before finish() records the run and releases it: a run that starts
    // next finds every row of this one decided (docs/categories.md "When rows are decided").
    if (options.categoriesRulesFile !== undefined)
      categories = closing ? await closingCategorise(ctx, options.categoriesRulesFile, options.signal) : null;
  } finally {
    stopRenewing();
  }
  const summary = await finish(ctx, run, results, fatal, stopAsked(), startedAt, now, requests);
  summary.continuity = continuity;
  if (options.categoriesRulesFile !== undefined) summary.categories = categories;
  summary.transfers = transfers;
  logger.info('sync finished', { run_id: runId, outcome: summary.outcome, requests: summary.requests });
  return summary;
}

/**
 * The continuity check over the accounts this process synced, recorded with this run's id; its
 * failure is logged, not raised. It starts once this process has nothing left to do: on SQLite
 * it synced every consent of the run; on PostgreSQL `run.next` returned null only when no other
 * worker still holds a consent, so every row of the run is written (unless this worker is
 * stopping: then others may still write, and the next run checks again), and each worker checks
 * its own accounts beside the others. An account two workers synced is checked by both, on the
 * same rows, and its findings are replaced behind the account's write lock (stored once).
 * Accounts the run did not touch keep their findings (`bankdata check` covers every account).
 */
async function closingCheck(ctx: SyncContext): Promise<SyncSummary['continuity']> {
  try {
    const result = await checkContinuity(ctx.store, { runId: ctx.runId, accounts: [...ctx.syncedAccounts.values()] });
    if (result.findings.length > 0)
      ctx.logger.warn('continuity breaks found (bankdata check)', {
        breaks: result.findings.length,
        suspected_duplicates: result.duplicates.length,
      });
    return {
      accounts: result.accounts,
      checked: result.checked,
      skipped: result.skipped.length,
      breaks: result.findings.length,
    };
  } catch (error) {
    ctx.logger.error('continuity check failed', { reason: describeError(error) });
    return { error: describeError(error) };
  }
}

/**
 * The rows without a decision (or changed since theirs) decided, set-based and batched, once the
 * run has written its rows and before it is recorded finished (src/categories/apply.ts); the
 * request path is untouched. A stop asked (the run's signal) ends it between batches. An invalid
 * or unreadable rules file decides nothing (so that no row is decided without the user's rules):
 * it is logged and reported as a configuration error, which `bankdata sync` exits 2 on
 * (docs/categories.md "The rules file").
 */
async function closingCategorise(
  ctx: SyncContext,
  rulesFile: string,
  signal: AbortSignal | undefined,
): Promise<SyncSummary['categories']> {
  try {
    const { rules } = loadRules(rulesFile);
    const result = await applyCategories(ctx.store, { rules, all: false, ...(signal ? { signal } : {}) });
    return { decided: result.examined, written: result.changed, bySource: result.bySource, stopped: result.stopped };
  } catch (error) {
    const configError = error instanceof UsageError;
    // A configuration error is the caller's to report (`bankdata sync`: its one error line, exit 2).
    if (!configError) ctx.logger.warn('categories not decided', { reason: describeError(error) });
    return {
      error: describeError(error),
      configError,
      ...(configError && error.hint ? { hint: error.hint } : {}),
    };
  }
}

/**
 * The own-account transfer matching over every stored row (docs/transfers.md), replacing the
 * links whole; its failure is logged, not raised. On PostgreSQL each worker ending the run runs
 * it, one after the other (the matching's lock): the last one sees every row of the run.
 */
async function closingTransfers(ctx: SyncContext, rules: TransferRules): Promise<SyncSummary['transfers']> {
  try {
    const result = await refreshTransfers(ctx.store, rules);
    for (const { group, entry } of result.unknownGroupEntries)
      ctx.logger.warn('transfers.groups names no stored account', { group, entry });
    return { pairs: result.pairs, ambiguous: result.ambiguous };
  } catch (error) {
    ctx.logger.error('transfer matching failed', { reason: describeError(error) });
    return { error: describeError(error) };
  }
}

async function fetchMeta(ctx: SyncContext): Promise<Map<string, BankMeta>> {
  const meta = await ctx.client.getMeta();
  for (const bank of meta) await ctx.store.meta.save(bank);
  return new Map(meta.map((b) => [b.name, b]));
}

/** Records this process's summary of the run and leaves it (the lease is released; see run-work.ts). */
async function finish(
  ctx: SyncContext,
  run: RunWork,
  results: ConsentResult[],
  fatal: SyncSummary['fatal'] | { kind: 'failed'; message: string },
  interrupted: boolean,
  startedAt: Date,
  now: Clock,
  sent: RequestCount,
): Promise<SyncSummary> {
  const { counters } = ctx;
  const partial =
    counters.failedUnits.length > 0 ||
    counters.rejects > 0 ||
    interrupted ||
    results.some((r) => r.outcome === 'failed');
  const outcome: RunOutcome = fatal ? 'failed' : partial ? 'partial' : 'ok';
  const requests = sent.requests;
  const errors = [
    ...(fatal ? [fatal.message] : []),
    ...counters.failedUnits.map((f) => `${f.consentId} ${f.unit}: ${f.reason}`),
    ...(counters.rejects > 0 ? [`${counters.rejects} record(s) quarantined in rejects`] : []),
    ...(interrupted ? ['interrupted: stopped after the unit in flight'] : []),
  ];
  await savePacing(ctx.store, ctx.client, ctx.logger);
  const finishedAt = now();
  await run.leave(
    {
      outcome,
      consents: results.length,
      requests,
      rowsWritten: counters.rowsAdded + counters.rowsUpdated + counters.rowsRemoved,
      failedUnits: counters.failedUnits.length,
      // A server's message may hold a NUL, which PostgreSQL cannot store: written escaped on both.
      errorSummary: errors.length > 0 ? truncate(escapeNul(errors.join('; ')), 2000) : null,
    },
    finishedAt,
  );
  return {
    runId: ctx.runId,
    outcome,
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    requests,
    counters,
    consents: results,
    needsReconsent: results.filter((r) => r.needsReconsent).map((r) => r.consentId),
    interrupted,
    fatal: fatal && fatal.kind !== 'failed' ? fatal : null,
    continuity: null,
  };
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
