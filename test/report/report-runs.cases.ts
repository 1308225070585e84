/**
 * The report's runs (src/report/html.ts): a killed run is interrupted as `status` shows it, not
 * "running" forever, and the Summary's "Last run" is the latest sync, not whichever job ran last.
 * Run by report-runs.test.ts and report-runs.pg.test.ts.
 */
import { expect, it } from 'vitest';
import { buildReport } from '../../src/report/build-report';
import { storeSuite } from '../support/dialects';
import { failedSyncThenExpiryCheck } from '../fixtures/planted-runs';

const lastRunCard = (html: string) => /<dt>Last run<\/dt><dd>(.*?)<\/dd>/.exec(html)?.[1] ?? '';

export const reportRunsSuite = storeSuite('the report’s runs', (d) => {
  it('shows a killed run (no end, no lease) as interrupted, in its runs table and its Summary', async () => {
    const store = await d.open();
    await store.runs.start({ now: new Date(Date.now() - 60_000) });
    const { data, html } = await buildReport(store);
    expect(data.runs[0]?.outcome).toBe('interrupted');
    expect(data.lastSync?.outcome).toBe('interrupted');
    expect(html).not.toContain('<span class="badge bad">running</span>');
    expect(html).not.toContain('<td>running</td>');
    expect(lastRunCard(html)).toContain('<span class="badge bad">interrupted</span>');
  });

  it("a failed nightly sync followed by the 08:00 expiry check: 'Last run' is the failed sync, the runs table names each job", async () => {
    const store = await d.open();
    await failedSyncThenExpiryCheck(store, { syncJob: 'nightly-sync' });
    const { data, html } = await buildReport(store);
    const card = lastRunCard(html);
    expect(card).not.toContain('badge ok');
    expect(card).toContain('<span class="badge bad">failed</span>');
    expect(card).toContain('nightly-sync');
    expect(data.runs.map((r) => [r.job, r.outcome])).toEqual([
      ['expiry-check', 'ok'],
      ['nightly-sync', 'failed'],
    ]);
    expect(html).toContain('<td>expiry-check</td>');
  });

  it("a sync from the command line is the Summary's 'Last run'; only other jobs ran: no sync yet", async () => {
    const store = await d.open();
    const t = Date.now() - 3_600_000;
    const expiry = await store.runs.start({ now: new Date(t) });
    await store.runs.recordJob(expiry, 'expiry-check', new Date(t));
    await store.runs.finish(
      expiry,
      { outcome: 'ok', consents: 0, requests: 3, rowsWritten: 0, failedUnits: 0, errorSummary: null },
      new Date(t + 1_000),
    );
    expect(lastRunCard((await buildReport(store)).html)).toBe('no sync yet');
    const sync = await store.runs.start({ now: new Date(t - 60_000) });
    await store.runs.finish(
      sync,
      { outcome: 'partial', consents: 2, requests: 9, rowsWritten: 4, failedUnits: 1, errorSummary: null },
      new Date(t - 30_000),
    );
    expect(lastRunCard((await buildReport(store)).html)).toContain('<span class="badge warn">partial</span>');
  });
});
