/**
 * The continuity rules, pure (docs/continuity.md): where an account's booked balances and its
 * booked transactions stop adding up, and where a running balance does not follow from the row
 * before. The store's look-ups and the findings' text are in check-accounts.ts.
 */
import type { TransactionId } from '@bankdata/core/schemas';
import type { ContinuityCause } from '../store/sqlite/schema';
import type { Units } from '@bankdata/core/money';
import { chainOrder } from '../store/balance-chain';

export interface Snapshot {
  dateTime: string;
  /** The booked balance, signed. */
  units: Units;
  /** Booked rows between the previous snapshot's instant (excluded) and this one's (included). */
  betweenUnits: Units;
  /** Backdated rows first seen after the next snapshot was read (see readBalanceSnapshots). */
  lateUnits: Units;
}

export interface SnapshotBreak {
  /** Indices of the two snapshots between which the break lies. */
  from: number;
  to: number;
  /** What the balance moved by beyond the stored transactions (a missing credit is positive). */
  units: Units;
}

/**
 * Each snapshot's offset is its balance minus the running sum of the stored booked rows (up to a
 * constant). Where nothing is missing or doubled, every offset is the same. The walk goes from
 * the latest snapshot, the most complete (the rows the bank showed when it was read are stored),
 * back to the oldest: an offset that differs from the level after it is a break, unless leaving
 * out the rows first seen only later (rows the bank posted late, with an earlier booking date)
 * makes it agree. A break changes the level for the older snapshots: to the snapshot's offset
 * without its late rows, as its break's amount is taken (docs/continuity.md "Rows posted late").
 */
export function findSnapshotBreaks(snapshots: readonly Snapshot[]): SnapshotBreak[] {
  if (snapshots.length < 2) return [];
  let offset: Units = 0n;
  let previous: Snapshot | undefined;
  const offsets = snapshots.map((s) => {
    if (previous) offset += s.units - previous.units - s.betweenUnits;
    previous = s;
    return { offset, lateUnits: s.lateUnits };
  });
  const breaks: SnapshotBreak[] = [];
  let level = offset;
  // From the one before the latest back to the oldest.
  for (const [i, at] of [...offsets.entries()].slice(0, -1).reverse()) {
    // The offset without the rows posted after this balance was read (it did not count them).
    const withoutLate = at.offset + at.lateUnits;
    if (at.offset === level || withoutLate === level) continue;
    // A break all the same: measured, and walked on from, without the late rows too. With them, a
    // late row would add its amount to this break and be a break of its own at the older balances.
    breaks.push({ from: i, to: i + 1, units: level - withoutLate });
    level = withoutLate;
  }
  return breaks.reverse();
}

export interface BookedRow {
  transactionId: TransactionId;
  bookingDateTime: string;
  bookingDate: string;
  units: Units;
  /** The row's running balance, signed; null when the bank sent none. */
  balanceAfter: Units | null;
}

/** A row with its running balance. */
export type BalancedRow = BookedRow & { balanceAfter: Units };

const hasBalance = (row: BookedRow | null | undefined): row is BalancedRow => row != null && row.balanceAfter !== null;

/** The row before a break, as a finding names it. */
export type RowBefore = Pick<BalancedRow, 'transactionId' | 'bookingDateTime' | 'balanceAfter'>;

export interface RunningBreak {
  before: RowBefore;
  row: BalancedRow;
  /** The bank's balance after `row` minus (balance after `before` + row's amount). */
  units: Units;
  /** `row` repeats `before`: same instant, amount and running balance. */
  repeats: boolean;
}

/**
 * Walks a running balance row by row in booking order. Rows of one instant are put in the order
 * their balances chain (banks order same-instant rows differently); a row without a balance
 * restarts the walk. Rows booked after `horizon` are not judged: the bank may still post a row
 * with an earlier booking date in front of them.
 */
export class RunningBalanceWalk {
  private previous: BookedRow | null = null;
  private group: BookedRow[] = [];
  readonly breaks: RunningBreak[] = [];

  constructor(private readonly horizon: string | null) {}

  /** Starts the walk after `row` (judged elsewhere): the next row is compared with it. */
  startAfter(row: BookedRow | null): void {
    this.previous = row;
  }

  push(row: BookedRow): void {
    const head = this.group[0];
    if (head && head.bookingDateTime !== row.bookingDateTime) this.flush();
    this.group.push(row);
  }

  finish(): RunningBreak[] {
    this.flush();
    return this.breaks;
  }

  /**
   * The rows of one instant in their balances' chain (src/store/balance-chain.ts `chainOrder`, as
   * the exports write them: from the balance before, loops put in where they close, whatever the
   * ids), each row the bank served twice right after its twin (a break of exactly its amount, a
   * duplicate, and the chain goes on from it), rows without a balance last.
   */
  private flush(): void {
    const group = this.group;
    this.group = [];
    const balanced = group.filter(hasBalance);
    const ordered = chainOrder(
      balanced,
      (r) => ({ amount: r.units, after: r.balanceAfter }),
      this.previous?.balanceAfter ?? null,
    );
    // The chain as walked: each row from the balance so far; the others (a break, a repeat) apart.
    const chain: BalancedRow[] = [];
    const apart: BalancedRow[] = [];
    for (const row of ordered) {
      const last = chain.at(-1);
      if (last === undefined || last.balanceAfter + row.units === row.balanceAfter) chain.push(row);
      else apart.push(row);
    }
    const sameAs = (a: BalancedRow, b: BalancedRow) => a.units === b.units && a.balanceAfter === b.balanceAfter;
    const rest: BalancedRow[] = [];
    for (const row of apart) {
      const twin = chain.findLastIndex((r) => sameAs(r, row));
      if (twin < 0) rest.push(row);
      else chain.splice(twin + 1, 0, row);
    }
    for (const row of [...chain, ...rest, ...group.filter((r) => !hasBalance(r))]) this.step(row);
  }

  private step(row: BookedRow): void {
    const before = this.previous;
    this.previous = row;
    if (!hasBalance(before) || !hasBalance(row)) return;
    if (this.horizon !== null && row.bookingDateTime > this.horizon) return;
    const units = row.balanceAfter - (before.balanceAfter + row.units);
    if (units === 0n) return;
    const repeats =
      row.bookingDateTime === before.bookingDateTime &&
      row.units === before.units &&
      row.balanceAfter === before.balanceAfter;
    this.breaks.push({ before, row, units, repeats });
  }
}

/** Each likely cause of a break in words, as `bankdata check` and the report show it. */
const CAUSE_TEXT: Readonly<Record<ContinuityCause, string>> = {
  missing_transaction: 'a transaction missing',
  duplicate: 'a transaction stored twice',
  pending_row: 'a pending row counted',
  minor_unit: "below the currency's minor unit",
  running_balance_jump: 'the running balance jumps',
};

/** The words for a finding's cause (a cause this version does not know is shown as stored). */
export function causeText(cause: string): string {
  return Object.hasOwn(CAUSE_TEXT, cause) ? CAUSE_TEXT[cause as ContinuityCause] : cause;
}
