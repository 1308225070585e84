/**
 * Live status of registered consents (`consents list`, `consents show`, the expiry check):
 * GET /v1/consents/{id} for each, in a bounded pool, recorded in the registry. A consent the
 * server no longer knows (BDT101) is marked ended, as the sync would; other failures are
 * reported per consent and leave the last known status in place.
 */
import { ApiError, AuthenticationError, ConsentEndedError, UnavailableError, type DataApiClient } from '../api';
import type { ConsentId, ConsentStatus } from '@bankdata/core/schemas';
import type { Store } from '../store';
import { mapPool } from './pool';
import { describeError } from './unit-outcome';

export interface RefreshOutcome {
  consentId: ConsentId;
  /** The status read now; null when the read failed. */
  status: ConsentStatus | null;
  /** Why the read failed: the code (BDT101…) or `unreachable`, with the message. */
  error: { code: string; message: string } | null;
}

export async function refreshConsentStatuses(
  store: Store,
  client: DataApiClient,
  consentIds: readonly ConsentId[],
  concurrency: number,
): Promise<RefreshOutcome[]> {
  // One slot per consent, in the order given, filled by whichever lane reads it.
  const outcomes: RefreshOutcome[] = consentIds.map((consentId) => ({ consentId, status: null, error: null }));
  await mapPool([...consentIds.entries()], concurrency, async ([index, consentId]) => {
    try {
      const consent = await client.getConsent(consentId);
      await store.consents.recordStatus(consent);
      outcomes[index] = { consentId, status: consent.status, error: null };
    } catch (error) {
      const failure = readFailure(error);
      if (error instanceof ConsentEndedError && error.code && (await store.consents.get(consentId))) {
        await store.consents.markEnded(consentId, error.code);
      }
      outcomes[index] = { consentId, status: null, error: failure };
    }
  });
  return outcomes;
}

/**
 * Why a live consent read failed: its code (BDT101…), `unreachable` (the CLI exits 5), or
 * `failed`. A refused token is rethrown: credentials wrong, nothing else will work either (exit 3).
 */
export function readFailure(error: unknown): { code: string; message: string } {
  if (error instanceof AuthenticationError) throw error;
  const code =
    error instanceof UnavailableError
      ? 'unreachable'
      : error instanceof ApiError && error.code !== null
        ? error.code
        : 'failed';
  return { code, message: describeError(error) };
}
