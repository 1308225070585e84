/**
 * `xs[index]` for an index the caller has computed to be in range (a binary search's probe, a
 * calendar day a fixed number of days on): the element, or a RangeError that names the index,
 * where `xs[index]!` would hand on `undefined` and fail later and further away.
 */
export function itemAt<T>(xs: readonly T[], index: number): T {
  if (index < 0 || index >= xs.length || !Number.isInteger(index)) {
    throw new RangeError(`index ${index} outside a list of ${xs.length}`);
  }
  return xs[index] as T;
}
