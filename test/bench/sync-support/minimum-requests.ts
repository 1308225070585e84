/**
 * The fewest requests a complete first sync of the registered consents needs, computed from the
 * emulator's ground truth (its world at the data clock and its meta fixtures), not from what the
 * sync did. Used by the sync-backfill bench to judge the sync's request count.
 *
 * Per consent: 1 consent read; when Authorised and the plan allows: account pages; per account
 * balances (1), transaction pages over the cheapest tiling of the range on NZ midnights whose
 * every window the bank accepts (≤ maxResultSize rows, else BDT263), statement pages, one file per
 * statement not fetched yet, account party (1); the customer's party (1). Plus meta and token.
 *
 * `nightlyMinimum`: the fewest requests of a later run, from the same ground truth (below).
 */
import { DateTime } from 'luxon';
import { addNzDays, nzDateOf, nzMidnight } from '@bankdata/core/nz-time';
import { creditDebitFilter } from '@bankdata/core/endpoint-access';
import { SCOPES, type BankMeta, type BankName, type ConsentStatus } from '@bankdata/core/schemas';
import type { StartedEmulator } from '@bankdata/emulator';
import { bankMeta } from '@bankdata/emulator/bank-meta';
import { historyFloorMs } from '@bankdata/emulator/resource-guard';
import { accountKey } from '@bankdata/emulator/world-types';
import { ENDED_STATUSES } from '../../../src/store/consent-state';
import { planConsent } from '../../../src/sync/plan';
import { syncRange } from '../../../src/sync/windows';

export const REQUEST_KINDS = [
  'token',
  'meta',
  'consent',
  'accounts',
  'balances',
  'transactions',
  'statements',
  'statement_file',
  'account_party',
  'party',
] as const;
export type RequestKind = (typeof REQUEST_KINDS)[number];
export type KindCounts = Record<RequestKind, number>;

export interface EmulatorLimits {
  pageSize: number;
  accountsPageSize: number;
  /** Statements per page; null: pageSize. */
  statementsPageSize: number | null;
  maxResultSize: Record<BankName, number>;
}

export interface ConsentMinimum {
  consentId: string;
  bank: BankName | null;
  status: ConsentStatus | null;
  /** Requests this consent needs (one lane walks them one after another; spare lanes share them). */
  requests: number;
  /** Longest chain of requests that depend on each other (consent → accounts → Next pages …). */
  chain: number;
}

export interface MinimumRequests {
  total: number;
  byKind: KindCounts;
  consents: ConsentMinimum[];
  /** Transaction keys `bank|account|id` a complete sync must hold. */
  transactionKeys: Set<string>;
  /** Transaction windows of the cheapest tilings, and NZ days the bank refuses even alone. */
  windows: number;
  refusedDays: number;
  /**
   * Transaction pages if each account were tiled with the one window length that suits it best,
   * chosen knowing its rows and the bank's limit (a window over the limit refused and halved,
   * as the sync does): what a client that knew each account's rate exactly, but not its rows day
   * by day, could hope for at best with windows of one length. Set against `byKind.transactions`.
   */
  fixedWindowPages: number;
}

export function emptyKindCounts(): KindCounts {
  return Object.fromEntries(REQUEST_KINDS.map((k) => [k, 0])) as KindCounts;
}

const pages = (items: number, size: number) => Math.max(1, Math.ceil(items / size));

export function minimumRequests(
  emu: StartedEmulator,
  consentIds: readonly string[],
  limits: EmulatorLimits,
): MinimumRequests {
  const now = emu.now();
  const byKind = emptyKindCounts();
  byKind.token = 1;
  byKind.meta = 1;
  const transactionKeys = new Set<string>();
  const filesSeen = new Set<string>();
  const consents: ConsentMinimum[] = [];
  let windows = 0;
  let refusedDays = 0;
  let fixedWindowPages = 0;

  for (const consentId of consentIds) {
    const record = emu.consent(consentId);
    const own = emptyKindCounts();
    own.consent = 1;
    let chain = 1;
    if (record && record.status === 'Authorised') {
      const meta = bankMeta(record.bank, true);
      const plan = planConsent({ permissions: record.permissions, scopes: SCOPES, bank: meta });
      const r = plan.resources;
      let longestAccountChain = r.party.fetch ? 1 : 0;
      if (r.party.fetch) own.party = 1;
      if (r.accounts.fetch) {
        own.accounts = pages(record.accountKeys.length, limits.accountsPageSize);
        for (const key of record.accountKeys) {
          const accountId = emu.world.accounts.get(key)?.account.AccountId;
          if (accountId === undefined) continue;
          let accountChain = 0;
          if (r.balances.fetch) {
            own.balances += 1;
            accountChain = 1;
          }
          if (r.account_party.fetch) {
            own.account_party += 1;
            accountChain = Math.max(accountChain, 1);
          }
          if (r.transactions.fetch) {
            const tiling = cheapestTiling(emu, record, meta, accountId, now, limits, transactionKeys);
            own.transactions += tiling.pages;
            windows += tiling.windows;
            refusedDays += tiling.refusedDays;
            fixedWindowPages += tiling.fixedWindowPages;
            accountChain = Math.max(accountChain, tiling.longestWindowPages);
          }
          if (r.statements.fetch) {
            const floor = historyFloorMs(meta, now);
            const statements = emu.world
              .statementsAt(record.bank, accountId, now)
              .filter((s) => floor === null || Date.parse(s.EndDateTime) >= floor);
            const statementPage = limits.statementsPageSize ?? limits.pageSize;
            own.statements += pages(statements.length, statementPage);
            let files = 0;
            if (r.statement_file.fetch) {
              for (const s of statements) {
                const fileKey = `${accountKey(record.bank, accountId)}:${s.StatementId}`;
                if (filesSeen.has(fileKey)) continue;
                filesSeen.add(fileKey);
                files += 1;
              }
            }
            own.statement_file += files;
            accountChain = Math.max(accountChain, pages(statements.length, statementPage) + (files > 0 ? 1 : 0));
          }
          longestAccountChain = Math.max(longestAccountChain, accountChain);
        }
        chain += own.accounts;
      }
      chain += longestAccountChain;
    }
    const requests = REQUEST_KINDS.reduce((sum, k) => sum + own[k], 0);
    for (const k of REQUEST_KINDS) byKind[k] += own[k];
    consents.push({ consentId, bank: record?.bank ?? null, status: record?.status ?? null, requests, chain });
  }
  const total = REQUEST_KINDS.reduce((sum, k) => sum + byKind[k], 0);
  return { total, byKind, consents, transactionKeys, windows, refusedDays, fixedWindowPages };
}

interface Tiling {
  pages: number;
  windows: number;
  longestWindowPages: number;
  refusedDays: number;
  /** The cost of the best single window length for this account (MinimumRequests.fixedWindowPages). */
  fixedWindowPages: number;
}

/**
 * The cheapest tiling of the account's first-run range (src/sync/windows syncRange: the floor
 * to the ceiling) into windows on NZ midnights, both ends inclusive as the bank counts them.
 * A window costs max(1, ceil(rows / pageSize)) requests and may hold at most maxResultSize rows
 * (BDT263); exact by dynamic programming over the boundaries. A single NZ day over the limit
 * costs its one refused request (the sync records a failed unit).
 */
function cheapestTiling(
  emu: StartedEmulator,
  record: NonNullable<ReturnType<StartedEmulator['consent']>>,
  meta: BankMeta,
  accountId: string,
  now: DateTime,
  limits: EmulatorLimits,
  keys: Set<string>,
): Tiling {
  const range = syncRange({
    consentStart: record.start_date_time,
    consentEnd: record.end_date_time ?? null,
    maxHistoryDays: meta.features.max_history_days,
    configFloor: null,
    now,
    lookbackDays: 0,
  });
  if (!range) return { pages: 0, windows: 0, longestWindowPages: 0, refusedDays: 0, fixedWindowPages: 0 };
  const floor = historyFloorMs(meta, now) ?? -Infinity;
  const direction = creditDebitFilter(record.permissions);
  const fromMs = range.start.toMillis();
  const toMs = range.ceiling.toMillis();
  const times: number[] = [];
  for (const t of emu.world.transactionsAt(record.bank, accountId, now)) {
    const at = Date.parse(t.BookingDateTime);
    if (at < fromMs || at > toMs || at < floor) continue;
    if (direction !== null && t.CreditDebitIndicator !== direction) continue;
    times.push(at);
    keys.add(`${record.bank}|${accountId}|${t.TransactionId}`);
  }
  times.sort((a, b) => a - b);

  const bounds = windowBounds(range.start, range.ceiling);
  // Rows in [bounds[i], bounds[j]] = atMost[j] − below[i].
  const below = bounds.map((b) => firstIndex(times, (t) => t >= b));
  const atMost = bounds.map((b) => firstIndex(times, (t) => t > b));
  const n = bounds.length - 1;
  const best = new Array<number>(n + 1).fill(Infinity);
  const from = new Array<number>(n + 1).fill(-1);
  best[0] = 0;
  for (let j = 1; j <= n; j++) {
    for (let i = j - 1; i >= 0; i--) {
      const rows = atMost[j]! - below[i]!;
      if (rows > limits.maxResultSize[record.bank] && i < j - 1) break;
      const cost = rows > limits.maxResultSize[record.bank] ? 1 : pages(rows, limits.pageSize);
      if (best[i]! + cost < best[j]!) {
        best[j] = best[i]! + cost;
        from[j] = i;
      }
    }
  }
  let windows = 0;
  let longest = 0;
  let refused = 0;
  for (let j = n; j > 0; j = from[j]!) {
    const i = from[j]!;
    const rows = atMost[j]! - below[i]!;
    windows += 1;
    if (rows > limits.maxResultSize[record.bank]) refused += 1;
    longest = Math.max(longest, pages(rows, limits.pageSize));
  }
  return {
    pages: n > 0 ? best[n]! : 1,
    windows: Math.max(windows, 1),
    longestWindowPages: Math.max(longest, 1),
    refusedDays: refused,
    fixedWindowPages: n > 0 ? bestFixedLength(below, atMost, limits.maxResultSize[record.bank], limits.pageSize) : 1,
  };
}

/**
 * The fewest pages of tiling the range with windows of one length L (NZ days, the last one
 * shorter), over every L: a window over the limit costs its refusal and its halves (split on
 * its middle NZ midnight by count, about where the sync splits), recursively down to one day.
 * `below[i]`/`atMost[j]`: as in cheapestTiling, rows in [bounds[i], bounds[j]].
 */
function bestFixedLength(below: readonly number[], atMost: readonly number[], limit: number, pageSize: number): number {
  const n = below.length - 1;
  const cost = (i: number, j: number): number => {
    const rows = atMost[j]! - below[i]!;
    if (rows <= limit) return pages(rows, pageSize);
    if (j - i <= 1) return 1;
    const middle = (i + j) >> 1;
    return 1 + cost(i, middle) + cost(middle, j);
  };
  let best = Infinity;
  for (let length = 1; length <= n; length++) {
    let total = 0;
    for (let i = 0; i < n && total < best; i += length) total += cost(i, Math.min(n, i + length));
    best = Math.min(best, total);
  }
  return best;
}

const boundsCache = new Map<string, number[]>();

/** The range's ends and every NZ midnight strictly between them (ms), cached per range. */
function windowBounds(start: DateTime, ceiling: DateTime): number[] {
  const cacheKey = `${start.toMillis()}|${ceiling.toMillis()}`;
  const cached = boundsCache.get(cacheKey);
  if (cached) return cached;
  const bounds = [start.toMillis()];
  // Calendar days in the NZ zone: a DST day is 23 or 25 hours, still midnight to midnight.
  for (
    let midnight = nzMidnight(addNzDays(nzDateOf(start), 1));
    midnight < ceiling;
    midnight = midnight.plus({ days: 1 })
  ) {
    bounds.push(midnight.toMillis());
  }
  bounds.push(ceiling.toMillis());
  boundsCache.set(cacheKey, bounds);
  return bounds;
}

/** First index whose value satisfies `test` (monotonic over the sorted array); length if none. */
function firstIndex(sorted: readonly number[], test: (value: number) => boolean): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (test(sorted[mid]!)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

export interface NightlyMinimum {
  total: number;
  byKind: KindCounts;
  /** Accounts of the consents read (an account under two consents counts twice). */
  accounts: number;
}

/**
 * The fewest requests of a later run at the emulator's now, the previous run at `previous`:
 * token and meta; a status read per consent not ended at the previous run (`openAtPrevious`,
 * see `openConsents`); for an Authorised
 * one its account pages, per account its balances (1), the transaction pages of the rows a night
 * must read again (booked since the previous run less `minLookbackDays` NZ days, late rows' margin,
 * and every row from 00:00 NZ of the day of the oldest pending open at the previous run on, as
 * src/sync/windows.ts starts there; at least one request), the
 * statement list only when a statement was created since the previous run (its pages from the
 * newest held one, and its file), and party data when `partyDue` (as the plan allows).
 */
export function nightlyMinimum(
  emu: StartedEmulator,
  consentIds: readonly string[],
  limits: EmulatorLimits,
  previous: DateTime,
  options: {
    partyDue: boolean;
    minLookbackDays: number;
    /** Consents not ended at the previous run (their status then, taken before the clock moved): each is read again. */
    openAtPrevious: ReadonlySet<string>;
  },
): NightlyMinimum {
  const now = emu.now();
  const byKind = emptyKindCounts();
  byKind.token = 1;
  byKind.meta = 1;
  let accounts = 0;
  const statementPage = limits.statementsPageSize ?? limits.pageSize;
  const filesSeen = new Set<string>();
  for (const consentId of consentIds) {
    const record = emu.consent(consentId);
    if (!record || !options.openAtPrevious.has(consentId)) continue;
    byKind.consent += 1;
    if (record.status !== 'Authorised') continue;
    const meta = bankMeta(record.bank, true);
    const r = planConsent({ permissions: record.permissions, scopes: SCOPES, bank: meta }).resources;
    if (r.party.fetch && options.partyDue) byKind.party += 1;
    if (!r.accounts.fetch) continue;
    byKind.accounts += pages(record.accountKeys.length, limits.accountsPageSize);
    const direction = creditDebitFilter(record.permissions);
    const consentStart = Date.parse(record.start_date_time);
    for (const key of record.accountKeys) {
      const accountId = emu.world.accounts.get(key)?.account.AccountId;
      if (accountId === undefined) continue;
      accounts += 1;
      if (r.balances.fetch) byKind.balances += 1;
      if (r.account_party.fetch && options.partyDue) byKind.account_party += 1;
      if (r.transactions.fetch) {
        const mine = (t: { CreditDebitIndicator: string }) =>
          direction === null || t.CreditDebitIndicator === direction;
        let fromMs = previous.setZone('Pacific/Auckland').minus({ days: options.minLookbackDays }).toMillis();
        for (const t of emu.world.transactionsAt(record.bank, accountId, previous))
          if (t.Status === 'Pending' && mine(t))
            fromMs = Math.min(fromMs, nzMidnight(nzDateOf(DateTime.fromISO(t.BookingDateTime))).toMillis());
        fromMs = Math.max(fromMs, consentStart);
        const rows = emu.world
          .transactionsAt(record.bank, accountId, now)
          .filter((t) => mine(t) && Date.parse(t.BookingDateTime) >= fromMs).length;
        byKind.transactions += pages(rows, limits.pageSize);
      }
      if (r.statements.fetch) {
        const all = emu.world.statementsAt(record.bank, accountId, now);
        const held = emu.world.statementsAt(record.bank, accountId, previous).length;
        const fresh = all.length - held;
        if (fresh > 0) {
          byKind.statements += pages(fresh + (held > 0 ? 1 : 0), statementPage);
          // One file per statement, whichever consent of the account reads it first.
          if (r.statement_file.fetch && !filesSeen.has(key)) byKind.statement_file += fresh;
          filesSeen.add(key);
        }
      }
    }
  }
  return { total: REQUEST_KINDS.reduce((sum, k) => sum + byKind[k], 0), byKind, accounts };
}

/** The consents not ended now (the emulator's status): the next run must read each once. */
export function openConsents(emu: StartedEmulator, consentIds: readonly string[]): Set<string> {
  return new Set(
    consentIds.filter((id) => {
      const status = emu.consent(id)?.status;
      return status !== undefined && !(ENDED_STATUSES as readonly string[]).includes(status);
    }),
  );
}
