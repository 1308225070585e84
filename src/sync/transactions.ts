/**
 * Transactions of one account, window by window (ARCHITECTURE "Sync rules"): the range from
 * the floor (first run) or the lookback (later runs) to the ceiling, tiled on NZ midnights;
 * BDT263 halves a window, down to one NZ day; each window commits its rows, its vanished
 * pending rows and the watermark in one SQLite transaction.
 */
import { DateTime } from 'luxon';
import { SplitNeededError } from '../api';
import type { AccountId, BankMeta, ConsentId } from '../api/schemas';
import type { ConsentRecord } from '../store';
import { addRows, bankNow, type SyncContext } from './context';
import { splitByAccount, toRejectInput, toTransactionRow } from './transform';
import { recordFailure, runUnit } from './units';
import { isLastWindow, nextWindowDays, splitWindow, syncRange, takeWindow, type DateWindow } from './windows';

export interface AccountRef {
  consentId: ConsentId;
  accountId: AccountId;
  bank: BankMeta['name'];
}

/** The range this run would fetch for an account, or null (nothing to fetch). */
export type RangeContext = Pick<SyncContext, 'store' | 'client' | 'settings' | 'now' | 'since' | 'full'>;

export function transactionRange(ctx: RangeContext, consent: ConsentRecord, bank: BankMeta, accountId: AccountId) {
  const key = { bank: bank.name, accountId };
  if (!consent.startDateTime) return null;
  return syncRange({
    consentStart: consent.startDateTime,
    consentEnd: consent.endDateTime,
    maxHistoryDays: bank.features.max_history_days,
    configFloor: ctx.settings.floor,
    now: bankNow(ctx),
    watermark: ctx.store.syncState.getWatermark({ ...key, consentId: consent.consentId as ConsentId }),
    lookbackDays: ctx.settings.lookbackDays,
    oldestOpenPending: ctx.store.syncState.oldestOpenPending(key),
    since: ctx.since,
    full: ctx.full,
  });
}

export async function syncTransactions(
  ctx: SyncContext,
  ref: AccountRef,
  consent: ConsentRecord,
  bank: BankMeta,
  creditDebitFilter: 'Credit' | 'Debit' | null,
): Promise<void> {
  const range = transactionRange(ctx, consent, bank, ref.accountId);
  if (!range) return;
  let windowDays = ctx.store.syncState.getWindowDays(ref.bank) ?? ctx.settings.windowDays;
  const queue: DateWindow[] = [];
  let cursor = range.start;
  let planned = false; // true once the last window up to the ceiling has been taken
  // The watermark advances only over an unbroken run of committed windows: after a failed
  // window the rest still lands, but the next run starts again before the gap.
  let contiguous = true;
  let splitSeen = false;

  while (queue.length > 0 || !planned) {
    if (ctx.stopping()) return;
    let window: DateWindow;
    if (queue.length > 0) {
      window = queue.shift()!;
    } else {
      window = takeWindow({ from: cursor, ceiling: range.ceiling, windowDays });
      cursor = window.to;
      planned = isLastWindow(window, range.ceiling);
    }
    const unit = `transactions ${ref.accountId} ${iso(window.from)}..${iso(window.to)}`;
    const outcome = await runUnit(ctx, ref.consentId, unit, 'transactions', async () => {
      try {
        return await fetchAndCommit(ctx, ref, window, creditDebitFilter, contiguous);
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
      splitSeen = true;
      windowDays = nextWindowDays(windowDays, halves);
      queue.unshift(...halves);
      continue;
    }
    if (splitSeen) {
      // The size that worked is remembered per bank, so the next windows start there.
      ctx.store.syncState.setWindowDays(ref.bank, windowDays);
      splitSeen = false;
    }
  }
}

async function fetchAndCommit(
  ctx: SyncContext,
  ref: AccountRef,
  window: DateWindow,
  creditDebitFilter: 'Credit' | 'Debit' | null,
  advanceWatermark: boolean,
): Promise<{ committed: true }> {
  const result = await ctx.client.listTransactions(ref.consentId, ref.accountId, { from: window.from, to: window.to });
  const fetchedAt = ctx.now();
  const tctx = { bank: ref.bank, consentId: ref.consentId, fetchedAt: fetchedAt.toJSDate() };
  // A record of another account in this account's answer is kept aside, never stored under it.
  const { rows, strays } = splitByAccount('transaction', tctx, ref.accountId, result.records, (r) => toTransactionRow(r, tctx));
  const rejects = [...result.rejects.map((r) => toRejectInput('transaction', tctx, ref.accountId, r.raw, r.reason)), ...strays];
  const counts = ctx.store.commitTransactionWindow({
    bank: ref.bank,
    accountId: ref.accountId,
    consentId: ref.consentId,
    range: { from: window.from.toJSDate(), to: window.to.toJSDate() },
    creditDebitFilter,
    rows,
    rejects,
    checkpoint: advanceWatermark ? { watermark: window.to.toJSDate() } : null,
    runId: ctx.runId,
    now: fetchedAt.toJSDate(),
  });
  addRows(ctx.counters, counts);
  ctx.counters.rejects += rejects.length;
  ctx.counters.windows += 1;
  ctx.onProgress();
  return { committed: true };
}

function iso(value: DateTime): string {
  return value.toUTC().toISO({ suppressMilliseconds: true }) ?? '';
}
