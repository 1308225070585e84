/// <reference lib="dom" />
/**
 * `bankdata report` on data synced from the emulator: the figures are right (the balance line
 * ends at the booked balance the bank stated, JPY without minor digits, negative amounts signed,
 * NZ months), and the file opened in real Chromium (headless, driven by playwright-core) has no
 * console error, makes no request, draws every chart with data, passes axe-core with no serious
 * or critical violation, and leaves a screenshot in test-artifacts/.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyCategories } from '../../src/categories/apply';
import { checkContinuity } from '../../src/check/check-accounts';
import { formatUnits, toUnits } from '@bankdata/core/money';
import { buildReport } from '../../src/report/build-report';
import { reportReads } from '../../src/store/report-queries';
import { sqliteRunner } from '../../src/store/sql-runner';
import { writeReport } from '../../src/report/write-report';
import { runCli, runCliInProcess } from '../cli/cli-process';
import { startHarness, type Harness } from '../fixtures/sync-harness';

const CHROMIUM = '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
const ARTIFACTS = resolve('test-artifacts');
if (!haveChromium && !process.env.CI)
  console.warn(`report browser test skipped: ${CHROMIUM} is not installed (apt-get install chromium)`);

let h: Harness;
let reportPath: string;

beforeAll(async () => {
  h = await startHarness({ start: '2025-03-05T01:00:00Z', historyDays: 150 });
  await h.sync();
  h.emu.advance(3 * 86_400_000);
  await h.sync();
  await checkContinuity(h.store);
  // Categories from the MCC table and the bank's codes (no rules file): the report's spend by category.
  await applyCategories(h.store, { rules: [], all: true });
  // One finding so that the continuity table is drawn (as a planted fault would leave; see test/check).
  const account = h.store.sqlite
    .prepare("SELECT bank, account_id AS accountId FROM accounts WHERE currency = 'NZD' LIMIT 1")
    .get() as {
    bank: 'PNZ';
    accountId: never;
  };
  await h.store.continuity.replaceFindings({
    accounts: [],
    findings: [
      {
        ...account,
        kind: 'balances',
        fromDateTime: '2025-03-01T01:00:00.000Z',
        toDateTime: '2025-03-04T01:00:00.000Z',
        fromDate: '2025-03-01',
        toDate: '2025-03-04',
        amount: '-42.50',
        amountMinor: -4250,
        currency: 'NZD',
        cause: 'missing_transaction',
        transactionId: null,
        detail: 'booked balance 100.00 NZD then 57.50 NZD <script>alert(1)</script>',
      },
    ],
    runId: null,
    checkedAt: '2025-03-08T01:00:00.000Z',
  });
  reportPath = join(h.dir, 'report.html');
  await writeReport(h.store, reportPath);
}, 120_000);

afterAll(async () => {
  await h?.close();
});

describe('report figures', () => {
  it('ends each balance line at the booked balance the bank stated last, exactly', async () => {
    const { data } = await buildReport(h.store);
    let compared = 0;
    for (const section of data.accounts) {
      const stated = h.store.sqlite
        .prepare(
          "SELECT amount, date_time FROM balances WHERE bank = ? AND account_id = ? AND type = 'InterimBooked' ORDER BY date_time DESC LIMIT 1",
        )
        .get(section.account.bank, section.account.accountId) as { amount: string } | undefined;
      if (!stated || section.balances.length === 0) continue;
      const last = section.balances[section.balances.length - 1]!;
      expect(formatUnits(last.units, section.account.currency)).toBe(
        formatUnits(toUnits(stated.amount), section.account.currency),
      );
      compared++;
    }
    expect(compared).toBeGreaterThanOrEqual(5);
  });

  it('writes JPY without minor digits, negative amounts with a minus sign, and escapes what it shows', () => {
    const html = readFileSync(reportPath, 'utf8');
    const jpy = html.slice(html.indexOf('· JPY</span></h3>')); // the section's heading (the contents name it too)
    expect(jpy.length).toBeGreaterThan(100);
    const jpyTable = jpy.slice(0, jpy.indexOf('</article>'));
    expect(jpyTable).toMatch(/<td class="num neg">−[\d,]+ JPY<\/td>/);
    expect(jpyTable).not.toMatch(/\d\.\d+ JPY/);
    expect(html).toMatch(/<td class="num neg">−[\d,]+\.\d{2} NZD<\/td>/);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('<td class="num neg">−42.50 NZD</td>'); // the finding's exact amount_text
    expect(html).not.toContain('<script');
    expect(html).not.toMatch(/https?:\/\/(?!www\.w3\.org)/); // nothing to fetch: SVG namespaces only
  });

  it('writes the same bytes whether the daily totals are streamed in batches (as they are) or read whole', async () => {
    const now = new Date('2025-03-08T02:00:00Z');
    const runner = sqliteRunner(h.store.sqlite, { safeIntegers: true });
    // The read as it was before the daily totals were streamed: the whole result at once.
    const whole = reportReads({
      ...runner,
      iterate: async function* (query) {
        yield await runner.all(query);
      },
    });
    // ECharts names the SVG's classes by a count of the charts this process drew (zr<n>-cls-<m>, zr<n>-c<m>),
    // which a fresh process (the CLI) starts from zero: each name is numbered in order of first use.
    const canonical = (html: string) => {
      const names = new Map<string, number>();
      return html.replace(/zr\d+-(?:cls-)?[a-z]*\d+/g, (name) => {
        if (!names.has(name)) names.set(name, names.size);
        return `zr-cls-${names.get(name)}`;
      });
    };
    // Streamed in batches of 7 days, so that every account's days come in many batches.
    const batched = reportReads({ ...runner, iterate: (query) => runner.iterate(query, 7) });
    const streamed = await buildReport({ ...h.store, reportData: batched }, { now });
    const read = await buildReport({ ...h.store, reportData: whole }, { now });
    expect(streamed.charts).toBeGreaterThanOrEqual(10);
    expect(canonical(streamed.html)).toBe(canonical(read.html));
  });

  it("sums each category's booked debits per NZ month as v_transactions' rows do, own-account transfers left out", async () => {
    const now = new Date('2025-03-08T02:00:00Z');
    const { data, html } = await buildReport(h.store, { now });
    const expected = h.store.sqlite.prepare(
      `SELECT category, substr(booking_date, 1, 7) AS month, group_concat(amount_text, ' ') AS amounts
       FROM v_transactions v
       WHERE bank = ? AND account_id = ? AND status = 'Booked' AND credit_debit_indicator = 'Debit'
         AND booking_date >= '2024-04-01' AND booking_date <= '2025-03-31'
         AND NOT EXISTS (SELECT 1 FROM v_transfers x WHERE (x.debit_bank = v.bank AND x.debit_account_id = v.account_id
               AND x.debit_transaction_id = v.transaction_id) OR (x.credit_bank = v.bank
               AND x.credit_account_id = v.account_id AND x.credit_transaction_id = v.transaction_id))
       GROUP BY 1, 2 ORDER BY 1, 2`,
    );
    let cells = 0;
    const categories = new Set<string>();
    for (const section of data.accounts) {
      const { months, rows } = section.categories;
      const c = section.account.currency;
      expect(months).toHaveLength(12);
      expect([months[0], months[11]]).toEqual(['2024-04', '2025-03']);
      const want = (
        expected.all(section.account.bank, section.account.accountId) as {
          category: string;
          month: string;
          amounts: string;
        }[]
      ).map((r) => ({
        category: r.category,
        month: r.month,
        // Each row's exact decimal text, summed in exact units.
        sum: formatUnits(
          r.amounts.split(' ').reduce((a, t) => a + toUnits(t), 0n),
          c,
        ),
      }));
      const got = rows.flatMap((r) =>
        r.cells.flatMap((u, i) =>
          u === 0n ? [] : [{ category: r.category, month: months[i]!, sum: formatUnits(u, c) }],
        ),
      );
      expect(got, section.account.accountId).toEqual(want);
      for (const r of rows) {
        expect(r.totalUnits).toBe(r.cells.reduce((a, u) => a + u, 0n));
        categories.add(r.category);
      }
      cells += got.length;
    }
    expect(cells).toBeGreaterThanOrEqual(10);
    expect(categories.size).toBeGreaterThanOrEqual(3);
    // Own-account transfers the sums leave out: debits of the 12 months linked in v_transfers.
    const linked = h.store.sqlite
      .prepare("SELECT count(*) AS n FROM v_transfers WHERE debit_booking_date BETWEEN '2024-04-01' AND '2025-03-31'")
      .get() as { n: number };
    expect(linked.n).toBeGreaterThan(0);
    expect(html).toContain('spend by category per month, 2024-04 to 2025-03');
  });

  it('limits money in and out to the NZ months of --from and --to', async () => {
    const { data } = await buildReport(h.store, { from: '2025-01-01', to: '2025-02-28' });
    const months = new Set(data.accounts.flatMap((a) => a.flows.map((f) => f.month)));
    expect([...months].sort()).toEqual(['2025-01', '2025-02']);
    for (const a of data.accounts)
      for (const b of a.balances) expect(b.date >= '2025-01-01' && b.date <= '2025-02-28').toBe(true);
  });

  it('bankdata report writes the file and says where; a bad date is a usage error', async () => {
    const out = join(h.dir, 'cli-report.html');
    const ok = await runCliInProcess(['report', '--db', h.store.path, '--out', out, '--from', '2025-01-01']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain(`report written: ${out}`);
    expect(readFileSync(out, 'utf8')).toContain('<!doctype html>');
    const bad = await runCliInProcess(['report', '--db', h.store.path, '--out', out, '--from', '2025-13-01']);
    expect(bad.code).toBe(2);
  });

  it('bankdata report --out /dev/stdout --json is a usage error: the JSON outcome and the HTML would share stdout', async () => {
    const r = await runCliInProcess(['report', '--db', h.store.path, '--out', '/dev/stdout', '--json']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--json prints on stdout, where --out sends the report');
    expect(r.stdout).toBe('');
  });

  it('bankdata report --out /dev/stdout: the HTML on stdout, its summary a notice on stderr (none with -q, a JSON record with --log-format json)', async () => {
    const plain = await runCli(['report', '--db', h.store.path, '--out', '/dev/stdout']);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toContain('<!doctype html>');
    expect(plain.stderr).toMatch(/^bankdata: report written: \/dev\/stdout \(\d+ account\(s\), \d+ chart\(s\)\)\n$/);
    const quiet = await runCli(['-q', 'report', '--db', h.store.path, '--out', '/dev/stdout']);
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stdout).toContain('<!doctype html>');
    expect(quiet.stderr).toBe('');
    const json = await runCli(['--log-format', 'json', 'report', '--db', h.store.path, '--out', '/dev/stdout']);
    expect(json.code, json.stderr).toBe(0);
    const lines = json.stderr.split('\n').filter((l) => l !== '');
    expect(lines.map((l) => (JSON.parse(l) as { level: string }).level)).toEqual(['notice']);
  });
});

describe.skipIf(!haveChromium && !process.env.CI)(`report in Chromium (${CHROMIUM})`, () => {
  it('opens from disk with no console error and no request, every chart drawn with data, no serious axe violation', async () => {
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    });
    try {
      const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
      const problems: string[] = [];
      const requests: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
      });
      page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
      page.on('request', (r) => {
        if (!r.url().startsWith('file:')) requests.push(r.url());
      });
      await page.goto(`file://${reportPath}`);

      const charts = await page.$$eval('figure.chart-figure', (figures) =>
        figures.map((f) => {
          const svg = f.querySelector('svg[role="img"]');
          const label =
            svg
              ?.getAttribute('aria-labelledby')
              ?.split(' ')
              .map((id: string) => document.getElementById(id)?.textContent ?? '') ?? [];
          const marks = svg
            ? Array.from(svg.querySelectorAll('path')).filter((p) =>
                ['#1d4f91', '#1e7b34', '#b3261e'].includes(
                  (p.getAttribute('stroke') ?? p.getAttribute('fill') ?? '').toLowerCase(),
                ),
              )
            : [];
          const box = svg?.getBoundingClientRect();
          return {
            label,
            marks: marks.length,
            rows: f.querySelectorAll('tbody tr').length,
            width: box?.width ?? 0,
            height: box?.height ?? 0,
          };
        }),
      );
      const accounts = h.store.sqlite.prepare('SELECT count(*) AS n FROM accounts').get() as { n: number };
      expect(charts.length).toBeGreaterThanOrEqual(accounts.n);
      for (const chart of charts) {
        expect(chart.label[0], 'title').toMatch(/\S/);
        expect(chart.label[1], 'description').toMatch(/\S/);
        expect(chart.marks, chart.label[0]).toBeGreaterThan(0);
        expect(chart.rows, chart.label[0]).toBeGreaterThan(0);
        expect(chart.width).toBeGreaterThan(300);
        expect(chart.height).toBeGreaterThan(100);
      }

      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: join(ARTIFACTS, 'report.png') });
      await page.screenshot({ path: join(ARTIFACTS, 'report-full.png'), fullPage: true });
      await page.emulateMedia({ media: 'print' });
      await page.pdf({ path: join(ARTIFACTS, 'report.pdf') }).catch(() => undefined);
      await page.emulateMedia({ media: 'screen' });

      const axeSource = (createRequire(import.meta.url)('axe-core') as { source: string }).source;
      await page.addScriptTag({ content: axeSource });
      const violations = await page.evaluate(async () => {
        const result = await (
          window as unknown as {
            axe: { run(): Promise<{ violations: { id: string; impact: string; nodes: unknown[] }[] }> };
          }
        ).axe.run();
        return result.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length }));
      });
      expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
      expect(problems).toEqual([]);
      expect(requests).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 120_000);
});
