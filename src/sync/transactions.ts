/**
 * Transactions of one account, window by window (docs/configuration.md "Sync rules"): the range from
 * the floor (first run) or the lookback (later runs) to the ceiling, tiled on NZ midnights;
 * BDT263 halves a window, down to one NZ day; each window commits its rows, its vanished
 * pending rows and the watermark in one SQLite transaction. A read of an ended consent that
 * reached its end with every window committed is recorded (`transactions_read`): it decides when
 * the consent is read no more (`endedAndSettled`). The floor the reads reached is recorded
 * (`transactions_floor`): a floor that moved earlier since is read back to (`SyncRange.backfill`).
 */
import { DateTime } from 'luxon';
import { SplitNeededError } from '../api';
import { NZ } from '@bankdata/core/nz-time';
import type { AccountId, BankMeta, ConsentId, Transaction } from '@bankdata/core/schemas';
import type { ConsentRecord, PendingReach } from '../store';
import { creditDebitFilter } from '@bankdata/core/endpoint-access';
import { bankNow, countWindow, type SyncContext } from './run-context';
import { commitAnswer } from './answer';
import { toTransactionRow } from './transform';
import { recordFailure, runUnit } from './unit-outcome';
import { windowLearning, type AccountLike } from './window-learning';
import {
  BANK_PAGE_SIZE,
  DEFAULT_MIN_LOOKBACK_DAYS,
  chooseWindowDays,
  lookbackDaysFor,
  isLastWindow,
  readRanges,
  splitWindow,
  syncRange,
  takeWindow,
  windowSpanDays,
  type DateWindow,
  type SyncRange,
} from './windows';

export interface AccountRef {
  consentId: ConsentId;
  accountId: AccountId;
  bank: BankMeta['name'];
}

export type RangeContext = Pick<SyncContext, 'store' | 'client' | 'settings' | 'now' | 'since' | 'full'>;

/** An account's range for this run, with what transactionRange read to make it. */
export interface AccountRange extends SyncRange {
  /** The floor recorded as reached (sync_state `transactions_floor`), or null. */
  readonly floorReached: DateTime | null;
  /** True when the account was read through this consent before (a watermark is stored). */
  readonly readBefore: boolean;
}

/** The range this run would fetch for an account, or null (nothing to fetch). */
export async function transactionRange(
  ctx: RangeContext,
  consent: ConsentRecord,
  bank: BankMeta,
  accountId: AccountId,
): Promise<AccountRange | null> {
  const key = { bank: bank.name, accountId };
  if (!consent.startDateTime) return null;
  const now = bankNow(ctx);
  const watermark = await ctx.store.syncState.getWatermark({ ...key, consentId: consent.consentId });
  const reached = await ctx.store.syncState.getWatermark({
    ...key,
    consentId: consent.consentId,
    resource: 'transactions_floor',
  });
  const floorReached = reached === null ? null : DateTime.fromISO(reached, { zone: 'utc' });
  // A later run's look-back, sized so that one page holds the account's night where one page can.
  let lookbackDays = ctx.settings.lookbackDays;
  if (watermark !== null && !ctx.full) {
    const pageSize = ctx.settings.pageSize ?? BANK_PAGE_SIZE;
    const since = DateTime.fromISO(watermark, { zone: 'utc' }).setZone(NZ).minus({ days: lookbackDays });
    lookbackDays = lookbackDaysFor({
      lookbackDays,
      minLookbackDays: ctx.settings.minLookbackDays ?? DEFAULT_MIN_LOOKBACK_DAYS,
      pageSize,
      rowsPerDay: await ctx.store.syncState.getRowsPerDay({ ...key, consentId: consent.consentId }),
      // One more than a page: enough to tell that the full look-back does not fit. Only the rows
      // this consent reads: a Credits-only consent's night holds no debits.
      heldRows: await ctx.store.rowTimesSince({
        ...key,
        since: since.toJSDate(),
        limit: pageSize + 1,
        indicator: creditDebitFilter(consent.permissions),
      }),
      watermark,
      now,
    });
  }
  const input = {
    consentStart: consent.startDateTime,
    consentEnd: consent.endDateTime,
    maxHistoryDays: bank.features.max_history_days,
    configFloor: ctx.settings.floor,
    now,
    watermark,
    lookbackDays,
    since: ctx.since,
    full: ctx.full,
    floorReached,
  };
  // The open pending rows this consent can read again: within its range, of its filter.
  const bounds = syncRange(input);
  if (bounds === null) return null;
  const oldestOpenPending = await ctx.store.syncState.oldestOpenPending(key, pendingReach(consent, bounds));
  const range = syncRange({ ...input, oldestOpenPending });
  return range === null ? null : { ...range, floorReached, readBefore: watermark !== null };
}

/** The pending rows a consent's fetches can return again: between its range's floor and ceiling, of its filter. */
function pendingReach(consent: ConsentRecord, range: { floor: DateTime; ceiling: DateTime }): PendingReach {
  return {
    from: range.floor.toJSDate(),
    to: range.ceiling.toJSDate(),
    indicator: creditDebitFilter(consent.permissions),
  };
}

export async function syncTransactions(
  ctx: SyncContext,
  ref: AccountRef,
  consent: ConsentRecord,
  bank: BankMeta,
  creditDebitFilter: 'Credit' | 'Debit' | null,
  kind: string | null,
): Promise<void> {
  // Every window of this read is fetched at or after this instant, by the bank's clock.
  const readFrom = bankNow(ctx);
  const range = await transactionRange(ctx, consent, bank, ref.accountId);
  if (!range) return;
  const key = { bank: ref.bank, accountId: ref.accountId, consentId: ref.consentId };
  // A database from before `transactions_floor`: the floor its first read reached is not known;
  // this run's is taken (reads since covered it), so a floor that moves earlier from now on is read.
  if (range.floorReached === null && range.readBefore) await recordFloorReached(ctx, key, range.floor);
  const settled = await endedAndSettled(ctx, ref, consent, range);
  const reads = readRanges(range, settled);
  if (reads.length === 0) {
    ctx.logger.debug('transactions not read: the consent window ended and its rows had time to settle', {
      account_id: ref.accountId,
    });
    return;
  }
  const learning = await windowLearning(ctx, ref.bank);
  const me = `${ref.consentId}|${ref.accountId}`;
  // refusedPerDay: 1 / the fewest NZ days of a window the bank refused for this account; that
  // window held more rows than the bank's limit, so the account is at least that dense.
  const account = { rows: 0, days: 0, stored: await ctx.store.syncState.getRowsPerDay(key), refusedPerDay: 0 };
  // Never read through this consent: the same account read through another, or its kind's.
  const like: AccountLike = { accountId: ref.accountId, kind, filter: creditDebitFilter };
  const rowsPerDay = (): number | null => {
    const seen = account.days > 0 ? account.rows / account.days : (account.stored ?? learning.prior(like));
    const limit = learning.limit();
    const floor = limit === null ? 0 : (limit + 1) * account.refusedPerDay;
    return seen === null ? (floor > 0 ? floor : null) : Math.max(seen, floor);
  };
  const windowDaysFor = (remainingDays: number) =>
    chooseWindowDays({
      rowsPerDay: rowsPerDay(),
      maxAcceptedRows: learning.maxAcceptedRows,
      minRefusedRows: learning.minRefusedRows,
      remainingDays,
      minDays: ctx.settings.minWindowDays ?? 1,
      maxDays: ctx.settings.windowDays,
      pageSize: ctx.settings.pageSize ?? BANK_PAGE_SIZE,
    });
  const refused: { window: DateWindow; rows: number; covered: number; counted: boolean }[] = [];
  // The usual read (up to the ceiling) took and committed every window.
  let complete = false;
  // The end of the unbroken run of windows committed from the floor: the floor is reached once it
  // passes the floor reached before (or on a first read, once any window from the floor committed).
  let floorReadTo: DateTime | null = null;

  try {
    for (const read of reads) {
      const queue: DateWindow[] = [];
      let cursor = read.from;
      let planned = false; // true once the last window up to the read's end has been taken
      // The watermark advances only over an unbroken run of committed windows of the usual read:
      // after a failed window the rest still lands, but the next run starts again before the gap.
      // A backfill's windows leave the watermark as it is (they lie before it).
      let contiguous = true;
      const fromFloor = read.from.toMillis() === range.floor.toMillis();
      while (queue.length > 0 || !planned) {
        if (ctx.stopping()) break;
        let window: DateWindow;
        const queued = queue.shift();
        if (queued !== undefined) {
          // A half of a refused window is sized again with what is known now (the bank's limit may
          // have been learned since the split): a half still too large is cut before it is asked.
          window = takeWindow({
            from: queued.from,
            ceiling: queued.to,
            windowDays: windowDaysFor(windowSpanDays(queued)),
          });
          if (!isLastWindow(window, queued.to)) queue.unshift({ from: window.to, to: queued.to });
        } else {
          const remainingDays = windowSpanDays({ from: cursor, to: read.to });
          let windowDays = windowDaysFor(remainingDays);
          // While the bank's limit is unknown, one account at a time asks a window that may be over
          // it; the others wait for what its refusal teaches instead of each being refused. The
          // window is judged by the days it will span (a nightly's few, not `windowDays`' 3,650).
          while (learning.mayExceed(rowsPerDay(), Math.min(windowDays, remainingDays)) && !(await learning.turn(me)))
            windowDays = windowDaysFor(remainingDays);
          window = takeWindow({ from: cursor, ceiling: read.to, windowDays });
          cursor = window.to;
          planned = isLastWindow(window, read.to);
        }
        const unit = `transactions ${ref.accountId} ${iso(window.from)}..${iso(window.to)}`;
        const outcome = await runUnit(ctx, ref.consentId, unit, 'transactions', async () => {
          try {
            return await fetchAndCommit(ctx, ref, window, creditDebitFilter, read.usual && contiguous);
          } catch (error) {
            if (error instanceof SplitNeededError) return { split: true as const, error };
            throw error;
          }
        });
        if (!outcome.ok) {
          contiguous = false;
          continue;
        }
        if ('split' in outcome.value) {
          // BDT263: halve on an NZ midnight; a single NZ day still refused is a failed unit.
          const halves = splitWindow(window);
          if (!halves) {
            recordFailure(ctx, ref.consentId, unit, outcome.value.error);
            contiguous = false;
            continue;
          }
          ctx.counters.splits += 1;
          if (learning.minRefusedRows === null) learning.claim(me);
          refused.push({ window, rows: 0, covered: 0, counted: false });
          account.refusedPerDay = Math.max(account.refusedPerDay, 1 / windowSpanDays(window));
          queue.unshift(...halves);
          continue;
        }
        const { rows } = outcome.value;
        if (fromFloor && contiguous) floorReadTo = window.to;
        learning.accepted(rows);
        if (window.to > window.from) {
          account.rows += rows;
          account.days += (window.to.toMillis() - window.from.toMillis()) / 86_400_000;
          learning.density(me, account.rows / account.days, like);
        }
        // A refused window's count is the sum of the windows that cover it, once all have landed.
        for (const r of refused) {
          if (window.from >= r.window.from && window.to <= r.window.to) {
            r.rows += rows;
            r.covered += window.to.toMillis() - window.from.toMillis();
            if (!r.counted && r.covered >= r.window.to.toMillis() - r.window.from.toMillis()) {
              r.counted = true;
              learning.refused(r.rows);
            }
          }
        }
        // The turn is given up once its lesson is learned: an accepted window, or the limit counted.
        if (learning.minRefusedRows !== null || refused.every((r) => r.counted)) learning.release(me);
      }
      if (read.usual) complete = contiguous && planned && queue.length === 0;
    }
  } finally {
    learning.release(me);
  }
  if (account.days > 0) await ctx.store.syncState.setRowsPerDay({ ...key, rowsPerDay: account.rows / account.days });
  await learning.save();
  // The floor is reached once the windows from it committed without a gap up to the floor reached
  // before (or the ceiling): a backfill that failed or stopped leaves the old floor, so the next
  // run reads it again.
  const reached = range.floorReached;
  if (
    floorReadTo !== null &&
    (reached === null || (range.floor < reached && floorReadTo >= DateTime.min(reached, range.ceiling)))
  )
    await recordFloorReached(ctx, key, range.floor);
  // A complete read of an ended consent up to its end: every window of the range taken and
  // committed (none failed, none left to a stop). One that failed or stopped is not recorded, so
  // the consent is read again until a complete read comes late enough (`endedAndSettled`).
  const end = consentEnd(consent);
  if (complete && end !== null && range.ceiling >= end)
    await ctx.store.syncState.setWatermark({
      ...key,
      resource: 'transactions_read',
      watermark: readFrom.toJSDate(),
      now: ctx.now(),
    });
}

/** Records `floor` as the floor the account's reads through the consent reached. */
async function recordFloorReached(
  ctx: SyncContext,
  key: { bank: BankMeta['name']; accountId: AccountId; consentId: ConsentId },
  floor: DateTime,
): Promise<void> {
  await ctx.store.syncState.setWatermark({
    ...key,
    resource: 'transactions_floor',
    watermark: floor.toJSDate(),
    now: ctx.now(),
  });
}

/** The consent's `end_date_time` to the second, or null (open-ended). */
function consentEnd(consent: ConsentRecord): DateTime | null {
  if (!consent.endDateTime) return null;
  const end = DateTime.fromISO(String(consent.endDateTime), { zone: 'utc' });
  return end.isValid ? end.startOf('second') : null;
}

/**
 * A consent whose window ended (`end_date_time` passed) is read no more once its rows were
 * read to the end, a complete read of the account through it (every window committed) was
 * fetched at or after the end + the look-back (late rows and pending ones had time to settle, and
 * that read saw them) and no pending row of the account is still open. The bank's clock passing
 * that instant is not enough: a window that failed in the last read before it, the watermark
 * already at the end, would never be read again. `--full` and `--since` read it anyway.
 */
export async function endedAndSettled(
  ctx: RangeContext,
  ref: AccountRef,
  consent: ConsentRecord,
  range: { floor: DateTime; ceiling: DateTime },
): Promise<boolean> {
  const { ceiling } = range;
  const end = consentEnd(consent);
  if (end === null || ctx.full || ctx.since || ceiling < end) return false;
  const key = { bank: ref.bank, accountId: ref.accountId, consentId: ref.consentId };
  const watermark = await ctx.store.syncState.getWatermark(key);
  if (watermark === null || DateTime.fromISO(watermark, { zone: 'utc' }) < ceiling) return false;
  const settledAt = end.setZone(NZ).plus({ days: ctx.settings.lookbackDays });
  const readAt = await ctx.store.syncState.getWatermark({ ...key, resource: 'transactions_read' });
  if (readAt === null || DateTime.fromISO(readAt, { zone: 'utc' }) < settledAt) return false;
  // Only the pending rows it can read again: another consent's, later or of the other
  // indicator, are settled by that consent's reads, never by this one's.
  const reach = pendingReach(consent, range);
  return (await ctx.store.syncState.oldestOpenPending({ bank: ref.bank, accountId: ref.accountId }, reach)) === null;
}

async function fetchAndCommit(
  ctx: SyncContext,
  ref: AccountRef,
  window: DateWindow,
  creditDebitFilter: 'Credit' | 'Debit' | null,
  advanceWatermark: boolean,
): Promise<{ committed: true; rows: number }> {
  const result = await ctx.client.listTransactions(ref.consentId, ref.accountId, { from: window.from, to: window.to });
  const fetchedAt = ctx.now();
  const tctx = { bank: ref.bank, consentId: ref.consentId, fetchedAt };
  const sorting = {
    resource: 'transaction',
    accountId: ref.accountId,
    toRow: (r: Transaction) => toTransactionRow(r, tctx),
    ownerOf: (r: Transaction) => r.AccountId,
  };
  await commitAnswer(ctx, ref, result, sorting, ({ rows, rejects }) =>
    ctx.store.commitTransactionWindow({
      bank: ref.bank,
      accountId: ref.accountId,
      consentId: ref.consentId,
      range: { from: window.from.toJSDate(), to: window.to.toJSDate() },
      creditDebitFilter,
      rows,
      rejects,
      checkpoint: advanceWatermark ? { watermark: window.to.toJSDate() } : null,
      runId: ctx.runId,
      now: fetchedAt,
      ...(ctx.runStartedAt ? { runStartedAt: ctx.runStartedAt } : {}),
    }),
  );
  countWindow(ctx);
  ctx.onProgress();
  return { committed: true, rows: result.records.length + result.rejects.length };
}

function iso(value: DateTime): string {
  return value.toUTC().toISO({ suppressMilliseconds: true }) ?? '';
}
