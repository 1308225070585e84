/**
 * Rows booked at one instant whose running balances chain: banks order them differently, and an
 * id says nothing of their order. The balance after the instant is that of the last row of the
 * chain, the row no other row's balance starts from (its balance less its amount). The continuity
 * check walks the same chain (src/check/continuity.ts `RunningBalanceWalk`); the report's balance
 * anchor and the OFX export's LEDGERBAL take its end (docs/continuity.md, docs/exports.md).
 */

/** Exact units (1/100000) of a row's amount and of its running balance after it. */
export interface ChainUnits {
  amount: bigint;
  after: bigint;
}

/** The last row of the rows' balance chain; the first row when their balances form no chain. */
export function chainEnd<T>(rows: readonly T[], units: (row: T) => ChainUnits): T | undefined {
  const all = rows.map((row) => ({ row, ...units(row) }));
  return (all.find((r) => !all.some((o) => o !== r && o.after - o.amount === r.after)) ?? all[0])?.row;
}
