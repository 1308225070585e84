/**
 * `bankdata check` and the step at the end of every sync: per account, the booked balance
 * snapshots against the booked rows between them, and the running balance row by row
 * (continuity.ts); each break with its dates, amount and likely cause, written to v_continuity.
 * docs/continuity.md says why each rule is as it is.
 */
import { creditDebitFilter } from '@bankdata/core/endpoint-access';
import { nzDateOf } from '@bankdata/core/nz-time';
import { toStoredInstant, type Store } from '../store';
import type {
  AccountKey,
  BookedUnitsRow,
  CheckAccount,
  ContinuityFinding,
  PendingAmount,
  UnitsRange,
} from '../store/continuity';
import { itemAt, partitionPoint } from '@bankdata/core/arrays';
import type { ContinuityCause } from '../store/sqlite/schema';
import {
  findSnapshotBreaks,
  RunningBalanceWalk,
  type BookedRow,
  type RunningBreak,
  type Snapshot,
  type SnapshotBreak,
} from './continuity';
import { formatUnits, toMinor, toUnits, unitsPerMinor, type Units } from '@bankdata/core/money';
import { duplicateSuspicions } from './duplicates';
import type { DuplicateSuspicion, SuspicionCounts } from '../store/duplicates';

/** Rows booked this close to the latest row are not judged by the walk yet (late rows arrive within it). */
export const SETTLE_DAYS = 3;
/** How far back a row may be backdated and still explain a snapshot (the sync's default lookback). */
export const LATE_WINDOW_DAYS = 14;
const DAY_MS = 86_400_000;

export interface CheckOptions {
  /** Only this account (`--account`). */
  accountId?: string;
  /** Only these accounts (the sync's closing check: the accounts it synced); default every account. */
  accounts?: readonly AccountKey[];
  /** The sync run this check closes (v_continuity.run_id). */
  runId?: string | null;
  now?: Date;
  /** Store the findings (v_continuity); false for a database opened read-only. Default true. */
  save?: boolean;
}

export interface CheckResult {
  /** Accounts the check covered: `checked` + `skipped.length`. */
  accounts: number;
  /** Accounts judged (the ones a "no break" speaks for); the rest are `skipped`. */
  checked: number;
  findings: ContinuityFinding[];
  /** Accounts not judged, and why (transactions of one direction only). */
  skipped: { bank: string; accountId: string; reason: string }[];
  checkedAt: string;
  /** The rows this check proves the bank served twice (docs/continuity.md "Duplicates the bank served"). */
  duplicates: DuplicateSuspicion[];
  /** What storing them changed (null when not stored: a read-only database). */
  duplicateCounts: SuspicionCounts | null;
}

export async function checkContinuity(store: Store, options: CheckOptions = {}): Promise<CheckResult> {
  const listed = await store.continuity.listAccounts({ accountId: options.accountId });
  const only = options.accounts && new Set(options.accounts.map((a) => `${a.bank} ${a.accountId}`));
  const accounts = only ? listed.filter((a) => only.has(`${a.bank} ${a.accountId}`)) : listed;
  const findings: ContinuityFinding[] = [];
  const duplicates: DuplicateSuspicion[] = [];
  const skipped: CheckResult['skipped'] = [];
  for (const account of accounts) {
    const from = await completeFrom(store, account);
    if (from === null) {
      skipped.push({
        bank: account.bank,
        accountId: account.accountId,
        reason: 'no consent returns both credits and debits',
      });
    } else {
      // One push per finding: an account may have 100,000s, and a spread passes each as an argument (stack overflow).
      const judged = await checkAccount(store, account, from);
      for (const f of judged.findings) findings.push(f);
      for (const d of await duplicateSuspicions(store, account, judged.evidence)) duplicates.push(d);
    }
  }
  const checkedAt = (options.now ?? store.now()).toISOString();
  let duplicateCounts: SuspicionCounts | null = null;
  if (options.save !== false) {
    const runId = options.runId ?? null;
    await store.continuity.replaceFindings({ accounts, findings, runId, checkedAt });
    // Every account covered, skipped ones too: a suspicion its check can no longer prove is cleared.
    duplicateCounts = await store.duplicates.replaceSuspicions({ accounts, suspicions: duplicates, runId, checkedAt });
  }
  return {
    accounts: accounts.length,
    checked: accounts.length - skipped.length,
    findings,
    skipped,
    checkedAt,
    duplicates,
    duplicateCounts,
  };
}

/**
 * Where the stored rows are complete: from the earliest start of a consent that returns both
 * credits and debits and has synced the account's transactions. Rows a credits-only (or
 * debits-only) consent returned before it are half the account and would break every sum.
 * Null when no such consent has synced the account.
 */
async function completeFrom(store: Store, account: CheckAccount): Promise<string | null> {
  const coverage = await store.continuity.transactionCoverage(account);
  const complete = coverage.filter((c) => creditDebitFilter((c.permissions ?? '').split(' ')) === null);
  if (complete.length === 0) return null;
  const starts = complete.map((c) => (c.startDateTime ? toStoredInstant(c.startDateTime) : ''));
  const [earliest = null] = starts.sort();
  return earliest;
}

/** What a duplicate suspicion is judged from (duplicates.ts): the account's snapshots and breaks. */
export interface DuplicateEvidence {
  scale: bigint;
  snapshots: Snapshot[];
  snapshotBreaks: { brk: SnapshotBreak; cause: ContinuityCause }[];
  runningRepeats: RunningBreak[];
}

async function checkAccount(
  store: Store,
  account: CheckAccount,
  from: string,
): Promise<{ findings: ContinuityFinding[]; evidence: DuplicateEvidence }> {
  const { currency } = account;
  const scale = unitsPerMinor(currency);
  const rows = await store.continuity.balanceSnapshots(account, { scale, lateWindowDays: LATE_WINDOW_DAYS, from });
  const snapshots: Snapshot[] = rows.map((r) => ({
    dateTime: r.dateTime,
    units: toUnits(r.amount),
    betweenUnits: r.betweenUnits,
    lateUnits: r.lateUnits,
  }));
  const money = (units: Units) => `${formatUnits(units, currency)} ${currency}`;
  const findings: ContinuityFinding[] = [];
  const hasPendingOfAmount = pendingLookup(await store.continuity.pendingAmounts(account, scale));
  const snapshotBreaks = findSnapshotBreaks(snapshots);
  const evidence: DuplicateEvidence = { scale, snapshots, snapshotBreaks: [], runningRepeats: [] };
  for (const b of snapshotBreaks) {
    const from = snapshotAt(snapshots, b.from);
    const to = snapshotAt(snapshots, b.to);
    const range = { from: from.dateTime, to: to.dateTime, scale };
    let cause: ContinuityCause = 'missing_transaction';
    if (abs(b.units) < scale) cause = 'minor_unit';
    else if (await store.continuity.hasLookAlikeRows(account, { ...range, units: -b.units })) cause = 'duplicate';
    else if (hasPendingOfAmount({ ...range, units: b.units })) cause = 'pending_row';
    evidence.snapshotBreaks.push({ brk: b, cause });
    findings.push(
      finding(account, b.units, cause, {
        kind: 'balances',
        fromDateTime: from.dateTime,
        toDateTime: to.dateTime,
        transactionId: null,
        detail:
          `booked balance ${money(from.units)} then ${money(to.units)}: moved by ${money(to.units - from.units)}, ` +
          `the stored booked transactions between them sum to ${money(to.betweenUnits)}`,
      }),
    );
  }

  const latest = await store.continuity.latestBookingDateTime(account);
  const horizon = latest === null ? null : new Date(Date.parse(latest) - SETTLE_DAYS * DAY_MS).toISOString();
  const runningBreaks = await findRunningBreaks(store, account, { from, horizon, scale });
  const ownCauses = runningBreaks.map((b): ContinuityCause | null => {
    const range = { from: b.before.bookingDateTime, to: b.row.bookingDateTime, scale };
    if (b.repeats) {
      evidence.runningRepeats.push(b);
      return 'duplicate';
    }
    if (abs(b.units) < scale) return 'minor_unit';
    if (hasPendingOfAmount({ ...range, units: b.units })) return 'pending_row';
    return null;
  });
  const causes = runningCauses(snapshots, evidence.snapshotBreaks, runningBreaks, ownCauses);
  for (const [i, b] of runningBreaks.entries()) {
    const cause = itemAt(causes, i);
    const expected = b.before.balanceAfter + b.row.units;
    findings.push(
      finding(account, b.units, cause, {
        kind: 'running_balance',
        fromDateTime: b.before.bookingDateTime,
        toDateTime: b.row.bookingDateTime,
        transactionId: b.row.transactionId,
        detail:
          `${b.row.transactionId}: balance before ${money(b.before.balanceAfter)} (after ${b.before.transactionId}) ` +
          `+ amount ${money(b.row.units)} = ${money(expected)}, the bank's running balance is ${money(b.row.balanceAfter)}`,
      }),
    );
  }
  return { findings, evidence };
}

/**
 * The running-balance walk's breaks (RunningBalanceWalk's rules), set-based. Where every instant
 * holds one row, the row before each row is the one before it in booking order: the database
 * compares each row with it in one pass and returns the breaks only (runningSteps). Rows that
 * share an instant are put in the order their balances chain, which depends on the rows before:
 * each stretch of such rows, from the row before it to the next row alone at its instant, is
 * read and walked here (bookedRowsAround), and the database's answers for those rows are not used.
 * The breaks come out in the walk's order, as RunningBalanceWalk over every row gives them.
 */
async function findRunningBreaks(
  store: Store,
  account: CheckAccount,
  options: { from: string; horizon: string | null; scale: bigint },
): Promise<RunningBreak[]> {
  const { from, horizon, scale } = options;
  const shared = await store.continuity.sharedInstants(account, from);
  const sharedSet = new Set(shared);
  const breaks: RunningBreak[] = [];
  for (const s of await store.continuity.runningSteps(account, { from, horizon, scale })) {
    // A row whose instant other rows share, or the row after such rows: the walk below judges it.
    if (sharedSet.has(s.bookingDateTime) || sharedSet.has(s.beforeBookingDateTime)) continue;
    breaks.push({
      before: {
        transactionId: s.beforeTransactionId,
        bookingDateTime: s.beforeBookingDateTime,
        balanceAfter: s.beforeBalanceUnits,
      },
      row: {
        transactionId: s.transactionId,
        bookingDateTime: s.bookingDateTime,
        bookingDate: s.bookingDate,
        units: s.units,
        balanceAfter: s.balanceUnits,
      },
      units: s.balanceUnits - (s.beforeBalanceUnits + s.units),
      repeats: false,
    });
  }
  let covered = '';
  for (const first of shared) {
    if (first <= covered) continue;
    const around = await store.continuity.bookedRowsAround(account, { from, first, scale });
    const walk = new RunningBalanceWalk(horizon);
    walk.startAfter(around.before && bookedRow(around.before));
    for (const row of around.rows) walk.push(bookedRow(row));
    for (const b of walk.finish()) breaks.push(b);
    covered = around.rows.at(-1)?.bookingDateTime ?? first;
  }
  // In booking order; a stretch's breaks keep the walk's order (a stable sort, by instant only).
  return breaks.sort((a, b) => compareText(a.row.bookingDateTime, b.row.bookingDateTime));
}

function bookedRow(row: BookedUnitsRow): BookedRow {
  return {
    transactionId: row.transactionId,
    bookingDateTime: row.bookingDateTime,
    bookingDate: row.bookingDate,
    units: row.units,
    balanceAfter: row.balanceUnits,
  };
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Whether a pending row explains a break, answered from the account's pending rows, read once
 * (store.continuity.pendingAmounts): a pending row of exactly `units` booked from three days before
 * `from` to `to`, both included (docs/continuity.md).
 */
export function pendingLookup(pending: readonly PendingAmount[]): (range: UnitsRange) => boolean {
  const byUnits = new Map<bigint, string[]>();
  for (const p of pending) {
    const times = byUnits.get(p.units) ?? [];
    times.push(p.bookingDateTime);
    byUnits.set(p.units, times);
  }
  // Compared as strings here (the stored instants' one form), whatever order the database sorted them in.
  for (const times of byUnits.values()) times.sort();
  return (range) => {
    const times = byUnits.get(range.units);
    if (!times) return false;
    const earliest = new Date(Date.parse(range.from) - 3 * DAY_MS).toISOString();
    const first = partitionPoint(times, (t) => t < earliest);
    return first < times.length && itemAt(times, first) <= range.to;
  };
}

/**
 * The cause of each running-balance break that names none of its own (`own[i]` null: not a repeat,
 * not below the minor unit, no pending row of its amount), from the booked balances around its row:
 * - no two balances around it to say otherwise: a row missing (`missing_transaction`);
 * - two balances around it that add up (no balances break between them): the running balance
 *   itself jumping (`running_balance_jump`);
 * - within a balances break that names a row the stored rows lack (`missing_transaction` or
 *   `pending_row`): a row missing as far as the break accounts for it (`accountedFor`: the one
 *   running break of the span of its amount, else the span's running breaks that add up to it),
 *   every other a jump: a missing credit of 50.00 beside a jump of 100.00 is 50.00 missing, not
 *   150.00, and two credits of 50.00 and 30.00 beside the balances' 80.00 are both missing;
 * - within a balances break that names no row missing (`minor_unit`, `duplicate`): a jump.
 * A running break that names its own cause still counts in the span's sum (a row served twice
 * moves the balances too) and keeps its cause.
 */
function runningCauses(
  snapshots: readonly Snapshot[],
  balanceBreaks: DuplicateEvidence['snapshotBreaks'],
  breaks: readonly RunningBreak[],
  own: readonly (ContinuityCause | null)[],
): ContinuityCause[] {
  const times = snapshots.map((s) => s.dateTime);
  // The snapshot ending the span (times[k - 1] < at <= times[k]) of each running break; null with no two around it.
  const spanEnd = breaks.map((b) => {
    const k = partitionPoint(times, (t) => t < b.row.bookingDateTime);
    return k > 0 && k < times.length ? k : null;
  });
  // Balances breaks lie between consecutive snapshots (findSnapshotBreaks): each is named by its `to`.
  const byEnd = new Map(balanceBreaks.map((b) => [b.brk.to, b]));
  const within = new Map<number, number[]>();
  for (const [i, k] of spanEnd.entries()) {
    if (k === null || !byEnd.has(k)) continue;
    const list = within.get(k) ?? [];
    list.push(i);
    within.set(k, list);
  }
  const missing = new Set<number>();
  for (const [k, indices] of within) {
    const balances = byEnd.get(k);
    if (!balances || (balances.cause !== 'missing_transaction' && balances.cause !== 'pending_row')) continue;
    const amounts = indices.map((i) => itemAt(breaks, i).units);
    for (const j of accountedFor(amounts, balances.brk.units)) missing.add(itemAt(indices, j));
  }
  return breaks.map((_, i) => {
    const cause = own[i] ?? null;
    if (cause !== null) return cause;
    const k = spanEnd[i] ?? null;
    if (k === null) return 'missing_transaction';
    if (!byEnd.has(k)) return 'running_balance_jump';
    return missing.has(i) ? 'missing_transaction' : 'running_balance_jump';
  });
}

/** Past this many running breaks in one balances break's span, no subset of them is searched for. */
const SUBSET_SEARCH_LIMIT = 16;

/**
 * Which of a span's running-break amounts (in booking order) account for its balances break of
 * `target`, by index: the first of exactly its amount; else all of them, when they add up to it;
 * else the fewest that add up to it (the earliest such set), searched among up to
 * SUBSET_SEARCH_LIMIT breaks; else none.
 */
function accountedFor(amounts: readonly Units[], target: Units): number[] {
  const one = amounts.indexOf(target);
  if (one >= 0) return [one];
  const all = amounts.map((_, i) => i);
  if (amounts.reduce((sum, a) => sum + a, 0n) === target) return all;
  if (amounts.length > SUBSET_SEARCH_LIMIT) return [];
  const chosen: number[] = [];
  const search = (from: number, left: number, sum: Units): boolean => {
    if (left === 0) return sum === target;
    for (let i = from; i <= amounts.length - left; i++) {
      chosen.push(i);
      if (search(i + 1, left - 1, sum + itemAt(amounts, i))) return true;
      chosen.pop();
    }
    return false;
  };
  for (let size = 2; size < amounts.length; size++) if (search(0, size, 0n)) return chosen;
  return [];
}

function finding(
  account: CheckAccount,
  units: Units,
  cause: ContinuityCause,
  where: Pick<ContinuityFinding, 'kind' | 'fromDateTime' | 'toDateTime' | 'transactionId' | 'detail'>,
): ContinuityFinding {
  return {
    bank: account.bank,
    accountId: account.accountId,
    ...where,
    fromDate: nzDateOf(where.fromDateTime),
    toDate: nzDateOf(where.toDateTime),
    amount: formatUnits(units, account.currency),
    amountMinor: toMinor(units, account.currency),
    currency: account.currency,
    cause,
  };
}

function abs(units: Units): Units {
  return units < 0n ? -units : units;
}

/** The snapshot a break names by index (findSnapshotBreaks gives indices of its input). */
function snapshotAt(snapshots: readonly Snapshot[], index: number): Snapshot {
  const snapshot = snapshots[index];
  if (!snapshot) throw new RangeError(`no balance snapshot ${index} of ${snapshots.length}`);
  return snapshot;
}
