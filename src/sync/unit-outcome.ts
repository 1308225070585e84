/**
 * One unit of work (a window, a resource of an account, a statement file) and what its
 * failure means. Branches on the error class only (status + code mapped in api/map-api-error.ts).
 *
 * - consent ended / not yet authorised / authentication: not the unit's business; they go up
 *   to the consent (recorded and skipped) or the run (exit 3).
 * - permission or scope missing, resource unsupported: that resource is skipped with its reason.
 * - the store's database lost (PostgreSQL): the run stops (isStoreLost).
 * - its write refused, the consent taken over by another run or worker (LeaseLostError): a
 *   failed unit (nothing of it committed), and the run stops as for a lease lost.
 * - anything else (unavailable after retries, a protocol fault, a date rule, a local I/O error):
 *   a failed unit, recorded, retried next run; the rest of the run still lands.
 */
import {
  ApiError,
  AuthenticationError,
  ConsentEndedError,
  ConsentNotAuthorisedError,
  NotSupportedError,
  PermissionMissingError,
  ScopeMissingError,
} from '../api';
import type { ConsentId } from '@bankdata/core/schemas';
import { redact } from '@bankdata/core/secrets';
import { isPostgresConnectionLoss } from '../database-url';
import { LeaseLostError } from '../store';
import type { SyncContext } from './run-context';

/** Errors that end the consent's sync (or the run); a unit never swallows them. */
export function isConsentLevel(error: unknown): boolean {
  return (
    error instanceof ConsentEndedError ||
    error instanceof ConsentNotAuthorisedError ||
    error instanceof AuthenticationError
  );
}

/**
 * The store's database was lost (the PostgreSQL server stopped, crashed or cannot be reached): no
 * unit, consent or run goes on without it. The unit in flight is abandoned whole (its transaction
 * never committed) and the run stops (src/sync/run.ts: exit 6).
 */
export function isStoreLost(ctx: Pick<SyncContext, 'store'>, error: unknown): boolean {
  return ctx.store.dialect === 'postgres' && !(error instanceof ApiError) && isPostgresConnectionLoss(error);
}

export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const code = 'code' in error && typeof error.code === 'string' ? error.code : '';
    // Node's file-system errors already start with their code ("ENOENT: no such file…").
    const named = code === '' || error.message.startsWith(`${code}:`) ? error.message : `${code}: ${error.message}`;
    return redact(named);
  }
  return redact(String(error));
}

export type UnitOutcome<T> = { ok: true; value: T } | { ok: false };

/**
 * Runs one unit. Returns its value, or `{ok: false}` after recording a skip or a failure.
 * Consent-level errors are rethrown. Once the run is stopping (a signal, a lost lease, the
 * consent ended) no unit starts: `{ok: false}` with nothing recorded, the unit left for the next
 * run. A unit that waited for its turn (the bank's limit being learned, a spare lane) is checked
 * here as it starts, not only where its wait began.
 */
export async function runUnit<T>(
  ctx: SyncContext,
  consentId: ConsentId,
  unit: string,
  resource: string,
  work: () => Promise<T>,
): Promise<UnitOutcome<T>> {
  if (ctx.stopping()) return { ok: false };
  try {
    return { ok: true, value: await work() };
  } catch (error) {
    if (isConsentLevel(error) || isStoreLost(ctx, error)) throw error;
    if (
      error instanceof PermissionMissingError ||
      error instanceof ScopeMissingError ||
      error instanceof NotSupportedError
    ) {
      ctx.counters.skipped.push({ consentId, resource, reason: describeError(error) });
      ctx.logger.warn('resource skipped', { consent_id: consentId, unit, reason: describeError(error) });
      return { ok: false };
    }
    recordFailure(ctx, consentId, unit, error);
    return { ok: false };
  }
}

/**
 * Records a failed unit; its write refused because the consent was taken over (LeaseLostError)
 * also stops the run, wherever the failure is recorded (a unit, a batch of statement files).
 */
export function recordFailure(ctx: SyncContext, consentId: ConsentId, unit: string, error: unknown): void {
  const reason = describeError(error);
  ctx.counters.failedUnits.push({ consentId, unit, reason });
  ctx.logger.error('unit failed', { consent_id: consentId, unit, reason });
  if (error instanceof LeaseLostError) ctx.onLeaseLost?.();
}
