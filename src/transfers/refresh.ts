/**
 * One matching of own-account transfers (docs/transfers.md): the candidates read, judged by the
 * rules (match.ts) and stored whole in transfer_links (v_transfers, v_transfer_ambiguities). Run
 * at the end of every sync that stored rows and by `bankdata transfers`; a matching replaces the
 * previous one, so a rule or group changed in the configuration applies to every row at once.
 */
import type { Store } from '../store';
import { toStoredInstant } from '../store';
import { matchTransfers, unknownGroupEntries, type TransferRules } from './match';

export interface TransferMatching {
  /** Pairs linked (rows of v_transfers). */
  pairs: number;
  /** Candidate pairs left unchosen because another was as good (rows of v_transfer_ambiguities). */
  ambiguous: number;
  /** Configured group entries that name no stored account. */
  unknownGroupEntries: { group: string; entry: string }[];
}

export async function refreshTransfers(
  store: Store,
  rules: TransferRules,
  options: { save?: boolean } = {},
): Promise<TransferMatching & { links: ReturnType<typeof matchTransfers> }> {
  const { accounts, links } = await store.transfers.rematch(
    rules.maxDays,
    (candidates, accounts) => matchTransfers(candidates, accounts, rules),
    { save: options.save !== false, linkedAt: toStoredInstant(store.now()) },
  );
  return {
    pairs: links.filter((l) => l.status === 'linked').length,
    ambiguous: links.filter((l) => l.status === 'ambiguous').length,
    unknownGroupEntries: unknownGroupEntries(rules.groups, accounts),
    links,
  };
}
