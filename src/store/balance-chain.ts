/**
 * Rows booked at one instant whose running balances chain: banks order them differently, and an
 * id says nothing of their order. The balance after the instant is that of the last row of the
 * chain. The continuity check walks an instant's rows in this order too (src/check/continuity.ts
 * `RunningBalanceWalk`, a row served twice put right after its twin). The transactions
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
 * less its amount) to its balance. From `prior` (the running balance before the instant) when a
 * row continues from it, else from a balance more rows leave than reach, else the first row's, the
 * walk takes each next step from the balance so far; then every loop of steps that leaves a balance
 * the walk passed and comes back to it (a payment and its reversal) is put in at that point, so
 * that a loop beside another row from the same balance does not end the chain early. A `prior` no
 * row continues is not the instant's start (another chain's end, a gap the check reports): it is
 * passed over. Rows no walk could take (a break, a row served twice) follow, walked the same way.
 * Among equal choices the rows' given order decides, so the order is total.
 */
export function chainOrder<T>(rows: readonly T[], units: (row: T) => ChainUnits, prior: bigint | null = null): T[] {
  const steps = rows.map((row) => {
    const { amount, after } = units(row);
    return { row, from: after - amount, to: after, taken: false };
  });
  type Step = (typeof steps)[number];
  const leaving = new Map<bigint, Step[]>();
  for (const step of steps) {
    const out = leaving.get(step.from);
    if (out) out.push(step);
    else leaving.set(step.from, [step]);
  }
  const next = (balance: bigint): Step | undefined => leaving.get(balance)?.find((s) => !s.taken);
  /** The steps from `balance` on, each the first not taken from the balance so far, taken. */
  const walk = (balance: bigint): Step[] => {
    const taken: Step[] = [];
    for (let step = next(balance); step !== undefined; step = next(step.to)) {
      step.taken = true;
      taken.push(step);
    }
    return taken;
  };
  const ordered: T[] = [];
  let first = true;
  for (;;) {
    const left = steps.filter((s) => !s.taken);
    // How many more of the steps left leave a balance than reach it: a chain starts where one more leaves.
    const surplus = new Map<bigint, number>();
    for (const step of left) {
      surplus.set(step.from, (surplus.get(step.from) ?? 0) + 1);
      surplus.set(step.to, (surplus.get(step.to) ?? 0) - 1);
    }
    const seed = left.find((s) => (surplus.get(s.from) ?? 0) > 0) ?? left[0];
    if (seed === undefined) break;
    const start = first && prior !== null && next(prior) !== undefined ? prior : seed.from;
    first = false;
    const trail = walk(start);
    // The loops: at each balance the trail passes, a walk that comes back to it is put in there
    // (and that balance looked at again); one that does not is given back.
    const open = new Set<bigint>();
    for (let i = 0; i <= trail.length; i++) {
      const at = i === 0 ? start : (trail[i - 1]?.to ?? start);
      if (open.has(at)) continue;
      const loop = walk(at);
      if (loop.length > 0 && loop.at(-1)?.to === at) {
        trail.splice(i, 0, ...loop);
        i -= 1;
        continue;
      }
      for (const step of loop) step.taken = false;
      open.add(at);
    }
    for (const step of trail) ordered.push(step.row);
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
