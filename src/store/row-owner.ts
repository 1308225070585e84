/**
 * Which consent a stored row belongs to when several consents read the same account
 * (docs/data-model.md "Which consent a row belongs to"): the consent that first returned it, for
 * as long as that consent is live (registered as Authorised and not ended). A fetch through
 * another consent takes the row over only once its owner is no longer live. The first owner is
 * whichever consent's answer was stored first (a race when consents run side by side); after that
 * the owner does not depend on the order in which a run syncs its consents, and a run with no
 * change moves nothing.
 * Shared by both dialects' write paths.
 */
import { eq, inArray, isNull, sql, type Column, type SQL } from 'drizzle-orm';
import type { ConsentId } from '@bankdata/core/schemas';
import { allOf } from './dialect-sql';
import { consents } from './sqlite/schema';
import type { SqlRunner } from './sql-runner';

interface Owned {
  consentId: ConsentId;
}

/** The consents among `ids` that are live, in either dialect's `consents` table. */
export function liveConsentsWhere(
  t: Record<'consentId' | 'status' | 'endedAt', Column>,
  ids: readonly ConsentId[],
): SQL {
  return allOf(inArray(t.consentId, [...ids]), eq(t.status, 'Authorised'), isNull(t.endedAt));
}

/** The stored rows' consents other than the fetching one: the only ones whose liveness matters. */
export function otherOwners(stored: Iterable<Owned | undefined>, fetching: ConsentId): ConsentId[] {
  const ids = new Set<ConsentId>();
  for (const row of stored) if (row && row.consentId !== fetching) ids.add(row.consentId);
  return [...ids];
}

/** The row to write: the fetched one, under its stored consent while that consent is live. */
export function withOwner<R extends Owned>(row: R, stored: Owned | undefined, live: ReadonlySet<ConsentId>): R {
  return stored && stored.consentId !== row.consentId && live.has(stored.consentId)
    ? { ...row, consentId: stored.consentId }
    : row;
}

/** The live consents among `ids` (no query when there are none), over either dialect's runner. */
export async function liveConsentsOf(r: SqlRunner, ids: readonly ConsentId[]): Promise<Set<ConsentId>> {
  if (ids.length === 0) return new Set();
  const found = await r.all(sql`SELECT consent_id FROM consents WHERE ${liveConsentsWhere(consents, ids)}`);
  return new Set(found.map((row) => row.consent_id as ConsentId));
}

/** `withOwner` for one row, reading its stored consent's liveness only when it differs. */
export async function ownedRowOf<R extends Owned>(r: SqlRunner, row: R, stored: Owned | undefined): Promise<R> {
  return withOwner(row, stored, await liveConsentsOf(r, otherOwners([stored], row.consentId)));
}
