/**
 * The pacer's memory between runs (docs/client.md "Pacing"): a run starts from the rate and
 * ceiling the last run stored for its bank API and client, and stores what it learned when it
 * ends. Only a long run (a backfill) may probe above the stored ceiling.
 */
import type { DataApiClient } from '../api';
import type { Logger } from '../log';
import type { Store } from '../store';
import type { ConsentId } from '@bankdata/core/schemas';
import { describeError } from './unit-outcome';

/**
 * A run is long (a backfill) with `--full`, or when one of its consents no run has tried yet (no
 * outcome stored: its first sync reads its whole history): only such a run probes above the
 * stored ceiling. A consent tried before but never synced (awaiting authorisation, revoked) does
 * not make every night a long run.
 */
export async function isLongRun(store: Store, consentIds: readonly ConsentId[], full: boolean): Promise<boolean> {
  if (full) return true;
  for (const id of consentIds) {
    const consent = await store.consents.get(id);
    if (consent && consent.lastOutcome === null && consent.lastSyncedAt === null) return true;
  }
  return false;
}

/**
 * Starts the client's pacer from the stored rate, if any; returns whether one was found. With
 * none (never stored, or `bankdata pacing reset`), a client that lives on (the scheduler's)
 * forgets what its earlier runs learned, so a reset is not written back at the run's end.
 */
export async function resumePacing(
  store: Store,
  client: DataApiClient,
  options: { long: boolean; logger: Logger },
): Promise<boolean> {
  const pacing = client.pacing;
  if (!pacing) return false;
  const stored = await store.pacing.get(pacing.key);
  if (!stored) {
    pacing.forget();
    return false;
  }
  pacing.resume({ rate: stored.rate, ceiling: stored.ceiling }, { probe: options.long });
  options.logger.info('pacing resumed', {
    rate: round(stored.rate),
    ceiling: stored.ceiling === null ? null : round(stored.ceiling),
    probe: options.long,
  });
  return true;
}

/** Stores what the pacer learned; a failure is logged, never the run's. */
export async function savePacing(store: Store, client: DataApiClient, logger: Logger): Promise<void> {
  const pacing = client.pacing;
  const learned = pacing?.learned();
  if (!pacing || !learned) return;
  try {
    await store.pacing.save({ ...pacing.key, ...learned });
  } catch (error) {
    logger.warn('the pacing learned could not be stored', { reason: describeError(error) });
  }
}

function round(rate: number): number {
  return Math.round(rate * 100) / 100;
}
