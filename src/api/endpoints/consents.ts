/** Consents (docs/bank-api.md §4): create, read, revoke. Responses parsed strictly. */
import { randomUUID } from 'node:crypto';
import { parseStrict } from '../parse';
import { MAX_IDEMPOTENCY_KEY_LENGTH } from '@bankdata/core/consent-rules';
import { Consent, CreateConsentResponse, type ConsentId, type CreateConsentRequest } from '@bankdata/core/schemas';
import type { Transport } from '../transport';

export interface CreateConsentOptions {
  /**
   * Sent as `idempotency-key` on every attempt. Pass one to store it before sending (so a
   * crashed run can replay the same request); default a fresh UUID v4.
   */
  idempotencyKey?: string;
}

/** POST /v1/consents. Retried on 429/5xx and BDT704 with the same key (docs/bank-api.md §7.4). */
export async function createConsent(
  transport: Transport,
  body: CreateConsentRequest,
  options: CreateConsentOptions = {},
): Promise<CreateConsentResponse> {
  const idempotencyKey = options.idempotencyKey ?? randomUUID();
  // BDT254: the server refuses longer keys; a caller bug, caught before sending.
  if (idempotencyKey.length === 0 || idempotencyKey.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw new RangeError(`idempotency key must be 1–${MAX_IDEMPOTENCY_KEY_LENGTH} characters (BDT254)`);
  }
  const answer = await transport.exchange({
    kind: 'consents',
    method: 'POST',
    url: transport.url('/v1/consents'),
    body: JSON.stringify(body),
    idempotencyKey,
  });
  return parseStrict(CreateConsentResponse, answer, 'create consent');
}

/** GET /v1/consents/{consent_id}: 200 whatever the status. */
export async function getConsent(transport: Transport, consentId: ConsentId): Promise<Consent> {
  const answer = await transport.exchange({
    kind: 'consents',
    method: 'GET',
    url: transport.url(`/v1/consents/${encodeURIComponent(consentId)}`),
  });
  return parseStrict(Consent, answer, 'consent');
}

/**
 * DELETE /v1/consents?consent_id= (docs/bank-api.md §4.3): 204 when revoked. BDT702 (already revoked)
 * and BDT009 (already ended) reach the caller as errors; the CLI treats both as done.
 * DELETE is idempotent, so it is retried like a GET.
 */
export async function revokeConsent(transport: Transport, consentId: ConsentId): Promise<void> {
  await transport.exchange({
    kind: 'consents',
    method: 'DELETE',
    url: transport.url('/v1/consents', { consent_id: consentId }),
  });
}
