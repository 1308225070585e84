/// <reference lib="dom" />
/**
 * The report on the demo's world (`bankdata demo`: credits-only accounts, a consumed consent whose
 * window ended) with two continuity breaks planted as `bankdata check` would record them: what the
 * data cannot show is left undrawn and said in words, each break is on its chart and linked to
 * its row, every account is reachable from the contents; and in real Chromium at 390 and 1280 px
 * the page does not overflow, axis text is at least 11 px as rendered, axe-core finds no
 * violation. Screenshots go to test-artifacts/report-390.png and report-1280.png.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDemo } from '../../src/cli/demo';
import { writeReport } from '../../src/report/write-report';
import { openStore, type SqliteStore } from '../../src/store';
import type { AccountId, TransactionId } from '@bankdata/core/schemas';
import { SETTINGS } from '../fixtures/sync-harness';

const CHROMIUM = '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
const ARTIFACTS = resolve('test-artifacts');
if (!haveChromium && !process.env.CI)
  console.warn(`report browser test skipped: ${CHROMIUM} is not installed (apt-get install chromium)`);

interface DemoAccount {
  account_id: string;
  permissions: string;
  status: string;
}

const dir = mkdtempSync(join(tmpdir(), 'bankdata-report-demo-'));
let store: SqliteStore;
let accounts: DemoAccount[];
let html: string;
let reportPath: string;
/** The planted breaks, in the order of the report's breaks table (bank, account, from_date). */
const planted: { accountId: string; fromDate: string; toDate: string }[] = [];

const complete = (a: DemoAccount) =>
  a.permissions.includes('ReadTransactionsCredits') && a.permissions.includes('ReadTransactionsDebits');

/** The <article> of one account, by its id in the heading. */
function section(accountId: string): string {
  const articles = html.split('<article class="account"').slice(1);
  const found = articles.filter((a) => a.includes(`· ${accountId} ·`));
  expect(found, accountId).toHaveLength(1);
  return found[0]!.slice(0, found[0]!.indexOf('</article>'));
}

beforeAll(async () => {
  // The demo's walkthrough kept: it says which sync failed, should one.
  let said = '';
  const code = await runDemo({ dataDir: dir, settings: SETTINGS, seed: 1, out: (s) => (said += s) });
  expect(code, said).toBe(0);
  store = await openStore(join(dir, 'demo', 'bankdata.sqlite'));
  accounts = store.sqlite
    .prepare(
      `SELECT a.account_id, c.permissions, c.status FROM v_accounts a JOIN consents c ON c.consent_id = a.consent_id ORDER BY a.account_id`,
    )
    .all() as DemoAccount[];
  // Two breaks on two complete accounts of the authorised consent: one between booked balances,
  // one in the running balance, each some weeks before the account's last row.
  const targets = accounts.filter((a) => complete(a) && a.status === 'Authorised').slice(0, 2);
  expect(targets, JSON.stringify(accounts)).toHaveLength(2);
  const findings = targets.map((a, i) => {
    const row = store.sqlite
      .prepare(
        `SELECT transaction_id, booking_date, booking_date_time, currency FROM v_transactions
         WHERE account_id = ? AND status = 'Booked' ORDER BY booking_date_time DESC LIMIT 1 OFFSET 40`,
      )
      .get(a.account_id) as {
      transaction_id: string;
      booking_date: string;
      booking_date_time: string;
      currency: string;
    };
    planted.push({ accountId: a.account_id, fromDate: row.booking_date, toDate: row.booking_date });
    return {
      bank: 'PNZ' as const,
      accountId: a.account_id as AccountId,
      kind: i === 0 ? ('balances' as const) : ('running_balance' as const),
      fromDateTime: row.booking_date_time,
      toDateTime: row.booking_date_time,
      fromDate: row.booking_date,
      toDate: row.booking_date,
      amount: '-12.30',
      amountMinor: -1230,
      currency: row.currency,
      cause: 'missing_transaction' as const,
      transactionId: i === 0 ? null : (row.transaction_id as TransactionId),
      detail: 'planted by the test',
    };
  });
  // Every account's findings replaced by these two: the demo's own check found its planted duplicate.
  const every = store.sqlite.prepare('SELECT bank, account_id AS accountId FROM v_accounts').all() as {
    bank: 'PNZ';
    accountId: AccountId;
  }[];
  await store.continuity.replaceFindings({
    accounts: every,
    findings,
    runId: null,
    checkedAt: new Date().toISOString(),
  });
  reportPath = join(dir, 'report.html');
  await writeReport(store, reportPath);
  html = readFileSync(reportPath, 'utf8');
}, 120_000);

afterAll(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('report on the demo: what the data cannot show', () => {
  it('a credits-only account has the caveat, no balance line, and its money in labelled partial', () => {
    const creditsOnly = accounts.filter(
      (a) => a.permissions.includes('ReadTransactionsCredits') && !a.permissions.includes('ReadTransactionsDebits'),
    );
    expect(creditsOnly.length).toBeGreaterThan(0);
    for (const a of creditsOnly) {
      const s = section(a.account_id);
      expect(s, a.account_id).toContain('No balance line');
      expect(s).toContain('credits only, no money out was read');
      expect(s).not.toContain('-bal-cap');
      expect(s).not.toContain('stroke="#1d4f91"'); // no balance line in any chart
      expect(s).toMatch(/<figcaption[^>]*>[^<]*money in by month \(partial: credits only/);
      expect(s).not.toMatch(/ · balance /);
    }
  });

  it("an account whose consent's window ended says so, and its month is partial", () => {
    const ended = accounts.filter((a) => a.status !== 'Authorised');
    expect(ended.length).toBeGreaterThan(0);
    for (const a of ended) {
      const s = section(a.account_id);
      expect(s, a.account_id).toMatch(/The consent's window ended on \d{4}-\d{2}-\d{2}: nothing after it was read/);
      expect(s).toMatch(/\(partial: [^)]*window ended \d{4}-\d{2}-\d{2}/);
    }
  });

  it('each break is on its chart, linked to its row in the breaks table, and the line starts after it', () => {
    expect(planted).toHaveLength(2);
    for (const [i, b] of planted.entries()) {
      const s = section(b.accountId);
      const n = i + 1;
      const boxes = s.match(/<div class="chart-box"[\s\S]*?<\/svg>[^]*?<\/div>/g) ?? [];
      const balanceCharts = boxes.filter((c) => /-bal(-n)?-title/.test(c));
      expect(balanceCharts, b.accountId).toHaveLength(2); // the wide and the narrow drawing
      for (const c of balanceCharts) {
        expect(c).toContain(`<g class="break-band" data-break="${n}">`); // drawn at its dates
        expect(c).toContain(`<a class="break-mark" href="#break-${n}"`); // and linked to its row
      }
      expect(s).toContain(`<a href="#break-${n}">break ${n}, ${b.fromDate}</a>`);
      expect(s).toContain(`The balance line starts after ${b.toDate}`);
      const row = html.match(new RegExp(`<tr id="break-${n}">([\\s\\S]*?)</tr>`));
      expect(row?.[1]).toContain(b.accountId);
      expect(row?.[1]).toContain(`${b.fromDate} to ${b.toDate}`);
    }
    expect(html).not.toContain('href="#break-3"');
  });

  it('every account is reachable from the contents, and every section links back', () => {
    const nav = html.slice(html.indexOf('<nav id="contents"'), html.indexOf('</nav>'));
    const ids = [...html.matchAll(/<article class="account" id="([^"]+)"/g)].map((m) => m[1]!);
    expect(ids).toHaveLength(accounts.length);
    for (const id of ids) expect(nav).toContain(`href="#${id}"`);
    for (const a of accounts) expect(nav).toContain(a.account_id);
    const back = '<a href="#contents">Back to contents</a>';
    for (const a of accounts) expect(section(a.account_id), a.account_id).toContain(back);
    for (const id of ['summary', 'consents', 'runs', 'continuity']) {
      const start = html.indexOf(`<section id="${id}"`);
      expect(start, id).toBeGreaterThan(0);
      expect(html.slice(start, html.indexOf('</section>', start)), id).toContain(back);
    }
  });
});

describe.skipIf(!haveChromium && !process.env.CI)(`report on the demo in Chromium (${CHROMIUM})`, () => {
  it.each([390, 1280])(
    'at %i px: no horizontal overflow, axis text at least 11 px as rendered, break links shown, no axe violation',
    async (width) => {
      const { chromium } = await import('playwright-core');
      const browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
      });
      try {
        const page = await browser.newPage({ viewport: { width, height: 900 } });
        await page.goto(`file://${reportPath}`);
        const measured = await page.evaluate(() => {
          const shown = Array.from(document.querySelectorAll<SVGSVGElement>('svg.chart')).filter(
            (s) => s.getClientRects().length > 0,
          );
          const texts = shown.flatMap((s) => Array.from(s.querySelectorAll('text')));
          // The size text is drawn at: its computed font size times the SVG's scale on screen.
          const sizes = texts.map((t) => parseFloat(getComputedStyle(t).fontSize) * (t.getScreenCTM()?.a ?? 0));
          return {
            scrollWidth: document.documentElement.scrollWidth,
            charts: shown.length,
            sizes: shown.map((s) => s.dataset.size),
            smallest: Math.min(...sizes),
            texts: texts.length,
            breakLinks: Array.from(document.querySelectorAll('a.break-mark')).filter(
              (a) => a.getClientRects().length > 0,
            ).length,
          };
        });
        expect(measured.scrollWidth).toBeLessThanOrEqual(width);
        expect(measured.charts).toBeGreaterThanOrEqual(accounts.length);
        expect(new Set(measured.sizes)).toEqual(new Set([width < 600 ? 'narrow' : 'wide']));
        expect(measured.texts).toBeGreaterThan(100);
        expect(measured.smallest).toBeGreaterThanOrEqual(11);
        expect(measured.breakLinks).toBe(2);

        mkdirSync(ARTIFACTS, { recursive: true });
        await page.screenshot({ path: join(ARTIFACTS, `report-${width}.png`) });
        await page.screenshot({ path: join(ARTIFACTS, `report-${width}-full.png`), fullPage: true });
        await page
          .locator(`article:has(a.break-mark)`)
          .first()
          .screenshot({ path: join(ARTIFACTS, `report-${width}-break.png`) });

        const axeSource = (createRequire(import.meta.url)('axe-core') as { source: string }).source;
        await page.addScriptTag({ content: axeSource });
        const violations = await page.evaluate(async () => {
          const result = await (
            window as unknown as {
              axe: { run(): Promise<{ violations: { id: string; impact: string; nodes: { target: unknown }[] }[] }> };
            }
          ).axe.run();
          return result.violations.map((v) => ({ id: v.id, impact: v.impact, first: v.nodes[0]?.target }));
        });
        expect(violations).toEqual([]);
      } finally {
        await browser.close();
      }
    },
    120_000,
  );
});
