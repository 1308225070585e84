/**
 * Rows booked at one instant whose running balances chain: banks order them differently, and an
 * id says nothing of their order. The balance after the instant is that of the last row of the
 * chain. The chain is walked as the continuity check walks it (src/check/continuity.ts
 * `RunningBalanceWalk`): from the balance before the instant, each next row the one whose
 * balance less its amount is the balance so far, else the first row left. The transactions
 * export writes an instant's rows in this order, the report's balance anchor and the OFX export's
 * LEDGERBAL take its end (docs/continuity.md, docs/exports.md).
 */

/** Exact units (1/100000) of a row's amount and of its running balance after it. */
export interface ChainUnits {
  amount: bigint;
  after: bigint;
}

/**
 * The rows in their balance chain's order, walked from `prior` (the running balance before the
 * instant) when a row continues from it; else from the row no other row's balance leads to (a
 * payment and its reversal form a loop: `prior` says where it starts). A `prior` no row continues
 * is not the instant's start (another chain's end, a gap the check reports): it is passed over.
 * Rows the walk cannot link keep their given order after the ones it did.
 */
export function chainOrder<T>(rows: readonly T[], units: (row: T) => ChainUnits, prior: bigint | null = null): T[] {
  const left = rows.map((row) => ({ row, ...units(row), taken: false }));
  // By the balance each row starts from, in the given order; and how many rows end at a balance.
  const byStart = new Map<bigint, (typeof left)[number][]>();
  const ending = new Map<bigint, number>();
  for (const r of left) {
    const from = r.after - r.amount;
    const starting = byStart.get(from);
    if (starting) starting.push(r);
    else byStart.set(from, [r]);
    ending.set(r.after, (ending.get(r.after) ?? 0) + 1);
  }
  const start = left.find((r) => (ending.get(r.after - r.amount) ?? 0) - (r.amount === 0n ? 1 : 0) === 0);
  let balance = prior !== null && byStart.has(prior) ? prior : start ? start.after - start.amount : null;
  const ordered: T[] = [];
  let first = 0;
  while (ordered.length < left.length) {
    let next = balance === null ? undefined : byStart.get(balance)?.find((r) => !r.taken);
    if (next === undefined) {
      while (left[first]?.taken) first += 1;
      next = left[first];
    }
    if (next === undefined) break;
    next.taken = true;
    ordered.push(next.row);
    balance = next.after;
  }
  return ordered;
}

/** The last row of the rows' balance chain (`chainOrder`'s last). */
export function chainEnd<T>(
  rows: readonly T[],
  units: (row: T) => ChainUnits,
  prior: bigint | null = null,
): T | undefined {
  return chainOrder(rows, units, prior).at(-1);
}
