/**
 * The report's one HTML file: inline CSS, inline SVG charts, no script and no network, so it
 * opens from disk, prints, and reads with a screen reader (landmarks, headings, a caption and a
 * table of the exact figures for every chart). Every value from the database passes `esc`.
 */
import { balanceChart, escapeXml, flowsChart, isBidiSensitive, isolateBidi, money, withoutStrayPdi } from './charts';
import { nzDateTime, type AccountSection, type ReportData } from './build-report';
import { causeText } from '../check/continuity';

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
      const { html, count } = renderAccount(section, i);
      charts += count;
      return html;
    })
    .join('\n');
  const period =
    data.from || data.to ? `${data.from ?? 'the first row'} to ${data.to ?? 'the last row'}` : 'all rows held';
  const breaks = data.continuity.length;
  const lastRun = data.runs[0];
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
<nav aria-label="Contents"><ul>
<li><a href="#summary">Summary</a></li><li><a href="#accounts">Accounts</a></li><li><a href="#consents">Consents</a></li>
<li><a href="#runs">Last runs</a></li><li><a href="#continuity">Continuity</a></li>${data.payments ? '<li><a href="#payments">Payments</a></li>' : ''}
</ul></nav>
<main>
<section id="summary" aria-labelledby="summary-h"><h2 id="summary-h">Summary</h2>
<dl class="cards">
<div><dt>Accounts</dt><dd>${data.accounts.length}</dd></div>
<div><dt>Consents</dt><dd>${data.consents.length}</dd></div>
<div><dt>Last run</dt><dd>${lastRun ? `${outcomeBadge(lastRun.outcome)}<span class="when">${esc(nzDateTime(lastRun.started_at))} NZ</span>` : 'none yet'}</dd></div>
<div><dt>Continuity breaks</dt><dd>${breaks === 0 ? '<span class="badge ok">none</span>' : `<span class="badge bad">${breaks}</span>`}</dd></div>
${data.payments ? `<div><dt>Payments reconciled</dt><dd>${data.payments.matched} of ${data.payments.settled} settled</dd></div>` : ''}
</dl>
</section>
<section id="accounts" aria-labelledby="accounts-h"><h2 id="accounts-h">Accounts</h2>
${accountHtml || '<p>No account in the database yet (bankdata sync).</p>'}
</section>
${renderConsents(data)}
${renderRuns(data)}
${renderContinuity(data)}
${renderPayments(data)}
</main>
<footer><p>Balances are booked balances; available balances (which count pending rows and credit lines) are not drawn. A balance line is the latest booked balance the bank stated, carried back through the booked transactions.</p></footer>
</body>
</html>
`;
  return { html, charts };
}

function renderAccount(section: AccountSection, index: number): { html: string; count: number } {
  const { account, balances, flows, totals } = section;
  const c = account.currency;
  // The bank's text inside sentences of ours (chart titles, also in SVG, where <bdi> cannot go).
  const name = isolateBidi(account.nickname ?? account.accountId);
  const id = `acct-${index}`;
  const kind = [account.accountType, account.accountSubtype].filter(Boolean).join(', ');
  const latest = balances[balances.length - 1];
  const parts: string[] = [];
  let count = 0;
  parts.push(`<article class="account" aria-labelledby="${id}-h">
<h3 id="${id}-h">${esc(name)} <span class="muted">${esc(account.bank)} · ${esc(account.accountId)} · ${esc(c)}</span></h3>
<p class="facts">${esc(kind)}${latest ? ` · balance ${section.anchored ? '' : '(movement, no balance held) '}${esc(money(latest.units, c))} on ${esc(latest.date)}` : ''} · in ${esc(money(totals.inUnits, c))} · out ${esc(money(totals.outUnits, c))}</p>`);
  const first = balances[0];
  if (first && latest) {
    const low = balances.reduce((a, b) => (b.units < a.units ? b : a));
    const high = balances.reduce((a, b) => (b.units > a.units ? b : a));
    const title = `${name}: balance at each day's end, ${first.date} to ${latest.date}`;
    const description = `From ${money(first.units, c)} on ${first.date} to ${money(latest.units, c)} on ${latest.date}; lowest ${money(low.units, c)} on ${low.date}, highest ${money(high.units, c)} on ${high.date}.`;
    const monthEnds = new Map<string, (typeof balances)[number]>();
    for (const b of balances) monthEnds.set(b.date.slice(0, 7), b);
    parts.push(
      figure(
        `${id}-bal`,
        title,
        description,
        balanceChart(balances, c, { id: `${id}-bal`, title, description }),
        ['Month', `Balance at the month's last movement (${c})`, 'On'],
        [...monthEnds.entries()].map(([m, b]) => [m, money(b.units, c), b.date]),
      ),
    );
    count++;
  }
  const firstMonth = flows[0];
  const lastMonth = flows[flows.length - 1];
  if (firstMonth && lastMonth) {
    const title = `${name}: money in and out by month`;
    const description = `${flows.length} month(s) from ${firstMonth.month} to ${lastMonth.month}; in ${money(totals.inUnits, c)}, out ${money(totals.outUnits, c)} in all.`;
    parts.push(
      figure(
        `${id}-flow`,
        title,
        description,
        flowsChart(flows, c, { id: `${id}-flow`, title, description }),
        ['Month', `Money in (${c})`, `Money out (${c})`, `Net (${c})`],
        flows.map((f) => [f.month, money(f.inUnits, c), money(f.outUnits, c), money(f.inUnits + f.outUnits, c)]),
      ),
    );
    count++;
  }
  if (count === 0) parts.push('<p>No booked transaction in the period.</p>');
  parts.push('</article>');
  return { html: parts.join('\n'), count };
}

function figure(id: string, title: string, description: string, svg: string, head: string[], rows: string[][]): string {
  return `<figure class="chart-figure" aria-labelledby="${id}-cap">
<figcaption id="${id}-cap">${esc(title)}</figcaption>
${svg}
<details><summary>Table of the figures: ${esc(title)}</summary>
${table(head, rows, `${esc(title)}. ${esc(description)}`)}
</details>
</figure>`;
}

const NUMERIC = /^−?[\d,]+(\.\d+)?( [A-Z]{3})?$/;
const IDENTIFIER = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A table; a column whose every filled cell is a number or an amount is right-aligned, header included. */
function table(head: string[], rows: (string | number | null)[][], caption?: string): string {
  const text = (v: string | number | null) => (v === null ? '' : String(v));
  const numeric = head.map((_, i) => {
    const cells = rows.map((r) => text(r[i] ?? null)).filter((t) => t !== '');
    return cells.length > 0 && cells.every((t) => NUMERIC.test(t));
  });
  const cell = (v: string | number | null, i: number) => {
    const t = text(v);
    const classes = [
      numeric[i] ? 'num' : '',
      numeric[i] && t.startsWith('−') ? 'neg' : '',
      IDENTIFIER.test(t) ? 'id' : '',
    ].filter(Boolean);
    return `<td${classes.length ? ` class="${classes.join(' ')}"` : ''}>${esc(t)}</td>`;
  };
  return `<div class="table-wrap"><table>${caption ? `<caption>${caption}</caption>` : ''}
<thead><tr>${head.map((h, i) => `<th scope="col"${numeric[i] ? ' class="num"' : ''}>${esc(h)}</th>`).join('')}</tr></thead>
<tbody>${rows.map((r) => `<tr>${r.map(cell).join('')}</tr>`).join('\n')}</tbody></table></div>`;
}

function renderConsents(data: ReportData): string {
  const rows = data.consents.map((c) => [
    c.consent_id,
    c.bank,
    c.status,
    `${nzDateTime(c.start_date_time).slice(0, 10) || '…'} to ${nzDateTime(c.end_date_time).slice(0, 10) || 'open'}`,
    expiry(c.expiration_date_time, c.days_to_expiry),
    c.last_synced_at ? `${nzDateTime(c.last_synced_at)} (${c.last_outcome ?? ''})` : 'never',
  ]);
  return `<section id="consents" aria-labelledby="consents-h"><h2 id="consents-h">Consents</h2>
${rows.length ? table(['Consent', 'Bank', 'Status', 'Window (NZ dates)', 'Expires', 'Last sync'], rows) : '<p>No consent registered.</p>'}
</section>`;
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
    r.outcome ?? 'running',
    r.consents,
    r.requests,
    r.rows_written,
    r.failed_units,
    r.error_summary ? r.error_summary.slice(0, 240) : '',
  ]);
  return `<section id="runs" aria-labelledby="runs-h"><h2 id="runs-h">Last runs</h2>
${rows.length ? table(['Started (NZ)', 'Outcome', 'Consents', 'Requests', 'Rows written', 'Failed units', 'Failures'], rows) : '<p>No sync run yet.</p>'}
</section>`;
}

function renderContinuity(data: ReportData): string {
  const rows = data.continuity.map((f) => {
    const amount = String(f['amount_text']);
    return [
      `${String(f['bank'])} ${String(f['account_id'])}`,
      f['kind'] === 'balances' ? 'between balances' : 'running balance',
      `${String(f['from_date'])} to ${String(f['to_date'])}`,
      `${amount.replace(/^-/, '−')} ${String(f['currency'])}`,
      causeText(String(f['cause'])),
      String(f['detail']),
    ];
  });
  const body = rows.length
    ? `<p>The latest check found ${rows.length} break(s): places where the booked balances and the booked transactions stop adding up (bankdata check).</p>${table(['Account', 'Where', 'NZ dates', 'Off by', 'Likely cause', 'Detail'], rows)}`
    : "<p>No break: at the last check every account's booked balances and booked transactions added up.</p>";
  return `<section id="continuity" aria-labelledby="continuity-h"><h2 id="continuity-h">Continuity</h2>\n${body}\n</section>`;
}

function renderPayments(data: ReportData): string {
  const p = data.payments;
  if (!p) return '';
  return `<section id="payments" aria-labelledby="payments-h"><h2 id="payments-h">Payments reconciliation</h2>
${table(['Payments', 'Settled', 'Matched to a bank credit', 'Settled, unmatched', 'Ambiguous'], [[p.count, p.settled, p.matched, p.unmatched, p.ambiguous]])}
</section>`;
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
nav ul{list-style:none;display:flex;flex-wrap:wrap;gap:4px 16px;padding:8px 0;margin:8px 0 0;border-top:1px solid var(--line);border-bottom:1px solid var(--line)}
a{color:var(--accent)}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(170px,1fr));gap:12px;margin:0}
.cards div{background:var(--panel);border:1px solid var(--line);border-radius:8px;padding:10px 14px}
.cards dt{color:var(--muted);font-size:.85rem}
.cards dd{margin:2px 0 0;font-size:1.3rem;font-weight:600}
.badge{display:inline-block;padding:0 8px;border-radius:10px;font-size:.9rem;font-weight:600}
.badge.ok{background:#e3f4e8;color:#14532d}.badge.warn{background:#fff4d6;color:#6b4500}.badge.bad{background:#fde4e2;color:#8a1c14}
.account{border:1px solid var(--line);border-radius:10px;padding:14px 16px;margin:0 0 18px;break-inside:avoid}
.facts{margin:0 0 8px;color:var(--muted)}
figure{margin:8px 0 12px}
figcaption{font-weight:600;margin-bottom:2px}
svg.chart{display:block;width:100%;height:auto;aspect-ratio:760/280}
details{margin-top:4px}
summary{cursor:pointer;color:var(--accent)}
.table-wrap{overflow-x:auto}
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
@media print{nav,summary{display:none}body{font-size:11pt}.account{page-break-inside:avoid}a{color:inherit;text-decoration:none}}
`;
