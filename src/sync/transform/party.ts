/** Wire Party (docs/bank-api.md §6.8) → parties row. Pure. */
import type { AccountId, Party } from '@bankdata/core/schemas';
import type { PartyRow } from '../../store/rows';
import { ownerColumns, toRawJson, type TransformContext } from './transform-context';

/**
 * One address as a line: address lines, town, post code, country, joined with ", "
 * (docs/data-model.md "Views"). The party's first address is shown; all of them stay in raw_json.
 */
export function formatAddress(address: NonNullable<Party['Address']>[number]): string {
  return [...(address.AddressLine ?? []), address.TownName, address.PostCode, address.Country]
    .filter((part): part is string => part !== undefined && part !== '')
    .join(', ');
}

/**
 * `accountId` is null for the consenting customer (GET /v1/party) and the account's id for its
 * owner (GET /v1/accounts/{account_id}/party).
 */
export function toPartyRow(
  party: Party,
  ctx: TransformContext,
  accountId: AccountId | null,
  raw: unknown = party,
): PartyRow {
  const first = party.Address?.[0];
  return {
    partyId: party.PartyId,
    partyNumber: party.PartyNumber ?? null,
    partyType: party.PartyType ?? null,
    name: party.Name ?? null,
    email: party.EmailAddress ?? null,
    phone: party.Phone ?? null,
    mobile: party.Mobile ?? null,
    address: first ? formatAddress(first) : null,
    rawJson: toRawJson(raw),
    ...ownerColumns(ctx, accountId),
  };
}
