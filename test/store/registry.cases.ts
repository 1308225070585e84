import { describe, expect, it } from 'vitest';
import { queryRow, queryRows, storeSuite } from '../support/dialects';
import { BankMeta, Consent } from '@bankdata/core/schemas';
import { BANK, CONSENT, OTHER_CONSENT, freshStoreOn } from './helpers';

const authorised = Consent.parse({
  consent_id: CONSENT,
  status: 'Authorised',
  creation_date_time: '2025-03-05T10:01:12+13:00',
  status_update_date_time: '2025-03-05T10:03:40+13:00',
  flow: {
    detail: { type: 'redirect', redirect_uri: 'https://app.example.nz/consent/return' },
    flow_hint: { type: 'redirect', bank: 'PNZ' },
  },
  permissions: ['ReadAccountsDetail', 'ReadBalances', 'ReadTransactionsDetail'],
  start_date_time: '2024-03-05T00:00:00+13:00',
  end_date_time: '2026-03-05T00:00:00+13:00',
  expiration_date_time: '2026-03-05T23:59:59+13:00',
});

export const registrySuite = storeSuite('the consent registry, runs and sync state', (d) => {
  describe('consent registry', () => {
    it('adds idempotently and re-registers an ended consent, which is synced again from then on', async () => {
      const store = await freshStoreOn(d);
      expect(await store.consents.add(CONSENT)).toBe('already-registered');
      await store.consents.markEnded(CONSENT, 'BDT410', '2025-03-06T00:00:00Z');
      expect((await store.consents.list({ active: true })).map((c) => c.consentId)).toEqual([OTHER_CONSENT]);
      expect(await store.consents.get(CONSENT)).toMatchObject({ endedReason: 'BDT410', lastOutcome: 'ended' });
      expect(await store.consents.add(CONSENT, '2025-03-07T00:00:00Z')).toBe('re-registered');
      expect(await store.consents.get(CONSENT)).toMatchObject({
        endedAt: null,
        endedReason: null,
        registeredAt: '2025-03-07T00:00:00.000Z',
      });
      expect(await store.consents.list({ active: true })).toHaveLength(2);
    });

    it('records the consent read: bank, status, permissions, UTC dates, NZ expiry date and raw JSON', async () => {
      const store = await freshStoreOn(d);
      await store.consents.recordStatus(authorised, { raw: { ...authorised, extra: 1 } });
      expect(await store.consents.get(CONSENT)).toMatchObject({
        bank: 'PNZ',
        status: 'Authorised',
        permissions: ['ReadAccountsDetail', 'ReadBalances', 'ReadTransactionsDetail'],
        startDateTime: '2024-03-04T11:00:00.000Z',
        expirationDateTime: '2026-03-05T10:59:59.000Z',
        expirationNzDate: '2026-03-05',
      });
      expect(JSON.parse((await store.consents.get(CONSENT))!.rawJson!)).toMatchObject({ extra: 1 });
      expect(await queryRow(store, 'SELECT permissions FROM v_consents WHERE consent_id = ?', CONSENT)).toEqual({
        permissions: 'ReadAccountsDetail ReadBalances ReadTransactionsDetail',
      });
    });

    it('moves last_synced_at only for outcomes that synced data', async () => {
      const store = await freshStoreOn(d);
      await store.consents.recordOutcome(CONSENT, 'ok', '2025-03-05T02:00:00Z');
      await store.consents.recordOutcome(CONSENT, 'skipped', '2025-03-06T02:00:00Z');
      expect(
        await queryRow(store, 'SELECT last_synced_at, last_outcome FROM v_consents WHERE consent_id = ?', CONSENT),
      ).toEqual({
        last_synced_at: '2025-03-05T02:00:00.000Z',
        last_outcome: 'skipped',
      });
    });

    it('keeps bank meta and parses it back with the wire schema', async () => {
      const store = await freshStoreOn(d);
      const meta = BankMeta.parse({
        name: 'PNZ',
        features: {
          permissions: ['ReadAccountsDetail'],
          redirect_flow: { enabled: true, request_timeout: 'PT10M' },
          decoupled_flow: { enabled: false, available_identifiers: [] },
          gateway_flow: { enabled: true, request_timeout: 'PT15M' },
          resources: {
            accounts: true,
            balances: true,
            transactions: true,
            statements: false,
            statement_file: false,
            party: true,
            account_party: true,
          },
          statement_file_content_types: [],
          max_history_days: 730,
        },
      });
      await store.meta.save(meta);
      expect(await store.meta.get(BANK)).toEqual({ meta, fetchedAt: '2025-03-05T00:00:00.000Z' });
      expect(await store.meta.get('ANZ')).toBeNull();
    });
  });

  describe('runs and sync state', () => {
    it('records a run as v_runs shows it', async () => {
      const store = await freshStoreOn(d);
      const runId = await store.runs.start({ now: '2025-03-05T02:00:00Z' });
      await store.runs.finish(
        runId,
        {
          outcome: 'partial',
          consents: 2,
          requests: 41,
          rowsWritten: 310,
          failedUnits: 1,
          errorSummary: 'PNZ acc-0001 2025-02-01: BDT263',
        },
        '2025-03-05T02:01:30Z',
      );
      expect(await queryRows(store, 'SELECT * FROM v_runs')).toEqual([
        {
          run_id: runId,
          started_at: '2025-03-05T02:00:00.000Z',
          finished_at: '2025-03-05T02:01:30.000Z',
          outcome: 'partial',
          consents: 2,
          requests: 41,
          rows_written: 310,
          failed_units: 1,
          error_summary: 'PNZ acc-0001 2025-02-01: BDT263',
        },
      ]);
    });

    it('remembers the window size that worked per bank and lets the watermark be reset', async () => {
      const store = await freshStoreOn(d);
      expect(await store.syncState.getWindowDays(BANK)).toBeNull();
      await store.syncState.setWindowDays(BANK, 8);
      expect(await store.syncState.getWindowDays(BANK)).toBe(8);
      await expect(store.syncState.setWindowDays(BANK, 0)).rejects.toThrow(RangeError);
      const key = { bank: BANK, accountId: 'acc-0001' as never, consentId: CONSENT };
      await store.syncState.setWatermark({ ...key, watermark: '2025-03-05T00:00:00+13:00' });
      expect(await store.syncState.getWatermark(key)).toBe('2025-03-04T11:00:00.000Z');
      // Each consent keeps its own watermark: another consent over the same account starts afresh.
      expect(await store.syncState.getWatermark({ ...key, consentId: OTHER_CONSENT })).toBeNull();
      await store.syncState.setWatermark({ ...key, watermark: null });
      expect(await store.syncState.getWatermark(key)).toBeNull();
    });
  });
});
