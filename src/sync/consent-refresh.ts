/**
 * Live status of registered consents (`consents list`, `consents show`, the expiry check):
 * GET /v1/consents/{id} for each, in a bounded pool, recorded in the registry. A consent the
 * server no longer knows (BDT101) is marked ended, as the sync would; other failures are
 * reported per consent and leave the last known status in place.
 */
import { AuthenticationError, ConsentEndedError, UnavailableError, type DataApiClient } from '../api';
import type { ConsentId, ConsentStatus } from '../api/schemas';
import type { Store } from '../store';
import { mapPool } from './pool';
import { describeError } from './units';

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
  const outcomes = new Map<ConsentId, RefreshOutcome>();
  await mapPool(consentIds, concurrency, async (consentId) => {
    try {
      const consent = await client.getConsent(consentId);
      store.consents.recordStatus(consent);
      outcomes.set(consentId, { consentId, status: consent.status, error: null });
    } catch (error) {
      // Credentials wrong: nothing else will work either (exit 3).
      if (error instanceof AuthenticationError) throw error;
      if (error instanceof ConsentEndedError && error.code && store.consents.get(consentId)) {
        store.consents.markEnded(consentId, error.code);
      }
      const code = error instanceof UnavailableError ? 'unreachable' : ((error as { code?: string | null }).code ?? 'failed');
      outcomes.set(consentId, { consentId, status: null, error: { code, message: describeError(error) } });
    }
  });
  return consentIds.map((id) => outcomes.get(id)!);
}
