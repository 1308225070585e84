/** GET /v1/meta (docs/bank-api.md §5): each bank's features, parsed strictly. */
import { parseStrict } from '../parse';
import { MetaResponse } from '@bankdata/core/schemas';
import type { Transport } from '../transport';

export async function getMeta(transport: Transport): Promise<MetaResponse> {
  const answer = await transport.exchange({ kind: 'meta', method: 'GET', url: transport.url('/v1/meta') });
  return parseStrict(MetaResponse, answer, 'meta');
}
