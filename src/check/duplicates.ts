/**
 * Duplicates the bank served (docs/continuity.md "Duplicates the bank served"): which row of a
 * `duplicate` break the check marks, with the balance that proves it. A row is marked only when a
 * balance is off by exactly its amount, an otherwise identical row exists, and no booked balance
 * says otherwise; of the two identical rows the one seen later (then the greater id) is marked.
 */
import { nzDateOf } from '@bankdata/core/nz-time';
import { formatUnits, toMinor, type Units } from '@bankdata/core/money';
import type { TransactionId } from '@bankdata/core/schemas';
import type { Store } from '../store';
import type { CheckAccount } from '../store/continuity';
import type { DuplicateSuspicion } from '../store/duplicates';
import type { DuplicateEvidence } from './check-accounts';
import type { Snapshot, SnapshotBreak } from './continuity';

/**
 * The balance breaks of cause `duplicate` that still hold: a later break of exactly the opposite
 * amount cancels the latest earlier one it meets (the balance caught up with a row it had not yet
 * counted: both rows were real, or whatever happened, the balances no longer show one row extra).
 */
export function standingDuplicateBreaks(breaks: DuplicateEvidence['snapshotBreaks']): SnapshotBreak[] {
  const standing: SnapshotBreak[] = [];
  for (const { brk, cause } of breaks) {
    const cancelled = standing.findLastIndex((s) => s.units === -brk.units);
    if (cancelled >= 0) {
      standing.splice(cancelled, 1);
      continue;
    }
    if (cause === 'duplicate') standing.push(brk);
  }
  return standing;
}

/** The suspicions of one account, from what its check found (check-accounts.ts). */
export async function duplicateSuspicions(
  store: Store,
  account: CheckAccount,
  evidence: DuplicateEvidence,
): Promise<DuplicateSuspicion[]> {
  const { currency } = account;
  const { snapshots, scale } = evidence;
  const money = (units: Units) => `${formatUnits(units, currency)} ${currency}`;
  const standing = standingDuplicateBreaks(evidence.snapshotBreaks);
  const spanOf = (b: SnapshotBreak) => ({ from: at(snapshots, b.from), to: at(snapshots, b.to) });
  const within = (b: { from: number; to: number }, instant: string) =>
    at(snapshots, b.from).dateTime < instant && instant <= at(snapshots, b.to).dateTime;
  const suspicions: DuplicateSuspicion[] = [];
  const base = (units: Units) => ({
    bank: account.bank,
    accountId: account.accountId,
    amountOff: formatUnits(units, currency),
    amountOffMinor: toMinor(units, currency),
    currency,
  });

  // The bank's running balance repeats: the second row did not move it.
  const pairs = evidence.runningRepeats;
  const seen = await store.duplicates.firstSeen(
    account,
    pairs.flatMap((p) => [p.before.transactionId, p.row.transactionId]),
  );
  const byRunning: { instant: string; units: Units }[] = [];
  for (const p of pairs) {
    const instant = p.row.bookingDateTime;
    // Two booked balances around the row must show it extra too; with none around it, the running balance is the evidence.
    const spanned = snapshots.some((_, i) => i > 0 && within({ from: i - 1, to: i }, instant));
    if (spanned && !standing.some((b) => b.units === p.units && within(b, instant))) continue;
    const [twin, suspected] = laterSeen(seen, p.before.transactionId, p.row.transactionId);
    const counted = p.before.balanceAfter + p.row.units;
    byRunning.push({ instant, units: p.units });
    suspicions.push({
      ...base(p.units),
      transactionId: suspected,
      twinTransactionId: twin,
      evidence: 'running_balance',
      balance: formatUnits(p.row.balanceAfter, currency),
      balanceDateTime: instant,
      balanceDate: nzDateOf(instant),
      countedBalance: formatUnits(counted, currency),
      detail:
        `${suspected} repeats ${twin} (instant, amount, running balance): the bank's running balance after them is ` +
        `${money(p.row.balanceAfter)}, counting both rows makes it ${money(counted)}, off by ${money(p.units)}`,
    });
  }

  // A booked balance off by exactly one row's amount, where exactly one group of look-alike rows has it.
  for (const b of standing) {
    const { from, to } = spanOf(b);
    if (byRunning.some((r) => r.units === b.units && from.dateTime < r.instant && r.instant <= to.dateTime)) continue;
    const rows = await store.duplicates.lookAlikeRows(account, {
      from: from.dateTime,
      to: to.dateTime,
      units: -b.units,
      scale,
    });
    const groups = new Set(rows.map((r) => r.group));
    // Two groups could each hold the extra row: none is chosen (docs/continuity.md).
    if (groups.size !== 1) continue;
    const [first, last] = [rows[0], rows.at(-1)];
    if (!first || !last || first === last) continue;
    const counted = from.units + to.betweenUnits;
    suspicions.push({
      ...base(b.units),
      transactionId: last.transactionId,
      twinTransactionId: first.transactionId,
      evidence: 'balances',
      balance: formatUnits(to.units, currency),
      balanceDateTime: to.dateTime,
      balanceDate: nzDateOf(to.dateTime),
      countedBalance: formatUnits(counted, currency),
      detail:
        `booked balance ${money(to.units)} at ${to.dateTime}: the balance before it (${money(from.units)}) plus every stored ` +
        `row between makes ${money(counted)}, off by ${money(b.units)}; ${last.transactionId} repeats ${first.transactionId} ` +
        `(instant, amount, description, merchant)`,
    });
  }
  return suspicions;
}

/** Of two otherwise identical rows, [the one kept, the one suspected]: the later first seen, then the greater id. */
function laterSeen(
  seen: ReadonlyMap<TransactionId, string>,
  a: TransactionId,
  b: TransactionId,
): [TransactionId, TransactionId] {
  const key = (id: TransactionId) => `${seen.get(id) ?? ''}\u0000${id}`;
  return key(a) <= key(b) ? [a, b] : [b, a];
}

function at(snapshots: readonly Snapshot[], index: number): Snapshot {
  const snapshot = snapshots[index];
  if (!snapshot) throw new RangeError(`no balance snapshot ${index} of ${snapshots.length}`);
  return snapshot;
}
