/**
 * Rows booked at one instant whose running balances chain: banks order them differently, and an
 * id says nothing of their order. The balance after the instant is that of the last row of the
 * chain. The chain is walked as the continuity check walks it (src/check/continuity.ts
 * `RunningBalanceWalk`): from the balance before the instant, each next row the one whose
 * balance less its amount is the balance so far, else the first row left. The report's balance
 * anchor and the OFX export's LEDGERBAL take its end (docs/continuity.md, docs/exports.md).
 */

/** Exact units (1/100000) of a row's amount and of its running balance after it. */
export interface ChainUnits {
  amount: bigint;
  after: bigint;
}

/**
 * The last row of the rows' balance chain, walked from `prior` (the running balance before the
 * instant); without it, from the row no other row's balance leads to (a payment and its reversal
 * form a loop: `prior` says where it starts).
 */
export function chainEnd<T>(
  rows: readonly T[],
  units: (row: T) => ChainUnits,
  prior: bigint | null = null,
): T | undefined {
  const left = rows.map((row) => ({ row, ...units(row) }));
  const start = left.find((r) => !left.some((o) => o !== r && o.after === r.after - r.amount));
  let balance = prior ?? (start ? start.after - start.amount : null);
  let last: (typeof left)[number] | undefined;
  while (left.length > 0) {
    const next = left.findIndex((r) => balance !== null && r.after - r.amount === balance);
    [last] = left.splice(next < 0 ? 0 : next, 1);
    balance = last?.after ?? null;
  }
  return last?.row;
}
