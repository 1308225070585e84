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
 * The rows in their balance chain's order: each row a step from the balance before it (its balance
 * less its amount) to its balance, the order one walk that takes every row once (an Euler trail,
 * Hierholzer's: a payment and its reversal beside another row from the same balance form a loop
 * that a walk taking the first row it meets would leave for later, ending the chain early). It
 * starts from `prior` (the running balance before the instant) when a row continues from it; else
 * from a balance more rows leave than reach, else the first row's. A `prior` no row continues is
 * not the instant's start (another chain's end, a gap the check reports): it is passed over. Rows
 * no single walk can take (a break) follow, walked the same way. Among equal choices the rows'
 * given order decides, so the order is total; the chain's end balance does not depend on it.
 */
export function chainOrder<T>(rows: readonly T[], units: (row: T) => ChainUnits, prior: bigint | null = null): T[] {
  const steps = rows.map((row) => {
    const { amount, after } = units(row);
    return { row, from: after - amount, to: after, taken: false };
  });
  type Step = (typeof steps)[number];
  // The steps leaving each balance, in the given order, and how many more leave it than reach it.
  const leaving = new Map<bigint, Step[]>();
  const surplus = new Map<bigint, number>();
  for (const step of steps) {
    const out = leaving.get(step.from);
    if (out) out.push(step);
    else leaving.set(step.from, [step]);
    surplus.set(step.from, (surplus.get(step.from) ?? 0) + 1);
    surplus.set(step.to, (surplus.get(step.to) ?? 0) - 1);
  }
  // The first step not yet taken leaving a balance (each list is passed over once).
  const seen = new Map<bigint, number>();
  const next = (balance: bigint): Step | undefined => {
    const out = leaving.get(balance) ?? [];
    let at = seen.get(balance) ?? 0;
    while (out[at]?.taken) at += 1;
    seen.set(balance, at);
    return out[at];
  };
  const ordered: T[] = [];
  let first = true;
  for (;;) {
    const left = steps.filter((s) => !s.taken);
    const seed = left.find((s) => (surplus.get(s.from) ?? 0) > 0) ?? left[0];
    if (seed === undefined) break;
    const start = first && prior !== null && next(prior) !== undefined ? prior : seed.from;
    first = false;
    // Hierholzer: walk on while a step leaves the balance; a balance left with none is the trail's
    // end so far, and the loops met on the way are spliced in before it.
    const trail: Step[] = [];
    const stack: { balance: bigint; step: Step | null }[] = [{ balance: start, step: null }];
    for (let top = stack.at(-1); top !== undefined; top = stack.at(-1)) {
      const step = next(top.balance);
      if (step) {
        step.taken = true;
        surplus.set(step.from, (surplus.get(step.from) ?? 0) - 1);
        surplus.set(step.to, (surplus.get(step.to) ?? 0) + 1);
        stack.push({ balance: step.to, step });
      } else {
        stack.pop();
        if (top.step) trail.push(top.step);
      }
    }
    for (const step of trail.reverse()) ordered.push(step.row);
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
