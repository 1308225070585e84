/** Party (docs/bank-api.md §6.8): the consenting customer, and an account's owner. */
import { parseSingle, type SingleResult } from '../parse';
import type { AccountId, ConsentId } from '@bankdata/core/schemas';
import type { Transport } from '../transport';
import { accountPath } from './accounts';

/** GET /v1/party?consent_id= (ReadPartyAuthUser). */
export async function getParty(transport: Transport, consentId: ConsentId): Promise<SingleResult<'Party'>> {
  const url = transport.url('/v1/party', { consent_id: consentId });
  return parseSingle('Party', await transport.exchange({ kind: 'party', method: 'GET', url }));
}

/** GET /v1/accounts/{account_id}/party?consent_id= (ReadParty). */
export async function getAccountParty(
  transport: Transport,
  consentId: ConsentId,
  accountId: AccountId,
): Promise<SingleResult<'Party'>> {
  const url = transport.url(`${accountPath(accountId)}/party`, { consent_id: consentId });
  return parseSingle('Party', await transport.exchange({ kind: 'account_party', method: 'GET', url }));
}
