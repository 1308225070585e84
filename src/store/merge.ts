/**
 * How a fetched row meets the stored one. Shared by every upsert so that the rules read once:
 * - detail columns are COALESCEd: a fetch through a consent with fewer permissions (Basic) never
 *   blanks a field that another fetch filled (docs/configuration.md "Sync rules");
 * - a row whose columns are all equal is unchanged and is not rewritten;
 * - the raw JSON follows the last payload that changed the row, and a payload that merely lacks
 *   a top-level field the stored one has (a poorer view of the same record) does not replace it.
 */
export interface MergeResult<R> {
  merged: R;
  changed: boolean;
}

export function mergeRow<R extends { rawJson: string }>(
  stored: R,
  incoming: R,
  rules: { coalesce: readonly (keyof R)[]; bookkeeping: readonly (keyof R)[] },
): MergeResult<R> {
  const merged: R = { ...incoming };
  for (const key of rules.coalesce) {
    if (merged[key] === null) merged[key] = stored[key];
  }
  const columnsChanged = (Object.keys(incoming) as (keyof R)[]).some(
    (key) => key !== 'rawJson' && !rules.bookkeeping.includes(key) && merged[key] !== stored[key],
  );
  if (columnsChanged) return { merged, changed: true };
  const rawChanged = incoming.rawJson !== stored.rawJson && !isPoorerView(stored.rawJson, incoming.rawJson);
  if (rawChanged) return { merged, changed: true };
  return { merged: { ...merged, rawJson: stored.rawJson }, changed: false };
}

/** True when `incoming` lacks a top-level field that `stored` has. */
export function isPoorerView(storedJson: string, incomingJson: string): boolean {
  const stored = topLevelKeys(storedJson);
  const incoming = new Set(topLevelKeys(incomingJson));
  return stored.some((key) => !incoming.has(key));
}

function topLevelKeys(json: string): string[] {
  const value: unknown = JSON.parse(json);
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value) : [];
}
