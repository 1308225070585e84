/**
 * Duplicates the bank served (docs/continuity.md "Duplicates the bank served"): which row of a
 * `duplicate` break the check marks, with the balance that proves it. A row is marked only when a
 * balance is off by exactly its amount, an otherwise identical row exists, and no booked balance
 * says otherwise; of identical rows the one first seen (then the smaller id) is kept and every
 * other one is marked, each once.
 */
import { nzDateOf } from '@bankdata/core/nz-time';
import { formatUnits, toMinor, type Units } from '@bankdata/core/money';
import type { TransactionId } from '@bankdata/core/schemas';
import type { Store } from '../store';
import type { CheckAccount } from '../store/continuity';
import type { DuplicateSuspicion } from '../store/duplicates';
import type { DuplicateEvidence } from './check-accounts';
import type { RunningBreak, Snapshot, SnapshotBreak } from './continuity';

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
  const proved: RunningBreak[] = [];
  for (const p of pairs) {
    const instant = p.row.bookingDateTime;
    // Two booked balances around the row must show it extra too; with none around it, the running balance is the evidence.
    const spanned = snapshots.some((_, i) => i > 0 && within({ from: i - 1, to: i }, instant));
    if (spanned && !standing.some((b) => b.units === p.units && within(b, instant))) continue;
    byRunning.push({ instant, units: p.units });
    proved.push(p);
  }
  // A row served three times or more repeats in a run of pairs ((p1, p2), (p2, p3)): the run keeps
  // one row, the first seen (then the smaller id), and every other row of it is suspected once.
  for (const run of repeatRuns(proved)) {
    const [p] = run.pairs;
    if (!p) continue;
    const instant = p.row.bookingDateTime;
    const counted = p.before.balanceAfter + p.row.units;
    const twin = firstSeen(seen, run.rows);
    for (const suspected of run.rows) {
      if (suspected === twin) continue;
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

/**
 * The repeat pairs grouped into runs of identical rows: pairs that share a row are one run (a row
 * served three times gives (p1, p2) and (p2, p3)). Runs in the order of their first pair, the rows
 * of each in the order the pairs name them.
 */
function repeatRuns(pairs: readonly RunningBreak[]): { pairs: RunningBreak[]; rows: TransactionId[] }[] {
  const runs: { pairs: RunningBreak[]; rows: TransactionId[] }[] = [];
  const runOf = new Map<TransactionId, { pairs: RunningBreak[]; rows: TransactionId[] }>();
  for (const p of pairs) {
    const ids = [p.before.transactionId, p.row.transactionId];
    const found = [...new Set(ids.map((id) => runOf.get(id)).filter((r) => r !== undefined))];
    const [run = { pairs: [], rows: [] }, ...others] = found;
    if (found.length === 0) runs.push(run);
    // A pair that joins two runs makes them one.
    for (const other of others) {
      run.pairs.push(...other.pairs);
      for (const id of other.rows) if (!run.rows.includes(id)) run.rows.push(id);
      runs.splice(runs.indexOf(other), 1);
    }
    run.pairs.push(p);
    for (const id of ids) if (!run.rows.includes(id)) run.rows.push(id);
    for (const id of run.rows) runOf.set(id, run);
  }
  return runs;
}

/** Of otherwise identical rows, the one kept: the first seen, then the smaller id. */
function firstSeen(seen: ReadonlyMap<TransactionId, string>, ids: readonly TransactionId[]): TransactionId {
  const key = (id: TransactionId) => `${seen.get(id) ?? ''}\u0000${id}`;
  return ids.reduce((kept, id) => (key(id) < key(kept) ? id : kept));
}

function at(snapshots: readonly Snapshot[], index: number): Snapshot {
  const snapshot = snapshots[index];
  if (!snapshot) throw new RangeError(`no balance snapshot ${index} of ${snapshots.length}`);
  return snapshot;
}
