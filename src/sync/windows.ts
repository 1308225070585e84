/**
 * Pure date-window planning for transactions (docs/configuration.md "Sync rules"; docs/bank-api.md §6.4):
 * the range to fetch, its tiling into windows on Pacific/Auckland midnights, and the split
 * of a window the bank refuses as too large (BDT263). No I/O, no clock: `now` is passed in.
 */
import { DateTime } from 'luxon';
import { partitionPoint } from '@bankdata/core/arrays';
import { NZ, addNzDays, nzDateOf, nzDaysBetween, nzMidnight, toInstant, type Instant } from '@bankdata/core/nz-time';

/** Rows per page of a transactions or statements list (docs/bank-api.md §1.4); config `sync.pageSize`'s default. */
export const BANK_PAGE_SIZE = 50;
/** Config `sync.minLookbackDays`'s default: pending rows settle within 3 NZ days, late rows show within 2. */
export const DEFAULT_MIN_LOOKBACK_DAYS = 3;

/** A transaction query range; both ends inclusive (docs/bank-api.md §6.4), instants in UTC. */
export interface DateWindow {
  readonly from: DateTime;
  readonly to: DateTime;
}

export interface SyncRangeInput {
  /** The consent's `start_date_time`: nothing before it may be asked (BDT236). */
  consentStart: Instant;
  /** The consent's `end_date_time`, when set: nothing after it may be asked (BDT236). */
  consentEnd?: Instant | null | undefined;
  /** Meta `max_history_days`; null when the bank does not say. */
  maxHistoryDays: number | null;
  /** Config `sync.floor`, an NZ date (YYYY-MM-DD). */
  configFloor?: string | null | undefined;
  /** The earlier of the local clock and the server's `Date` (BDT238/BDT239 are judged by the server). */
  now: Instant;
  /** The `to` of the last committed window; absent on the first run. */
  watermark?: Instant | null | undefined;
  /** Config `sync.lookbackDays`: NZ calendar days re-fetched before the watermark. */
  lookbackDays: number;
  /** Booking instant of the oldest pending row still open that the consent can read again (one before the floor is passed over). */
  oldestOpenPending?: Instant | null | undefined;
  /** `--since`: also re-fetch from 00:00 of this NZ date (clamped to the floor). */
  since?: string | null | undefined;
  /** `--full`: re-fetch everything from the floor. */
  full?: boolean | undefined;
  /**
   * The floor this account's reads through this consent reached (sync_state `transactions_floor`);
   * absent or null: none recorded.
   */
  floorReached?: Instant | null | undefined;
}

export interface SyncRange {
  /** The oldest instant the account may be asked for. */
  readonly floor: DateTime;
  /** The newest instant: never after the consent's end nor after `now`. */
  readonly ceiling: DateTime;
  /** Where this run's usual read starts: floor ≤ start ≤ ceiling. */
  readonly start: DateTime;
  /**
   * [floor, the floor reached] (never past the ceiling) when the floor moved earlier than the one
   * reached (the bank's `max_history_days` grew or became null, `sync.floor` was lowered): rows
   * the consent may now read that no read asked for. Read before [start, ceiling] (`readRanges`).
   */
  readonly backfill: DateWindow | null;
}

/**
 * The range this run fetches for one account, or null when there is nothing to fetch
 * (the start lies after the ceiling, e.g. a consent that ended before its history floor).
 *
 * Instants are whole seconds: the floor rounds up and the ceiling rounds down, so neither
 * crosses the bound it comes from and the wire values need no fraction.
 */
export function syncRange(input: SyncRangeInput): SyncRange | null {
  const now = toInstant(input.now);
  const floor = ceilToSecond(latest(floorCandidates(input, now)));
  const ceiling = floorToSecond(input.consentEnd == null ? now : earliest([toInstant(input.consentEnd), now]));
  // ceiling ≤ now, so its NZ date is never after today (BDT238), and every start ≤ ceiling
  // is never in the future (BDT239).
  const start = startOf(input, floor);
  const backfill = backfillOf(input.floorReached, floor, ceiling);
  if (start > ceiling) return backfill === null ? null : { floor, ceiling, start: floor, backfill };
  return { floor, ceiling, start, backfill };
}

/** [floor, reached] within the ceiling when the floor lies before the one reached, else null. */
function backfillOf(floorReached: Instant | null | undefined, floor: DateTime, ceiling: DateTime): DateWindow | null {
  if (floorReached == null) return null;
  const reached = toInstant(floorReached);
  if (floor >= reached || floor > ceiling) return null;
  return { from: floor, to: earliest([floorToSecond(reached), ceiling]) };
}

/** One range a run reads; `usual`: the one that ends at the ceiling and advances the watermark. */
export interface ReadRange extends DateWindow {
  readonly usual: boolean;
}

/**
 * What a run reads of an account's range, in order: the backfill (when the floor moved earlier),
 * then [start, ceiling]; one range [floor, ceiling] when the two meet. `settled` (an ended consent
 * read no more, src/sync/transactions.ts `endedAndSettled`): the backfill only, or nothing.
 */
export function readRanges(range: SyncRange, settled = false): ReadRange[] {
  const { backfill } = range;
  if (settled) return backfill === null ? [] : [{ ...backfill, usual: false }];
  const usual = { from: range.start, to: range.ceiling, usual: true };
  if (backfill === null) return [usual];
  if (range.start <= backfill.to) return [{ ...usual, from: backfill.from }];
  return [{ ...backfill, usual: false }, usual];
}

function floorCandidates(input: SyncRangeInput, now: DateTime): DateTime[] {
  const candidates = [toInstant(input.consentStart)];
  if (input.maxHistoryDays != null) {
    assertWholeDays('maxHistoryDays', input.maxHistoryDays, 1);
    // "now minus max_history_days": read both as NZ calendar days and as 24-hour days and take
    // the later, so a DST change in between never makes us ask for the hour the bank dropped.
    candidates.push(now.setZone(NZ).minus({ days: input.maxHistoryDays }).toUTC());
    candidates.push(now.minus({ hours: 24 * input.maxHistoryDays }));
  }
  if (input.configFloor) candidates.push(nzMidnight(input.configFloor).toUTC());
  return candidates;
}

function startOf(input: SyncRangeInput, floor: DateTime): DateTime {
  if (input.full || input.watermark == null) return floor;
  assertWholeDays('lookbackDays', input.lookbackDays, 0);
  // Late rows and pending that settled: re-read the lookback and everything since the oldest
  // pending still open, so its booking (or its vanishing) is seen.
  const candidates: DateTime[] = [toInstant(input.watermark).setZone(NZ).minus({ days: input.lookbackDays }).toUTC()];
  // Not one before the floor: no fetch reaches it, and it would hold the start at the floor. From
  // 00:00 NZ of its day, not its instant: a pending row's date is the expected one and may change
  // once booked (docs/bank-api.md §6.4), and a bank that dates the booked row by its purchase day
  // would put it before the pending instant, where no later run would read it.
  if (input.oldestOpenPending != null && toInstant(input.oldestOpenPending) >= floor)
    candidates.push(nzMidnight(nzDateOf(toInstant(input.oldestOpenPending))).toUTC());
  // --since only moves the start earlier, never before the floor.
  if (input.since) candidates.push(latest([nzMidnight(input.since).toUTC(), floor]));
  return latest([floorToSecond(earliest(candidates)), floor]);
}

// ---------------------------------------------------------------------------
// The look-back of a later run

export interface LookbackInput {
  /** Config `sync.lookbackDays`: the look-back wherever one page holds the night. */
  lookbackDays: number;
  /** Config `sync.minLookbackDays`: never less (late rows and pending ones settle within it). */
  minLookbackDays: number;
  /** Config `sync.pageSize`: the rows one page of the bank holds (docs/bank-api.md §1.4: 50). */
  pageSize: number;
  /** The account's rows per NZ day (sync_state.rows_per_day), or null: unknown. */
  rowsPerDay: number | null;
  /**
   * Booking instants (ms) of the account's rows held from (watermark − lookbackDays) on, as the
   * store has them: what the look-back would read again.
   */
  heldRows: readonly number[];
  /** The watermark and now: the run reads from (watermark − look-back) to now. */
  watermark: Instant;
  now: Instant;
}

/**
 * NZ days a later run re-reads before the watermark: `lookbackDays`, or, for an account whose
 * night would not fit one page with it, the most days that do: the rows held in the look-back
 * (counted, not estimated) plus the rows expected since the watermark (the account's rows per
 * day, or the look-back's own rate when higher, × the days since) within `TARGET_FILL` of a
 * page. Never below `minLookbackDays`; an account of unknown density keeps `lookbackDays`. The
 * oldest open pending row still moves the start earlier (syncRange).
 */
export function lookbackDaysFor(input: LookbackInput): number {
  const max = input.lookbackDays;
  const min = Math.min(input.minLookbackDays, max);
  if (input.rowsPerDay === null) return max;
  const watermark = toInstant(input.watermark);
  const elapsedDays = Math.max(0, toInstant(input.now).diff(watermark, 'days').days);
  const rate = Math.max(input.rowsPerDay, input.heldRows.length / Math.max(1, max));
  const expectedNew = rate * elapsedDays;
  const budget = input.pageSize * TARGET_FILL;
  for (let days = max; days > min; days--) {
    const from = watermark.setZone(NZ).minus({ days }).toMillis();
    const held = input.heldRows.length - partitionPoint(input.heldRows, (t) => t < from);
    if (held + expectedNew <= budget) return days;
  }
  return min;
}

// ---------------------------------------------------------------------------
// Tiling

export interface PlanWindowsInput {
  start: DateTime;
  ceiling: DateTime;
  /** Whole NZ calendar days per window (config `sync.windowDays`, or the size that worked). */
  windowDays: number;
}

/**
 * Windows tiling [start, ceiling] on NZ midnights: [D 00:00, D+n 00:00], adjacent windows
 * sharing their boundary instant (rows there are de-duplicated by key). The first starts at
 * `start` (may be mid-day), the last ends at `ceiling`. Empty when start is after ceiling.
 */
export function planWindows(input: PlanWindowsInput): DateWindow[] {
  const windows: DateWindow[] = [];
  if (input.start > input.ceiling) return windows;
  let from = input.start;
  for (;;) {
    const window = takeWindow({ from, ceiling: input.ceiling, windowDays: input.windowDays });
    windows.push(window);
    if (isLastWindow(window, input.ceiling)) return windows;
    from = window.to;
  }
}

/**
 * The one window that starts at `from`: up to 00:00 NZ of the date `windowDays` after from's
 * NZ date, or the ceiling when that comes first. For a caller that plans lazily, so a size
 * learned from a BDT263 split applies to the very next window.
 */
export function takeWindow(input: { from: DateTime; ceiling: DateTime; windowDays: number }): DateWindow {
  assertWholeDays('windowDays', input.windowDays, 1);
  if (input.from > input.ceiling) throw new RangeError('window start is after the ceiling');
  const boundary = nzMidnight(addNzDays(nzDateOf(input.from), input.windowDays)).toUTC();
  return { from: input.from.toUTC(), to: earliest([boundary, input.ceiling.toUTC()]) };
}

/** True when the window reaches the ceiling, i.e. no window follows it. */
export function isLastWindow(window: DateWindow, ceiling: DateTime): boolean {
  return window.to >= ceiling;
}

// ---------------------------------------------------------------------------
// Choosing the size (docs/configuration.md "Sync windows": adaptive size)

/** What is known when the next window's size is chosen. */
export interface WindowSizeInput {
  /** Transactions per NZ day expected for the account (its own windows, else a prior); null: unknown. */
  rowsPerDay: number | null;
  /** The most rows one accepted query of the bank returned, or null. */
  maxAcceptedRows: number | null;
  /** The fewest rows known in a query the bank refused (BDT263), or null: its limit lies below. */
  minRefusedRows: number | null;
  /** NZ days the rest of the range touches, the next window's included. */
  remainingDays: number;
  /** Config `sync.minWindowDays` and `sync.windowDays`. */
  minDays: number;
  maxDays: number;
  /** Rows per page of the bank (config `sync.pageSize`; default BANK_PAGE_SIZE). */
  pageSize?: number;
}

/** The share of the bank's known limit a window aims at, at most: rows per day vary from day to day. */
export const TARGET_FILL = 0.85;
/**
 * How far a window's row count is taken to stray from its expectation: a standard deviation of
 * this many times the square root of the rows expected (a Poisson count's, widened: days differ,
 * and the rate is itself an estimate).
 */
export const ROW_SPREAD = 1.5;
/** What a refused window (BDT263) costs besides its pages: the refusal, and the split's extra page. */
const REFUSAL_COST = 2;

/**
 * NZ days for the next window: the rest of the range is cut into the number of windows whose
 * expected requests are fewest, and the next window takes its even share of the days, within
 * [minDays, maxDays]. A window costs the pages its rows fill (the last one partly filled costs a
 * whole request) and, when its rows may pass the bank's limit, a refusal and a split; its rows
 * are a count around the account's rate × its days (`ROW_SPREAD`), so the cheapest windows end
 * a margin under a whole number of pages rather than just past one. No window aims above
 * `TARGET_FILL` of the known limit, except the whole rest in one window when it fits under
 * 95% of the limit itself. With no limit known or no rate known, the largest window: the bank's
 * BDT263 then teaches the limit, and the halves the rate.
 */
export function chooseWindowDays(input: WindowSizeInput): number {
  const max = Math.max(1, input.maxDays);
  const min = Math.max(1, Math.min(input.minDays, max));
  const remaining = Math.max(1, input.remainingDays);
  const limit =
    input.minRefusedRows === null ? null : Math.max(input.minRefusedRows - 1, input.maxAcceptedRows ?? 0, 1);
  const rate = input.rowsPerDay;
  if (limit === null || rate === null) return clamp(max, min, max);
  const page = Math.max(1, input.pageSize ?? BANK_PAGE_SIZE);
  const perWindow = rate > 0 ? Math.max(1, Math.floor((limit * TARGET_FILL) / rate)) : max;
  // The fewest windows: the whole rest in one when it fits under the limit itself, else windows
  // of at most TARGET_FILL of it; the most: windows of minDays.
  const fewest =
    rate * remaining <= limit * 0.95 && remaining <= max ? 1 : Math.ceil(remaining / clamp(perWindow, min, max));
  const most = Math.max(fewest, Math.ceil(remaining / min));
  let best = fewest;
  let bestCost = Infinity;
  // More than twice the fewest windows never pays: each adds at least one page.
  for (let n = fewest; n <= Math.min(most, 2 * fewest + 1); n++) {
    const cost = n * expectedWindowCost((rate * remaining) / n, limit, page);
    if (cost < bestCost - 1e-9) {
      best = n;
      bestCost = cost;
    }
  }
  return clamp(Math.ceil(remaining / best), min, max);
}

/**
 * Expected requests of one window expecting `rows` rows: its pages, E[max(1, ⌈X / page⌉)] with X
 * about normal around `rows` (standard deviation ROW_SPREAD·√rows), plus REFUSAL_COST times the
 * chance that X passes the limit.
 */
export function expectedWindowCost(rows: number, limit: number, page: number): number {
  const sd = Math.max(1, ROW_SPREAD * Math.sqrt(Math.max(0, rows)));
  let pages = 1;
  // Page k + 1 is needed when X > k·page.
  for (let k = 1; k * page < rows + 6 * sd; k++) pages += normalAbove(k * page, rows, sd);
  return pages + REFUSAL_COST * normalAbove(limit, rows, sd);
}

/** P(X > x) for X normal with mean `mean` and standard deviation `sd` (X counts rows: x + ½). */
function normalAbove(x: number, mean: number, sd: number): number {
  return 0.5 * erfc((x + 0.5 - mean) / (sd * Math.SQRT2));
}

/** The complementary error function (Numerical Recipes' erfcc: relative error under 1.2e-7). */
function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t *
                  (0.09678418 +
                    t *
                      (-0.18628806 +
                        t *
                          (0.27886807 + t * (-1.13520398 + t * (1.48851973 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? r : 2 - r;
}

function clamp(value: number, min: number, max: number): number {
  return Math.max(min, Math.min(max, value));
}

// ---------------------------------------------------------------------------
// Splitting on BDT263

/**
 * Halves a window the bank refused (BDT263) on the NZ midnight nearest its middle. Null when no
 * midnight lies strictly inside: the window spans one NZ day or less (a partial day at either
 * end included), and the caller records a failed unit (docs/bank-api.md §6.4).
 */
export function splitWindow(window: DateWindow): [DateWindow, DateWindow] | null {
  const { from, to } = window;
  const middle = DateTime.fromMillis((from.toMillis() + to.toMillis()) / 2, { zone: 'utc' });
  const before = nzMidnight(nzDateOf(middle)).toUTC();
  const after = nzMidnight(addNzDays(nzDateOf(middle), 1)).toUTC();
  const inside = [before, after].filter((m) => m > from && m < to);
  if (inside.length === 0) return null;
  const at = inside.reduce((best, m) => (distance(m, middle) < distance(best, middle) ? m : best));
  return [
    { from: from.toUTC(), to: at },
    { from: at, to: to.toUTC() },
  ];
}

/**
 * How many NZ calendar days a window touches. A `to` exactly at midnight adds no day: that
 * instant is the shared boundary with the next window.
 */
export function windowSpanDays(window: DateWindow): number {
  const days = nzDaysBetween(nzDateOf(window.from), nzDateOf(window.to));
  const endsAtMidnight = window.to.equals(nzMidnight(nzDateOf(window.to)).toUTC());
  return Math.max(1, endsAtMidnight ? days : days + 1);
}

// ---------------------------------------------------------------------------

function latest(values: DateTime[]): DateTime {
  return values.reduce((a, b) => (b > a ? b : a)).toUTC();
}

function earliest(values: DateTime[]): DateTime {
  return values.reduce((a, b) => (b < a ? b : a)).toUTC();
}

function distance(a: DateTime, b: DateTime): number {
  return Math.abs(a.toMillis() - b.toMillis());
}

function ceilToSecond(dt: DateTime): DateTime {
  return dt.millisecond === 0 ? dt : dt.startOf('second').plus({ seconds: 1 });
}

function floorToSecond(dt: DateTime): DateTime {
  return dt.startOf('second');
}

function assertWholeDays(name: string, value: number, min: number): void {
  if (!Number.isInteger(value) || value < min)
    throw new RangeError(`${name} must be a whole number ≥ ${min}: ${value}`);
}
