/**
 * The report's one HTML file: inline CSS, inline SVG charts, no script and no network, so it
 * opens from disk, prints, and reads with a screen reader (landmarks, headings, a caption and a
 * table of the exact figures for every chart). Every value from the database passes `esc`.
 */
import {
  balanceChart,
  escapeXml,
  flowsChart,
  type BalancePoint,
  type BreakMark,
  isBidiSensitive,
  isolateBidi,
  money,
  withoutStrayPdi,
} from './charts';
import { nzDateTime, type AccountLimits, type AccountSection, type ReportData } from './build-report';
import { causeText } from '../check/continuity';
import { consentEnded } from '../store/consent-state';

/**
 * The report's one escaping function for text in HTML: markup characters escaped, and text that
 * can reorder what stands around it (a bidi control such as U+202E RIGHT-TO-LEFT OVERRIDE in an
 * account's nickname, or a right-to-left script) isolated in <bdi>, so that a heading, caption or
 * cell reads as the bank wrote it and nothing after it is reversed (docs/security.md "Unix use").
 */
function esc(text: string): string {
  return isBidiSensitive(text) ? `<bdi>${escapeXml(withoutStrayPdi(text))}</bdi>` : escapeXml(text);
}

export function renderReport(data: ReportData): { html: string; charts: number } {
  let charts = 0;
  const accountHtml = data.accounts
    .map((section, i) => {
      const { html, count } = renderAccount(section, i, data);
      charts += count;
      return html;
    })
    .join('\n');
  const period =
    data.from || data.to ? `${data.from ?? 'the first row'} to ${data.to ?? 'the last row'}` : 'all rows held';
  const breaks = data.continuity.length;
  const checked = continuityChecked(data);
  // The latest sync, whatever job ran after it: an expiry check's ok after a failed nightly sync
  // is not the data's state.
  const lastRun = data.lastSync;
  const html = `<!doctype html>
<html lang="en-NZ">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="bankdata">
<title>bankdata report, ${esc(nzDateTime(data.generatedAt))} NZ</title>
<style>${CSS}</style>
</head>
<body>
<header>
<h1>bankdata report</h1>
<p>Generated ${esc(nzDateTime(data.generatedAt))} (New Zealand time) from <code>${esc(data.database)}</code>. Period: ${esc(period)}. Dates are NZ dates; amounts are booked transactions, exact to the bank's digits.</p>
</header>
<nav id="contents" aria-labelledby="contents-h"><h2 id="contents-h">Contents</h2><ul>
<li><a href="#summary">Summary</a></li>
<li><a href="#accounts">Accounts</a>${accountContents(data)}</li>
<li><a href="#consents">Consents</a></li>
<li><a href="#runs">Last runs</a></li>
<li><a href="#continuity">Continuity</a></li>${data.payments ? '\n<li><a href="#payments">Payments</a></li>' : ''}
</ul></nav>
<main>
<section id="summary" aria-labelledby="summary-h"><h2 id="summary-h">Summary</h2>
<dl class="cards">
<div><dt>Accounts</dt><dd>${data.accounts.length}</dd></div>
<div><dt>Consents</dt><dd>${data.consents.length}</dd></div>
<div><dt>Last run</dt><dd>${lastRun ? `${outcomeBadge(lastRun.outcome)}<span class="when">${esc(jobName(lastRun.job))} ${esc(nzDateTime(lastRun.started_at))} NZ</span>` : 'no sync yet'}</dd></div>
<div><dt>Continuity breaks</dt><dd>${breaks > 0 ? `<span class="badge bad">${breaks}</span>` : checked ? '<span class="badge ok">none</span>' : '<span class="badge none">not checked yet</span>'}</dd></div>
${data.payments ? `<div><dt>Payments reconciled</dt><dd>${data.payments.matched} of ${data.payments.settled} settled</dd></div>` : ''}
</dl>
${BACK_LINK}
</section>
<section id="accounts" aria-labelledby="accounts-h"><h2 id="accounts-h">Accounts</h2>
${accountHtml || `<p>No account in the database yet (bankdata sync).</p>\n${BACK_LINK}`}
</section>
${renderConsents(data)}
${renderRuns(data)}
${renderContinuity(data)}
${renderPayments(data)}
</main>
<footer><p>Balances are booked balances; available balances (which count pending rows and credit lines) are not drawn. A balance line is the latest booked balance the bank stated, carried back through the booked transactions; it is left out where the stored rows are not the whole account (credits-only or debits-only consents, days up to a continuity break, after a consent's window ended), with a note saying why. Money in and out leaves out own-account transfers, the pairs linked in <code>v_transfers</code> (<code>bankdata transfers</code>), and the rows <code>bankdata check</code> suspects the bank served twice (<code>v_duplicates</code>); the balance line keeps them. Spend by category sums each account's booked debits of the last 12 NZ months by the <code>category</code> of <code>v_transactions</code> (<code>bankdata categorise</code>), own-account transfers and suspected duplicates left out too.</p></footer>
</body>
</html>
`;
  return { html, charts };
}

function renderAccount(section: AccountSection, index: number, data: ReportData): { html: string; count: number } {
  const { account, flows, totals, limits } = section;
  const c = account.currency;
  // The bank's text inside sentences of ours (chart titles, also in SVG, where <bdi> cannot go).
  const name = isolateBidi(accountName(account));
  const id = accountAnchor(index);
  const kind = [account.accountType, account.accountSubtype].filter(Boolean).join(', ');
  const breaks = accountBreaks(data, section);
  const truth = trueBalances(section, breaks);
  const balances = truth.points;
  const latest = balances[balances.length - 1];
  const parts: string[] = [];
  let count = 0;
  // Money in and out leaves own-account transfers out (docs/transfers.md) and says so.
  const moved = section.transfers;
  const transferText =
    moved.inUnits !== 0n || moved.outUnits !== 0n
      ? `own-account transfers left out of money in and out: in ${money(moved.inUnits, c)}, out ${money(moved.outUnits, c)} (v_transfers)`
      : '';
  // So do the rows the check suspects the bank served twice (docs/continuity.md "Duplicates the bank served").
  const doubled = section.duplicates;
  const duplicateText =
    doubled.rows > 0
      ? `${doubled.rows} row(s) the check suspects the bank served twice left out of money in and out: in ${money(doubled.inUnits, c)}, out ${money(doubled.outUnits, c)} (v_duplicates)`
      : '';
  const movedText = [transferText, duplicateText].filter(Boolean).join('; ');
  parts.push(`<article class="account" id="${id}" aria-labelledby="${id}-h">
<h3 id="${id}-h">${esc(name)} <span class="muted">${esc(account.bank)} · ${accountName(account) === account.accountId ? '' : `${esc(account.accountId)} · `}${esc(c)}</span></h3>
<p class="facts">${esc(kind)}${latest ? ` · balance ${esc(money(latest.units, c))} on ${esc(latest.date)}` : ''} · in ${esc(money(totals.inUnits, c))} · out ${esc(money(totals.outUnits, c))}${limits.only ? ' (partial)' : ''}${movedText ? ` · ${esc(movedText)}` : ''}</p>`);
  if (truth.caveats.length > 0)
    parts.push(
      `<div class="caveat" role="note" aria-label="What this account's data cannot show">${truth.caveats.map((t) => `<p>${t}</p>`).join('\n')}</div>`,
    );
  const first = balances[0];
  if (first && latest) {
    const low = balances.reduce((a, b) => (b.units < a.units ? b : a));
    const high = balances.reduce((a, b) => (b.units > a.units ? b : a));
    const title = `${name}: balance at each day's end, ${first.date} to ${latest.date}`;
    const description =
      `From ${money(first.units, c)} on ${first.date} to ${money(latest.units, c)} on ${latest.date}; lowest ${money(low.units, c)} on ${low.date}, highest ${money(high.units, c)} on ${high.date}.` +
      (breaks.length
        ? ` ${breaks.length} continuity break(s) marked: ${breaks.map((b) => b.description).join('; ')}.`
        : '');
    const monthEnds = new Map<string, (typeof balances)[number]>();
    for (const b of balances) monthEnds.set(b.date.slice(0, 7), b);
    const options = { span: truth.span, breaks: breaks.map((b) => b.mark) };
    const both = (size: 'wide' | 'narrow') =>
      balanceChart(balances, c, { id: chartId(`${id}-bal`, size), title, description }, options, size);
    parts.push(
      figure(
        `${id}-bal`,
        title,
        description,
        [both('wide'), both('narrow')],
        ['Month', `Balance at the month's last movement (${c})`, 'On'],
        [...monthEnds.entries()].map(([m, b]) => [m, money(b.units, c), b.date]),
        breaks.length
          ? `<p class="break-links">Breaks on this chart: ${breaks.map((b) => `<a href="${b.mark.href}">break ${esc(b.mark.label)}, ${esc(b.dates)}</a>`).join('; ')}.</p>`
          : '',
      ),
    );
    count++;
  }
  const firstMonth = flows[0];
  const lastMonth = flows[flows.length - 1];
  if (firstMonth && lastMonth) {
    const partial = flows.map((f) => partialMonth(f.month, limits, breaks));
    const anyPartial = partial.some((p) => p !== null);
    const what = limits.only
      ? `money ${limits.only.kept === 'Credit' ? 'in' : limits.only.kept === 'Debit' ? 'out' : 'in and out'} by month (partial: ${onlyText(limits.only.kept)})`
      : `money in and out by month${anyPartial ? ' (months marked partial are incomplete)' : ''}`;
    const title = `${name}: ${what}`;
    const description = `${flows.length} month(s) from ${firstMonth.month} to ${lastMonth.month}; in ${money(totals.inUnits, c)}, out ${money(totals.outUnits, c)} in all${anyPartial ? `; partial: ${flows.filter((_, i) => partial[i]).length} month(s)` : ''}${movedText ? `; ${movedText}` : ''}.`;
    const both = (size: 'wide' | 'narrow') =>
      flowsChart(
        flows,
        c,
        { id: chartId(`${id}-flow`, size), title, description },
        size,
        limits.only?.kept === 'Credit' || limits.only?.kept === 'Debit' ? limits.only.kept : null,
      );
    parts.push(
      figure(
        `${id}-flow`,
        title,
        description,
        [both('wide'), both('narrow')],
        ['Month', `Money in (${c})`, `Money out (${c})`, `Net (${c})`],
        flows.map((f, i) => [
          partial[i] ? `${f.month} (partial: ${partial[i]})` : f.month,
          money(f.inUnits, c),
          money(f.outUnits, c),
          money(f.inUnits + f.outUnits, c),
        ]),
      ),
    );
    count++;
  }
  if (count === 0) parts.push('<p>No booked transaction in the period.</p>');
  parts.push(categoryTable(section, name, id));
  parts.push(BACK_LINK, '</article>');
  return { html: parts.join('\n'), count };
}

/**
 * Spend by category per NZ month (docs/categories.md "The report"): categories as rows, months as
 * columns, booked debits only, own-account transfers left out; empty when the months hold no debit.
 */
function categoryTable(section: AccountSection, name: string, id: string): string {
  const { months, rows } = section.categories;
  const c = section.account.currency;
  if (rows.length === 0) return '';
  const first = months[0] ?? '';
  const last = months[months.length - 1] ?? '';
  const title = `${name}: spend by category per month, ${first} to ${last}`;
  // A month wholly before the consents' window started, or after it ended, was never read: its
  // spend is unknown, not 0.00.
  const { windowStart, windowEnded } = section.limits;
  const unread = months.map(
    (m) =>
      (windowStart !== null && m < windowStart.slice(0, 7)) || (windowEnded !== null && m > windowEnded.slice(0, 7)),
  );
  const description = `Booked debits by the category in v_transactions, own-account transfers (v_transfers) and suspected duplicates (v_duplicates) left out${unread.some(Boolean) ? "; a month outside the consents' window was not read" : ''}.`;
  return `<section class="categories" id="${id}-cat" aria-labelledby="${id}-cat-h">
<h4 id="${id}-cat-h">${esc(title)}</h4>
${table(
  ['Category', ...months.map((m) => `${m} (${c})`), `Total (${c})`],
  rows.map((r) => [
    r.category,
    ...r.cells.map((u, i) => (unread[i] ? UNREAD_MONTH : money(u, c))),
    money(r.totalUnits, c),
  ]),
  `${esc(title)}. ${esc(description)}`,
  undefined,
  `Table: ${title}`,
)}
</section>`;
}

const BACK_LINK = '<p class="back"><a href="#contents">Back to contents</a></p>';
const accountAnchor = (index: number) => `acct-${index}`;
const chartId = (id: string, size: 'wide' | 'narrow') => (size === 'wide' ? id : `${id}-n`);
/** The id of the breaks table's row for data.continuity[i]. */
const breakAnchor = (i: number) => `break-${i + 1}`;

interface AccountBreak {
  mark: BreakMark;
  from: string;
  to: string;
  dates: string;
  description: string;
}

/** The continuity findings of one account, numbered as in the breaks table. */
function accountBreaks(data: ReportData, section: AccountSection): AccountBreak[] {
  const out: AccountBreak[] = [];
  data.continuity.forEach((f, i) => {
    if (f.bank !== section.account.bank || f.account_id !== section.account.accountId) return;
    const dates = f.from_date === f.to_date ? f.from_date : `${f.from_date} to ${f.to_date}`;
    const amount = `${String(f.amount_text).replace(/^-/, '−')} ${f.currency}`;
    const description = `break ${i + 1}, ${dates}, off by ${amount} (${causeText(f.cause)})`;
    out.push({
      from: f.from_date,
      to: f.to_date,
      dates,
      description,
      mark: { from: f.from_date, to: f.to_date, href: `#${breakAnchor(i)}`, label: String(i + 1), description },
    });
  });
  return out;
}

const onlyText = (kept: NonNullable<AccountLimits['only']>['kept']) =>
  kept === 'Credit'
    ? 'credits only, no money out was read'
    : kept === 'Debit'
      ? 'debits only, no money in was read'
      : 'credits and debits read through separate consents';

/**
 * The balance points that are true, the chart's span, and the sentences that say what is left
 * out and why: nothing for an account read through credits-only or debits-only consents, or with
 * no balance the bank stated; only the days after the last break (a balance carried back across a
 * missing or doubled row is off by its amount); nothing after the consent's window ended.
 */
function trueBalances(
  section: AccountSection,
  breaks: AccountBreak[],
): { points: BalancePoint[]; span: { from: string; to: string }; caveats: string[] } {
  const { limits } = section;
  const caveats: string[] = [];
  let points = section.balances;
  const span = { from: points[0]?.date ?? '', to: points[points.length - 1]?.date ?? '' };
  for (const b of breaks) {
    if (b.from < span.from) span.from = b.from;
    if (b.to > span.to) span.to = b.to;
  }
  if (limits.only) {
    const consents = limits.only.consents.map((id) => `<code>${esc(id)}</code>`).join(', ');
    caveats.push(
      `No balance line: this account's transactions were read through consent ${consents}, which grants ${esc(onlyText(limits.only.kept))}, so a balance worked through the stored rows would be false. The money in and out below is partial for the same reason; <code>bankdata check</code> does not check this account.`,
    );
    points = [];
  } else if (points.length > 0 && !section.anchored) {
    caveats.push(
      'No balance line: the bank stated no booked balance and no running balance for this account, so the stored rows give movement but not a balance.',
    );
    points = [];
  }
  if (points.length > 0 && breaks.length > 0) {
    const cut = breaks.reduce((m, b) => (b.to > m ? b.to : m), '');
    points = points.filter((p) => p.date > cut);
    // The axis spans what is drawn: the kept points and the breaks, not the days cut before them.
    const [kept] = points;
    if (kept) span.from = breaks.reduce((m, b) => (b.from < m ? b.from : m), kept.date);
    const marked = `marked on the chart and linked to its row in the <a href="#continuity">breaks table</a>`;
    caveats.push(
      points.length > 0
        ? `The balance line starts after ${esc(cut)}: the check found ${breaks.length} break(s) up to that date (${marked}); a balance carried back across a break would be off by its amount.`
        : `No balance line: the check found ${breaks.length} break(s) up to ${esc(cut)}, the last day held (${marked}); a balance carried back across a break would be off by its amount.`,
    );
    if (points.length === 0 && breaks.length > 0) span.to = cut;
  }
  const ended = limits.windowEnded;
  if (ended) {
    points = points.filter((p) => p.date <= ended);
    caveats.push(
      `The consent's window ended on ${esc(ended)}: nothing after it was read, so the line and the bars stop there, and its month is partial.`,
    );
  }
  if (!limits.read && section.balances.length > 0)
    caveats.push("No consent has finished reading this account's transactions yet: the figures may be incomplete.");
  return { points, span, caveats };
}

/** Why a month's money in and out is incomplete, or null when it is whole. */
function partialMonth(month: string, limits: AccountLimits, breaks: AccountBreak[]): string | null {
  const why: string[] = [];
  if (limits.only)
    why.push(
      limits.only.kept === 'Credit'
        ? 'credits only'
        : limits.only.kept === 'Debit'
          ? 'debits only'
          : 'separate consents',
    );
  if (limits.windowStart && limits.windowStart.slice(0, 7) === month && !limits.windowStart.endsWith('-01'))
    why.push(`window starts ${limits.windowStart}`);
  if (limits.windowEnded && limits.windowEnded.slice(0, 7) === month) why.push(`window ended ${limits.windowEnded}`);
  for (const b of breaks)
    if (b.from.slice(0, 7) <= month && month <= b.to.slice(0, 7)) why.push(`break ${b.mark.label}`);
  return why.length ? why.join(', ') : null;
}

function figure(
  id: string,
  title: string,
  description: string,
  [wide, narrow]: [string, string],
  head: string[],
  rows: string[][],
  after = '',
): string {
  return `<figure class="chart-figure" aria-labelledby="${id}-cap">
<figcaption id="${id}-cap">${esc(title)}</figcaption>
${wide}
${narrow}
${after}<details><summary>Table of the figures: ${esc(title)}</summary>
${table(head, rows, `${esc(title)}. ${esc(description)}`)}
</details>
</figure>`;
}

const NUMERIC = /^−?[\d,]+(\.\d+)?( [A-Z]{3})?$/;
/** A month of a figures column that no consent's window covered (categoryTable): kept on one line, aligned as the figures. */
const UNREAD_MONTH = 'not read';
const IDENTIFIER = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A table; a column whose every filled cell is a number or an amount is right-aligned, header included. */
/** `label` names the table's scrolling region (default "Table: " and its head); a table repeated per account names its account. */
function table(
  head: string[],
  rows: (string | number | null)[][],
  caption?: string,
  rowIds?: string[],
  label = `Table: ${head.join(', ')}`,
): string {
  const text = (v: string | number | null) => (v === null ? '' : String(v));
  const numeric = head.map((_, i) => {
    const cells = rows.map((r) => text(r[i] ?? null)).filter((t) => t !== '');
    return cells.length > 0 && cells.every((t) => NUMERIC.test(t) || t === UNREAD_MONTH);
  });
  // Columns of long text (a run's failures, a break's detail) wrap at a set width; the others keep
  // their cells on one line, and a table wider than the page scrolls in its wrapper.
  const long = head.map((_, i) =>
    rows.some((r) => text(r[i] ?? null).length > 40 && !IDENTIFIER.test(text(r[i] ?? null))),
  );
  const cell = (v: string | number | null, i: number) => {
    const t = text(v);
    const classes = [
      long[i] ? 'long' : '',
      numeric[i] ? 'num' : '',
      numeric[i] && t.startsWith('−') ? 'neg' : '',
      IDENTIFIER.test(t) ? 'id' : '',
    ].filter(Boolean);
    return `<td${classes.length ? ` class="${classes.join(' ')}"` : ''}>${esc(t)}</td>`;
  };
  // A region that may scroll sideways (on a narrow screen) is reachable by keyboard, and named.
  return `<div class="table-wrap" tabindex="0" role="region" aria-label="${escapeXml(label)}"><table>${caption ? `<caption>${caption}</caption>` : ''}
<thead><tr>${head.map((h, i) => `<th scope="col"${numeric[i] ? ' class="num"' : ''}>${esc(h)}</th>`).join('')}</tr></thead>
<tbody>${rows.map((r, i) => `<tr${rowIds?.[i] ? ` id="${rowIds[i]}"` : ''}>${r.map(cell).join('')}</tr>`).join('\n')}</tbody></table></div>`;
}

/** What the report calls an account: its nickname, else the bank's description, else its id (then not written twice). */
function accountName(account: AccountSection['account']): string {
  return account.nickname ?? account.description ?? account.accountId;
}

/** The contents' list of accounts: one link per account section, in the page's order. */
function accountContents(data: ReportData): string {
  if (data.accounts.length === 0) return '';
  const items = data.accounts.map((section, i) => {
    const name = accountName(section.account);
    const idText = name === section.account.accountId ? '' : `${esc(section.account.accountId)} · `;
    return `<li><a href="#${accountAnchor(i)}">${esc(name)}</a> <span class="muted">${idText}${esc(section.account.currency)}</span></li>`;
  });
  return `\n<ul class="toc-accounts">\n${items.join('\n')}\n</ul>`;
}

function renderConsents(data: ReportData): string {
  // A consent never read (no status yet): its window and expiry are unknown, not open or absent.
  const rows = data.consents.map((c) => [
    c.consent_id,
    c.bank,
    c.status === null ? NOT_READ : consentStatusText(c),
    c.status === null
      ? NOT_READ
      : `${nzDateTime(c.start_date_time).slice(0, 10) || '…'} to ${nzDateTime(c.end_date_time).slice(0, 10) || 'open'}`,
    c.status === null ? NOT_READ : expiry(c.expiration_date_time, c.days_to_expiry),
    c.last_synced_at ? `${nzDateTime(c.last_synced_at)} (${c.last_outcome ?? ''})` : 'never',
  ]);
  return `<section id="consents" aria-labelledby="consents-h"><h2 id="consents-h">Consents</h2>
${rows.length ? table(['Consent', 'Bank', 'Status', 'Window (NZ dates)', 'Expires', 'Last sync'], rows) : '<p>No consent registered.</p>'}
${BACK_LINK}
</section>`;
}

const NOT_READ = 'not read yet';

/** A consent's status, and why it ended when the status does not say so (BDT409 leaves it Authorised). */
function consentStatusText(c: ReportData['consents'][number]): string | null {
  const ended = consentEnded({ endedReason: c.ended_reason, status: c.status });
  return ended === null || ended === c.status ? c.status : `${c.status ?? 'unread'}, ended (${ended})`;
}

function expiry(at: string | null, days: number | null): string {
  if (!at) return 'none';
  const date = nzDateTime(at).slice(0, 10);
  if (days === null) return date;
  return days < 0 ? `${date} (expired ${-days} day(s) ago)` : `${date} (in ${days} day(s))`;
}

function renderRuns(data: ReportData): string {
  const rows = data.runs.map((r) => [
    nzDateTime(r.started_at),
    jobName(r.job),
    r.outcome ?? 'running',
    r.consents,
    r.requests,
    r.rows_written,
    r.failed_units,
    r.error_summary ? r.error_summary.slice(0, 240) : '',
  ]);
  return `<section id="runs" aria-labelledby="runs-h"><h2 id="runs-h">Last runs</h2>
${rows.length ? table(['Started (NZ)', 'Job', 'Outcome', 'Consents', 'Requests', 'Rows written', 'Failed units', 'Failures'], rows) : '<p>No run yet.</p>'}
${BACK_LINK}
</section>`;
}

/**
 * Whether a check can have judged the accounts: none is stored (nothing to check), or no sync is
 * recorded (the check runs as each sync's last step) and no finding either. "No break" is said only
 * after one; before, the report says "not checked yet".
 */
function continuityChecked(data: ReportData): boolean {
  if (data.continuity.length > 0) return true;
  return data.accounts.length > 0 && data.lastSync !== null;
}

function renderContinuity(data: ReportData): string {
  const rows = data.continuity.map((f, i) => {
    const amount = String(f['amount_text']);
    return [
      String(i + 1),
      `${String(f['bank'])} ${String(f['account_id'])}`,
      f['kind'] === 'balances' ? 'between balances' : 'running balance',
      `${String(f['from_date'])} to ${String(f['to_date'])}`,
      `${amount.replace(/^-/, '−')} ${String(f['currency'])}`,
      causeText(String(f['cause'])),
      String(f['detail']),
    ];
  });
  const body = rows.length
    ? `<p>The latest check found ${rows.length} break(s): places where the booked balances and the booked transactions stop adding up (bankdata check).</p>${table(
        ['Break', 'Account', 'Where', 'NZ dates', 'Off by', 'Likely cause', 'Detail'],
        rows,
        undefined,
        rows.map((_, i) => breakAnchor(i)),
      )}`
    : continuityChecked(data)
      ? "<p>No break: at the last check every account's booked balances and booked transactions added up.</p>"
      : `<p>Not checked yet: ${data.accounts.length === 0 ? 'no account is stored' : 'no sync is recorded'}, so no check has run (each <code>bankdata sync</code> checks the accounts it read as its last step; <code>bankdata check</code> checks them all).</p>`;
  return `<section id="continuity" aria-labelledby="continuity-h"><h2 id="continuity-h">Continuity</h2>\n${body}\n${BACK_LINK}\n</section>`;
}

function renderPayments(data: ReportData): string {
  const p = data.payments;
  if (!p) return '';
  return `<section id="payments" aria-labelledby="payments-h"><h2 id="payments-h">Payments reconciliation</h2>
${table(['Payments', 'Settled', 'Matched to a bank credit', 'Settled, unmatched', 'Ambiguous'], [[p.count, p.settled, p.matched, p.unmatched, p.ambiguous]])}
${BACK_LINK}
</section>`;
}

/** A run's job (job_runs), or `sync` for a sync started from the command line. */
function jobName(job: string | null): string {
  return job ?? 'sync';
}

function outcomeBadge(outcome: string | null): string {
  const o = outcome ?? 'running';
  return `<span class="badge ${o === 'ok' ? 'ok' : o === 'partial' ? 'warn' : 'bad'}">${esc(o)}</span>`;
}

const CSS = `
:root{color-scheme:light;--fg:#1f2933;--muted:#52606d;--line:#d0d5dd;--bg:#fff;--panel:#f5f7fa;--accent:#1d4f91}
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
header,main,footer,nav{max-width:1000px;margin:0 auto;padding:0 20px}
header{padding-top:24px}
h1{font-size:1.8rem;margin:0 0 4px}
h2{font-size:1.35rem;margin:32px 0 12px;padding-bottom:4px;border-bottom:2px solid var(--line)}
h3{font-size:1.1rem;margin:0 0 4px}
.muted,.small{color:var(--muted);font-weight:normal;font-size:.9em}
nav{margin-top:8px}
nav h2{font-size:1rem;margin:8px 0 0;padding:0;border:0}
nav>ul{list-style:none;display:flex;flex-wrap:wrap;gap:4px 16px;padding:8px 0;margin:4px 0 0;border-top:1px solid var(--line);border-bottom:1px solid var(--line)}
nav ul.toc-accounts{list-style:none;flex-basis:100%;margin:2px 0 0;padding:0 0 0 12px;columns:2 280px;column-gap:16px}
nav ul.toc-accounts li{break-inside:avoid}
nav>ul>li:nth-child(2){flex-basis:100%}
.back{margin:6px 0 0;font-size:.9rem}
.caveat{border-left:4px solid #b7791f;background:#fff8e6;padding:6px 12px;margin:6px 0 10px}
.caveat p{margin:4px 0}
.break-links{margin:2px 0 4px;font-size:.9rem}
a{color:var(--accent)}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(170px,1fr));gap:12px;margin:0}
.cards div{background:var(--panel);border:1px solid var(--line);border-radius:8px;padding:10px 14px}
.cards dt{color:var(--muted);font-size:.85rem}
.cards dd{margin:2px 0 0;font-size:1.3rem;font-weight:600}
.badge{display:inline-block;padding:0 8px;border-radius:10px;font-size:.9rem;font-weight:600}
.badge.none{background:#e4e7eb;color:#1f2933}.badge.ok{background:#e3f4e8;color:#14532d}.badge.warn{background:#fff4d6;color:#6b4500}.badge.bad{background:#fde4e2;color:#8a1c14}
.account{border:1px solid var(--line);border-radius:10px;padding:14px 16px;margin:0 0 18px;break-inside:avoid}
.facts{margin:0 0 8px;color:var(--muted)}
figure{margin:8px 0 12px}
figcaption{font-weight:600;margin-bottom:2px}
svg.chart{display:block;width:100%;height:auto}
.chart-box{position:relative}
.chart-box[data-size="wide"] svg.chart{aspect-ratio:760/280}
.chart-box[data-size="narrow"]{display:none;max-width:480px}
.chart-box[data-size="narrow"] svg.chart{aspect-ratio:320/240}
a.break-mark{position:absolute;display:block;border-radius:3px}
a.break-mark:focus-visible,a.break-mark:hover{outline:3px solid var(--accent);outline-offset:1px}
@media (max-width:600px){.chart-box[data-size="wide"]{display:none}.chart-box[data-size="narrow"]{display:block}header,main,footer,nav{padding:0 12px}.account{padding:10px}
.table-wrap table{width:max-content;min-width:100%}.table-wrap td:not(.long),.table-wrap th{white-space:nowrap}td.long{min-width:16em;max-width:22em}.table-wrap caption{max-width:calc(100vw - 60px)}}
details{margin-top:4px}
summary{cursor:pointer;color:var(--accent)}
.table-wrap{overflow-x:auto}
.table-wrap:focus-visible{outline:2px solid var(--accent)}
table{border-collapse:collapse;width:100%;margin:6px 0;font-size:.9rem}
caption{text-align:left;color:var(--muted);padding:4px 0}
th,td{border-bottom:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
th{background:var(--panel)}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.id{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.85em;white-space:nowrap}
.when{display:block;font-size:.85rem;font-weight:normal;color:var(--muted)}
td.neg{color:#8a1c14}
code{font-size:.9em;word-break:break-all}
footer{color:var(--muted);font-size:.85rem;padding-top:16px;padding-bottom:32px}
@media print{nav,summary,.back{display:none}body{font-size:11pt}.account{page-break-inside:avoid}a{color:inherit;text-decoration:none}}
`;
