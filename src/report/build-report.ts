/**
 * `bankdata report`: gathers the report's figures from SQL aggregates (src/store/report-queries.ts;
 * memory follows the number of days and months, never the number of rows) and renders one
 * self-contained HTML file (html.ts) with the charts drawn at build time (charts.ts).
 */
import { DateTime } from 'luxon';
import { NZ, nzDateOf } from '@bankdata/core/nz-time';
import { reconciliationSummary } from '../payments';
import type { Store } from '../store';
import type { ContinuityViewRow } from '../store/continuity';
import type { ReportAccount, ReportConsent, ReportRun } from '../store/report-queries';
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
  totals: { inUnits: Units; outUnits: Units };
}

export interface ReportData {
  generatedAt: string;
  database: string;
  from: string | null;
  to: string | null;
  accounts: AccountSection[];
  consents: ReportConsent[];
  runs: ReportRun[];
  continuity: ContinuityViewRow[];
  payments: { count: number; settled: number; matched: number; unmatched: number; ambiguous: number } | null;
}

export async function gatherReport(store: Store, options: ReportOptions = {}): Promise<ReportData> {
  const from = options.from ?? null;
  const to = options.to ?? null;
  const accounts: AccountSection[] = [];
  for (const account of await store.reportData.accounts({ accountId: options.accountId })) {
    accounts.push(await accountSection(store, account, from, to));
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
    consents: await store.reportData.consents(),
    runs: await store.reportData.runs(options.runs ?? 10),
    continuity: await store.continuity.listFindings({ accountId: options.accountId }),
    payments,
  };
}

async function accountSection(
  store: Store,
  account: ReportAccount,
  from: string | null,
  to: string | null,
): Promise<AccountSection> {
  const scale = unitsPerMinor(account.currency);
  const days = await store.reportData.dailyFlows(account, scale);
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
    month.inUnits += inUnits;
    month.outUnits += outUnits;
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
