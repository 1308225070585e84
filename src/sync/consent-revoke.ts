/**
 * Revoking a consent (`bankdata consents revoke`), DELETE /v1/consents?consent_id= (docs/bank-api.md
 * §4.3). BDT702 (already revoked) is success; BDT009 (already Rejected, GatewayTimeout or
 * Consumed) is success too, and the status it ended in is read and recorded. A registered
 * consent is marked ended either way, so sync skips it from then on.
 */
import { ConsentEndedError, IdempotencyError, type DataApiClient } from '../api';
import type { ConsentId, ConsentStatus } from '@bankdata/core/schemas';
import type { Store } from '../store';

export interface RevokeResult {
  consentId: ConsentId;
  /** revoked: 204; already-revoked: BDT702; already-ended: BDT009. */
  outcome: 'revoked' | 'already-revoked' | 'already-ended';
  /** The status read after the revoke (null when it could not be read). */
  status: ConsentStatus | null;
  code: 'BDT702' | 'BDT009' | null;
  registered: boolean;
}

export async function revokeConsentOp(
  store: Store,
  client: DataApiClient,
  consentId: ConsentId,
): Promise<RevokeResult> {
  const registered = (await store.consents.get(consentId)) !== null;
  let outcome: RevokeResult['outcome'] = 'revoked';
  let code: RevokeResult['code'] = null;
  try {
    await client.revokeConsent(consentId);
  } catch (error) {
    if (error instanceof IdempotencyError && error.code === 'BDT702') {
      outcome = 'already-revoked';
      code = 'BDT702';
    } else if (error instanceof ConsentEndedError && error.code === 'BDT009') {
      outcome = 'already-ended';
      code = 'BDT009';
    } else {
      // BDT101: unknown here; a registered one can never be synced again.
      if (registered && error instanceof ConsentEndedError && error.code)
        await store.consents.markEnded(consentId, error.code);
      throw error;
    }
  }
  let status: ConsentStatus | null = null;
  if (registered) {
    try {
      const consent = await client.getConsent(consentId);
      await store.consents.recordStatus(consent);
      status = consent.status;
    } catch {
      // The revoke stands; the status is recorded by the next sync's read.
    }
    await store.consents.markEnded(consentId, status ?? code ?? 'Revoked');
  }
  return { consentId, outcome, status, code, registered };
}
