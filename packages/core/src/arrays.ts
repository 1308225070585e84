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

/**
 * The index of the first element of `xs` for which `before` is false, by binary search: `xs`
 * must hold every element `before` accepts ahead of every one it does not (a sorted list and a
 * `<` or `<=` against it). The upper bound of `x` in ascending numbers: `partitionPoint(xs, (v) => v <= x)`.
 */
export function partitionPoint<T>(xs: readonly T[], before: (item: T) => boolean): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (before(itemAt(xs, mid))) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
