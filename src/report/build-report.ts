/**
 * `bankdata report`: gathers the report's figures from SQL aggregates (src/store/report-queries.ts;
 * memory follows the number of days and months, never the number of rows) and renders one
 * self-contained HTML file (html.ts) with the charts drawn at build time (charts.ts).
 */
import { DateTime } from 'luxon';
import { creditDebitFilter } from '@bankdata/core/endpoint-access';
import { NZ, nzDateOf } from '@bankdata/core/nz-time';
import { reconciliationSummary } from '../payments';
import { consentEnded } from '../store/consent-state';
import type { ContinuityViewRow } from '../store/continuity';
import type { LatestRun, Store } from '../store';
import type { ReportAccount, ReportConsent } from '../store/report-queries';
import { unitsPerMinor, type Units } from '@bankdata/core/money';
import type { BalancePoint, FlowPoint } from './charts';
import { renderReport } from './html';

export interface ReportOptions {
  /** NZ dates (YYYY-MM-DD), both optional and inclusive. */
  from?: string | null;
  to?: string | null;
  accountId?: string;
  now?: Date;
  /** How many runs to list (default 10). */
  runs?: number;
}

export interface AccountSection {
  account: ReportAccount;
  /** End-of-day balances within the period; `anchored` false when no balance is known (movement from zero). */
  balances: BalancePoint[];
  anchored: boolean;
  flows: FlowPoint[];
  /** Money in and out of the period, own-account transfers left out (docs/transfers.md). */
  totals: { inUnits: Units; outUnits: Units };
  /** The own-account transfers of the period left out of `flows` and `totals` (in: credits, out: debits). */
  transfers: { inUnits: Units; outUnits: Units };
  /**
   * The rows of the period the check suspects the bank served twice (an open suspicion,
   * docs/continuity.md "Duplicates the bank served"), left out of `flows`, `totals` and
   * `categories`; the balance line keeps them, as the bank's balances are judged by the check.
   */
  duplicates: { rows: number; inUnits: Units; outUnits: Units };
  /** What the stored rows cannot show (accountLimits); html.ts draws no balance line there. */
  limits: AccountLimits;
  /** Spend by category per NZ month (categorySpendOf). */
  categories: CategorySpend;
}

/**
 * Spend by category per NZ month (docs/categories.md "The report"): the booked debits of the last
 * 12 NZ months (those ending with the month of --to, else of the report's instant; from the month
 * of --from when later), own-account transfers and suspected duplicates left out. `cells[i]` is the category's sum in
 * `months[i]` (units, negative as money out is; 0n: none); categories in name order.
 */
export interface CategorySpend {
  months: string[];
  rows: { category: string; cells: Units[]; totalUnits: Units }[];
}

/**
 * Where an account's stored rows are not the whole account (docs/continuity.md): its consents'
 * permissions and window. A balance worked back through half the transactions is false.
 */
export interface AccountLimits {
  /**
   * Null when a consent that read the account's transactions returns both credits and debits;
   * else what the consents that read them return ('Credit' or 'Debit' only), with their ids.
   * No consent has read its transactions: null with `read` false.
   */
  only: { kept: 'Credit' | 'Debit' | 'Credit and Debit apart'; consents: string[] } | null;
  read: boolean;
  /** NZ date of the first day the account's consents cover (null: not known). */
  windowStart: string | null;
  /** NZ date on which the account's consent window ended (status no longer Authorised, the consent ended, or synced past its end); null while open. */
  windowEnded: string | null;
}

/** A run as the report shows it (store.reports.latestRuns), its job null for a sync from the command line. */
export type ReportRun = Omit<LatestRun, 'workers'>;

export interface ReportData {
  generatedAt: string;
  database: string;
  from: string | null;
  to: string | null;
  accounts: AccountSection[];
  consents: ReportConsent[];
  /** The latest runs, newest first, of every job (running, or interrupted once their holder is gone). */
  runs: ReportRun[];
  /** The latest sync run (from the command line or the nightly sync), whatever ran after it: the Summary's "Last run". */
  lastSync: ReportRun | null;
  continuity: ContinuityViewRow[];
  payments: { count: number; settled: number; matched: number; unmatched: number; ambiguous: number } | null;
}

export async function gatherReport(store: Store, options: ReportOptions = {}): Promise<ReportData> {
  const from = options.from ?? null;
  const to = options.to ?? null;
  const accounts: AccountSection[] = [];
  const consents = await store.reportData.consents();
  for (const account of await store.reportData.accounts({ accountId: options.accountId })) {
    const section = await accountSection(store, account, from, to);
    const categories = await categorySpendOf(store, account, { from, to, now: options.now ?? store.now() });
    accounts.push({ ...section, limits: await accountLimits(store, account, consents), categories });
  }
  const paymentCount = await store.reportData.countPayments();
  let payments: ReportData['payments'] = null;
  if (paymentCount > 0) {
    const issues = await reconciliationSummary(store);
    payments = {
      count: paymentCount,
      settled: issues.settled,
      matched: issues.matched,
      unmatched: issues.unmatched.length,
      ambiguous: issues.ambiguous.length,
    };
  }
  return {
    generatedAt: (options.now ?? store.now()).toISOString(),
    database: store.path,
    from,
    to,
    accounts,
    consents,
    runs: (await store.reports.latestRuns(options.runs ?? 10)).map(reportRun),
    lastSync: (await store.reports.latestRuns(1, { syncOnly: true })).map(reportRun)[0] ?? null,
    continuity: await store.continuity.listFindings({ accountId: options.accountId }),
    payments,
  };
}

const reportRun = ({ workers: _workers, ...run }: LatestRun): ReportRun => run;

async function accountSection(
  store: Store,
  account: ReportAccount,
  from: string | null,
  to: string | null,
): Promise<Omit<AccountSection, 'limits' | 'categories'>> {
  const scale = unitsPerMinor(account.currency);
  const days = await store.reportData.dailyFlows(account, scale);
  // Own-account transfers move money between the owner's accounts: the balance line keeps them,
  // money in and out leaves them out (docs/transfers.md "Consumers").
  const transferDays = new Map((await store.reportData.transferFlows(account, scale)).map((t) => [t.date, t]));
  const transfers = { inUnits: 0n, outUnits: 0n };
  // Rows the check suspects the bank served twice: money in and out leaves them out too.
  const duplicateDays = new Map((await store.reportData.duplicateFlows(account, scale)).map((t) => [t.date, t]));
  const duplicates = { rows: 0, inUnits: 0n, outUnits: 0n };
  const anchor = await store.reportData.balanceAnchor(account, { scale, nzDateOf });
  // balance(end of D) = stated balance − rows up to when it was stated + rows up to the end of D.
  let base = 0n;
  if (anchor) {
    const anchorDate = nzDateOf(anchor.dateTime);
    let upTo = -anchor.laterSameDayUnits;
    for (const day of days) if (day.date <= anchorDate) upTo += day.inUnits + day.outUnits;
    base = anchor.units - upTo;
  }
  const balances: BalancePoint[] = [];
  const months = new Map<string, FlowPoint & { rows: number }>();
  let running = base;
  let carried: BalancePoint | null = null;
  for (const day of days) {
    const { inUnits, outUnits } = day;
    running += inUnits + outUnits;
    if (from !== null && day.date < from) {
      carried = { date: from, units: running };
      continue;
    }
    if (to !== null && day.date > to) break;
    balances.push({ date: day.date, units: running });
    const key = day.date.slice(0, 7);
    const month = months.get(key) ?? { month: key, inUnits: 0n, outUnits: 0n, rows: 0 };
    const moved = transferDays.get(day.date);
    const doubled = duplicateDays.get(day.date);
    month.inUnits += inUnits - (moved?.inUnits ?? 0n) - (doubled?.inUnits ?? 0n);
    month.outUnits += outUnits - (moved?.outUnits ?? 0n) - (doubled?.outUnits ?? 0n);
    transfers.inUnits += moved?.inUnits ?? 0n;
    transfers.outUnits += moved?.outUnits ?? 0n;
    duplicates.rows += doubled?.rows ?? 0;
    duplicates.inUnits += doubled?.inUnits ?? 0n;
    duplicates.outUnits += doubled?.outUnits ?? 0n;
    months.set(key, month);
  }
  // The balance carried into the period starts the line at its first day.
  if (carried && balances[0]?.date !== from) balances.unshift(carried);
  const flows = [...months.values()];
  const totals = flows.reduce((sum, f) => ({ inUnits: sum.inUnits + f.inUnits, outUnits: sum.outUnits + f.outUnits }), {
    inUnits: 0n,
    outUnits: 0n,
  });
  return {
    account,
    balances,
    anchored: anchor !== null,
    flows: flows.map(({ month, inUnits, outUnits }) => ({ month, inUnits, outUnits })),
    totals,
    transfers,
    duplicates,
  };
}

/** The months of the category table (CategorySpend) and each category's sums in them, from one SQL aggregate. */
export async function categorySpendOf(
  store: Store,
  account: ReportAccount,
  period: { from: string | null; to: string | null; now: Date },
): Promise<CategorySpend> {
  const end = DateTime.fromISO(period.to ?? nzDateOf(period.now.toISOString()), { zone: NZ }).startOf('month');
  const months: string[] = [];
  for (let back = 11; back >= 0; back--) {
    const month = end.minus({ months: back }).toFormat('yyyy-MM');
    if (period.from === null || month >= period.from.slice(0, 7)) months.push(month);
  }
  const [first] = months;
  if (first === undefined) return { months, rows: [] };
  const lastDay = end.endOf('month').toFormat('yyyy-MM-dd');
  const fromDay = period.from !== null && period.from > `${first}-01` ? period.from : `${first}-01`;
  const toDay = period.to !== null && period.to < lastDay ? period.to : lastDay;
  const sums = await store.reportData.categorySpend(account, {
    scale: unitsPerMinor(account.currency),
    from: fromDay,
    to: toDay,
  });
  const rows = new Map<string, CategorySpend['rows'][number]>();
  for (const sum of sums) {
    const row = rows.get(sum.category) ?? { category: sum.category, cells: months.map(() => 0n), totalUnits: 0n };
    const at = months.indexOf(sum.month);
    if (at < 0) continue;
    row.cells[at] = sum.outUnits;
    row.totalUnits += sum.outUnits;
    rows.set(sum.category, row);
  }
  return {
    months,
    rows: [...rows.values()].sort((a, b) => (a.category < b.category ? -1 : a.category > b.category ? 1 : 0)),
  };
}

/**
 * The account's limits: the permissions of the consents that read its transactions (as `check`
 * reads them: src/check/check-accounts.ts), and the window of the consent it is listed under.
 */
async function accountLimits(store: Store, account: ReportAccount, consents: ReportConsent[]): Promise<AccountLimits> {
  const coverage = await store.continuity.transactionCoverage(account);
  const kinds = coverage.map((c) => creditDebitFilter((c.permissions ?? '').split(' ')));
  let only: AccountLimits['only'] = null;
  if (coverage.length > 0 && !kinds.includes(null)) {
    const [firstKind] = kinds;
    const kept = firstKind && kinds.every((k) => k === firstKind) ? firstKind : 'Credit and Debit apart';
    only = { kept, consents: coverage.map((c) => c.consentId) };
  }
  const [earliest] = coverage
    .map((c) => c.startDateTime)
    .filter((d): d is string => d !== null)
    .sort();
  const consent = consents.find((c) => c.consent_id === account.consentId);
  let windowEnded: string | null = null;
  if (consent) {
    const end = consent.end_date_time;
    const syncedPastEnd = end !== null && consent.last_synced_at !== null && end <= consent.last_synced_at;
    // A consent no longer authorised, or ended (src/store/consent-state.ts: a code such as BDT409
    // leaves the status Authorised), was read last at its last sync (or its end, if earlier).
    const ended = consentEnded({ endedReason: consent.ended_reason, status: consent.status }) !== null;
    const last = syncedPastEnd ? end : [end, consent.last_synced_at].filter((d) => d !== null).sort()[0];
    if ((consent.status !== 'Authorised' || ended || syncedPastEnd) && last) windowEnded = nzDateOf(last);
  }
  return {
    only,
    read: coverage.length > 0,
    windowStart: earliest ? nzDateOf(earliest) : null,
    windowEnded,
  };
}

export async function buildReport(
  store: Store,
  options: ReportOptions = {},
): Promise<{ html: string; data: ReportData; charts: number }> {
  const data = await gatherReport(store, options);
  const { html, charts } = renderReport(data);
  return { html, data, charts };
}

/** An instant as the NZ date and time people read ("2025-03-05 14:02"). */
export function nzDateTime(instant: string | null): string {
  if (!instant) return '';
  const at = DateTime.fromISO(instant, { zone: 'utc' }).setZone(NZ);
  return at.isValid ? at.toFormat('yyyy-MM-dd HH:mm') : instant;
}
