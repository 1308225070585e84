/**
 * The report's HTML (src/report/html.ts) rendered from figures built by hand: what the page says
 * and draws for cases the demo's database does not hold.
 */
import { describe, expect, it } from 'vitest';
import { toUnits } from '@bankdata/core/money';
import type { AccountId } from '@bankdata/core/schemas';
import type { AccountSection, ReportData } from '../../src/report/build-report';
import { renderReport } from '../../src/report/html';
import type { ContinuityViewRow } from '../../src/store/continuity';

const ACCOUNT = 'acc-rainy';

function section(overrides: Partial<AccountSection> = {}): AccountSection {
  return {
    account: {
      bank: 'PNZ',
      accountId: ACCOUNT as AccountId,
      currency: 'NZD',
      nickname: 'Rainy day',
      description: null,
      accountType: 'Personal',
      accountSubtype: 'Savings',
      consentId: '291a56bf-2338-4e1d-8c86-414521113e6b',
    },
    balances: [],
    anchored: true,
    flows: [],
    totals: { inUnits: 0n, outUnits: 0n },
    transfers: { inUnits: 0n, outUnits: 0n },
    duplicates: { rows: 0, inUnits: 0n, outUnits: 0n },
    limits: { only: null, read: true, windowStart: '2025-11-01', windowEnded: null },
    categories: { months: [], rows: [] },
    ...overrides,
  };
}

function report(overrides: Partial<ReportData> = {}): ReportData {
  return {
    generatedAt: '2026-11-29T13:11:00.000Z',
    database: '/data/bankdata.sqlite',
    from: null,
    to: null,
    accounts: [section()],
    consents: [],
    runs: [],
    lastSync: null,
    continuity: [],
    payments: null,
    ...overrides,
  };
}

/** A consent registered and never read (bankdata consents add, no sync yet). */
const UNREAD: ReportData['consents'][number] = {
  consent_id: '291a56bf-2338-4e1d-8c86-414521113e6b',
  bank: null,
  status: null,
  start_date_time: null,
  end_date_time: null,
  expiration_date_time: null,
  days_to_expiry: null,
  last_synced_at: null,
  last_outcome: null,
  ended_reason: null,
};

const RUN: ReportData['runs'][number] = {
  run_id: 'run-1',
  started_at: '2026-11-29T13:00:00.000Z',
  finished_at: '2026-11-29T13:01:00.000Z',
  outcome: 'ok',
  consents: 1,
  requests: 12,
  rows_written: 40,
  failed_units: 0,
  error_summary: null,
  job: null,
};

function finding(date: string): ContinuityViewRow {
  return {
    bank: 'PNZ',
    account_id: ACCOUNT,
    kind: 'balances',
    from_date: date,
    to_date: date,
    amount_minor: -250000,
    currency: 'NZD',
    cause: 'duplicate',
    transaction_id: null,
    detail: 'booked balance 45858.05 NZD, the stored rows make it 48358.05 NZD',
    from_date_time: `${date}T00:00:00.000Z`,
    to_date_time: `${date}T10:00:00.000Z`,
    run_id: null,
    checked_at: '2026-11-29T13:11:00.000Z',
    amount_text: '-2500.00',
  };
}

/** The NZ dates of a year of days, 2025-11-25 to 2026-11-24, each a balance point. */
function yearOfDays(): { date: string; units: bigint }[] {
  const out: { date: string; units: bigint }[] = [];
  for (let t = Date.UTC(2025, 10, 25); t <= Date.UTC(2026, 10, 24); t += 86_400_000)
    out.push({ date: new Date(t).toISOString().slice(0, 10), units: toUnits('45000.00') });
  return out;
}

/** The text of the wide balance chart's <text> elements. */
function balanceChartTexts(html: string): string[] {
  const start = html.indexOf('<div class="chart-box" data-size="wide">');
  expect(start).toBeGreaterThan(0);
  const svg = html.slice(start, html.indexOf('</svg>', start));
  expect(svg).toContain('balance at each day');
  return [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1] ?? '');
}

describe('the balance chart after a continuity break', () => {
  it('spans the break and the days after it, not the year of points cut before it', () => {
    const data = report({ accounts: [section({ balances: yearOfDays() })], continuity: [finding('2026-11-18')] });
    const { html } = renderReport(data);
    expect(html).toContain('Rainy day: balance at each day&#39;s end, 2026-11-19 to 2026-11-24');
    const labels = balanceChartTexts(html);
    // A year-long axis is labelled by months (Jan, Mar…) and the year; a week of days by dates.
    expect(labels.filter((t) => /^(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Dec|2025|2026)$/.test(t))).toEqual([]);
  });
});

describe('continuity before any check', () => {
  it('a database with a consent and no sync: not checked yet, never "no break"', () => {
    const { html } = renderReport(report({ accounts: [], consents: [UNREAD] }));
    const card = html.slice(
      html.indexOf('<dt>Continuity breaks</dt>'),
      html.indexOf('</div>', html.indexOf('<dt>Continuity breaks</dt>')),
    );
    expect(card).toContain('not checked yet');
    expect(card).not.toContain('badge ok');
    const section = html.slice(
      html.indexOf('<section id="continuity"'),
      html.indexOf('</section>', html.indexOf('<section id="continuity"')),
    );
    expect(section).toContain('Not checked yet');
    expect(section).not.toContain('No break');
  });

  it('accounts held but no sync (nor its closing check) recorded: not checked yet', () => {
    const { html } = renderReport(report());
    expect(html).toContain('not checked yet');
    expect(html).not.toContain('No break');
  });

  it('after a sync with no finding: no break', () => {
    const { html } = renderReport(report({ lastSync: RUN }));
    expect(html).toContain('<dt>Continuity breaks</dt><dd><span class="badge ok">none</span>');
    expect(html).toContain('No break: at the last check');
  });
});

describe('spend by category', () => {
  it('a month no consent window covered is "not read", not 0.00', () => {
    const months = Array.from({ length: 12 }, (_, i) => `2025-${String(i + 1).padStart(2, '0')}`);
    const cells = months.map((m) => (m === '2025-07' ? toUnits('-12.50') : 0n));
    const data = report({
      accounts: [
        section({
          limits: { only: null, read: true, windowStart: '2025-06-15', windowEnded: '2025-10-03' },
          categories: { months, rows: [{ category: 'groceries', cells, totalUnits: toUnits('-12.50') }] },
        }),
      ],
    });
    const { html } = renderReport(data);
    const at = html.indexOf('spend by category per month');
    const table = html.slice(at, html.indexOf('</table>', at));
    const row = [...table.slice(table.indexOf('<tbody>')).matchAll(/<td[^>]*>([^<]*)<\/td>/g)].map((m) => m[1]);
    expect(row).toEqual([
      'groceries',
      ...['01', '02', '03', '04', '05'].map(() => 'not read'),
      '0.00 NZD', // June: the window starts on the 15th (partial, read)
      '−12.50 NZD',
      '0.00 NZD',
      '0.00 NZD',
      '0.00 NZD', // October: the window ended on the 3rd
      'not read',
      'not read',
      '−12.50 NZD',
    ]);
  });
});

describe('an account without a nickname', () => {
  const heading = (html: string) => {
    const at = html.indexOf('<h3 id="acct-0-h">');
    return html.slice(at, html.indexOf('</h3>', at));
  };
  const contents = (html: string) => {
    const at = html.indexOf('<ul class="toc-accounts">');
    return html.slice(at, html.indexOf('</ul>', at));
  };
  const base = section().account;

  it('is named by its description', () => {
    const { html } = renderReport(
      report({ accounts: [section({ account: { ...base, nickname: null, description: 'Bonus Saver' } })] }),
    );
    expect(heading(html)).toContain('Bonus Saver <span class="muted">PNZ · acc-rainy · NZD</span>');
    expect(contents(html)).toContain('>Bonus Saver</a>');
  });

  it('with no description either, its id is written once', () => {
    const { html } = renderReport(
      report({ accounts: [section({ account: { ...base, nickname: null, description: null } })] }),
    );
    expect(heading(html).split(ACCOUNT)).toHaveLength(2);
    expect(contents(html).split(ACCOUNT)).toHaveLength(2);
  });
});
