/**
 * A consent never read (its status, window and expiry unknown, not absent) in `bankdata status`
 * and the report; and whether a consent has ended, one rule (src/store/consent-state.ts) read by `bankdata status`,
 * `consents list|show` and the report: a code such as BDT409 ends a consent whose status stays
 * Authorised (src/sync/consent.ts `consentError`), and `consents list|show` say so whatever the
 * live read answered. Run by status-consents.test.ts and status-consents.pg.test.ts.
 */
import { DateTime } from 'luxon';
import { expect, it } from 'vitest';
import type { ConsentId } from '@bankdata/core/schemas';
import { consentView, formatConsentDetail, formatConsentTable } from '../../src/cli/consents-view';
import { formatStatus, readStatus } from '../../src/cli/status';
import { gatherReport } from '../../src/report/build-report';
import { renderReport } from '../../src/report/html';
import type { Store } from '../../src/store';
import { account } from '../check/check-sql.cases';
import { authorisedRecord } from '../store/helpers';
import { execute, storeSuite } from '../support/dialects';

const ID = '0f6c2c3e-1b1a-4c7d-9d1e-2a3b4c5d6e7f' as ConsentId;
const LAST_SYNC = '2026-01-20T01:00:00.000Z'; // 20 Jan 2026, 14:00 in NZ

/** Registered, read Authorised, expiring in 10 NZ days, synced once: then the bank ends it with BDT409. */
async function endedByCode(store: Store): Promise<void> {
  await store.consents.add(ID);
  const expires = DateTime.now().setZone('Pacific/Auckland').plus({ days: 10 }).startOf('day').toISO()!;
  await store.consents.recordStatus(
    authorisedRecord({
      consent_id: ID,
      creation_date_time: '2026-01-10T09:00:00+13:00',
      status_update_date_time: '2026-01-10T09:05:00+13:00',
      start_date_time: '2026-01-10T00:00:00+13:00',
      expiration_date_time: expires,
    }),
  );
  await execute(store, 'UPDATE consents SET last_synced_at = ? WHERE consent_id = ?', LAST_SYNC, ID);
  await store.consents.markEnded(ID, 'BDT409', new Date());
}

export const statusConsentsSuite = storeSuite('a consent the bank ended with a code', (d) => {
  it('status: listed under "ended" with its code (not as "Authorised"), not as expiring; --json carries the reason', async () => {
    const store = await d.open();
    await endedByCode(store);
    const report = await readStatus(store, 14);
    const text = formatStatus(report, 14);
    expect(report.consents.map((c) => c.status)).toEqual(['Authorised']); // the bank's status is kept
    expect(report.needsReconsent.map((c) => [c.consent_id, c.ended])).toEqual([[ID, 'BDT409']]);
    expect(report.nearExpiry).toEqual([]);
    expect(text).toContain(`ended (a new consent is needed):\n  ${ID} PNZ: BDT409\n`);
    expect(text).not.toMatch(new RegExp(`${ID} PNZ: Authorised`));
    expect(text).not.toContain('expiring within');
    const json = JSON.parse(JSON.stringify(report)) as StatusJson;
    expect(json.needsReconsent[0]).toMatchObject({ ended: 'BDT409', ended_reason: 'BDT409' });
  });

  it('consents list says the same: ended (BDT409), not expiring soon', async () => {
    const store = await d.open();
    await endedByCode(store);
    const view = await consentView(store, ID, null, 14);
    expect({ ended: view.ended, expiring_soon: view.expiring_soon }).toEqual({ ended: 'BDT409', expiring_soon: false });
  });

  it('consents list and show after the live read answered the code: ended (BDT409), as status lists it, never a failed read', async () => {
    const store = await d.open();
    await endedByCode(store);
    // The read refreshConsentStatuses returns when the bank answers the code (and records it ended).
    const message = `BDT409: consent can no longer be used (rejected), 403 BDT409 on /v1/consents/${ID}`;
    const view = await consentView(store, ID, { consentId: ID, status: null, error: { code: 'BDT409', message } }, 14);
    const row = formatConsentTable([view], 14)
      .split('\n')
      .find((line) => line.startsWith(ID));
    expect(row).toMatch(/ended \(BDT409\): not synced; a new consent is needed$/);
    expect(row).not.toContain('live read failed');
    const detail = formatConsentDetail(view);
    expect(detail).toContain('synced       no: ended (BDT409)');
    expect(detail).toContain(`live read    answered ended: ${message}`);
    expect(detail).not.toMatch(/live read +failed/);
  });

  it('consents list: an Authorised consent past its expiration whose live read failed is noted expired, as status lists it', async () => {
    const store = await d.open();
    await store.consents.add(ID);
    const expired = DateTime.now().setZone('Pacific/Auckland').minus({ days: 3 }).startOf('day').toISO()!;
    await store.consents.recordStatus(authorisedRecord({ consent_id: ID, expiration_date_time: expired }));
    expect(formatStatus(await readStatus(store, 14), 14)).toMatch(
      new RegExp(`ended \\(a new consent is needed\\):\n  ${ID} PNZ: expired 3 days ago`),
    );
    const unreachable = { code: 'unreachable', message: 'the service could not be reached' };
    const view = await consentView(store, ID, { consentId: ID, status: null, error: unreachable }, 14);
    const row = formatConsentTable([view], 14)
      .split('\n')
      .find((line) => line.startsWith(ID));
    expect(row).toMatch(/Authorised\* .* expired 3 days ago: a new consent is needed$/);
    // The read that failed is still said: the status marked as last stored, and in `show`.
    expect(formatConsentDetail(view)).toContain('live read    failed: unreachable');
  });

  it("the report: the consent's window ended at its last sync, and its status names the code", async () => {
    const store = await d.open();
    await endedByCode(store);
    await account(store, 'acc', [], { consent: ID });
    const data = await gatherReport(store, { now: new Date(LAST_SYNC) });
    expect(data.accounts.map((a) => a.limits.windowEnded)).toEqual(['2026-01-20']);
    expect(renderReport(data).html).toContain('Authorised, ended (BDT409)');
  });

  it('registered again: neither command calls it ended (its last outcome stays "ended" until it is synced)', async () => {
    const store = await d.open();
    await endedByCode(store);
    expect(await store.consents.add(ID)).toBe('re-registered');
    const report = await readStatus(store, 14);
    expect(report.needsReconsent).toEqual([]);
    expect(report.nearExpiry.map((c) => c.consent_id)).toEqual([ID]);
    const view = await consentView(store, ID, null, 14);
    expect({ ended: view.ended, expiring_soon: view.expiring_soon }).toEqual({ ended: null, expiring_soon: true });
  });

  it('a consent registered and never read: its expiry is "not read yet" in status and the report, never "no expiry" or an open window', async () => {
    const store = await d.open();
    await store.consents.add(ID);
    const text = formatStatus(await readStatus(store, 14), 14);
    const row = text.split('\n').find((line) => line.includes(ID));
    expect(row).toMatch(/unread\s+not read yet\s/);
    expect(text).not.toContain('no expiry');
    const { html } = renderReport(await gatherReport(store, { now: new Date(LAST_SYNC) }));
    const consents = html.slice(
      html.indexOf('<section id="consents"'),
      html.indexOf('</section>', html.indexOf('<section id="consents"')),
    );
    const cells = [...consents.matchAll(/<td[^>]*>([^<]*)<\/td>/g)].map((m) => m[1]);
    expect(cells).toEqual([ID, '', 'not read yet', 'not read yet', 'not read yet', 'never']);
  });
});

interface StatusJson {
  needsReconsent: Record<string, unknown>[];
}
