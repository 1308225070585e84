/**
 * Store operations with the same outcomes on both dialects: each case runs against a fresh SQLite
 * file and a fresh PostgreSQL database, opened through openDatabaseStore (a path or a URL).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ConsentId } from '@bankdata/core/schemas';
import { openDatabaseStore, type Store } from '../../../src/store';
import { createTestDatabase, describePostgres } from '../../support/postgres';

const NOW = '2026-11-20T01:00:00.000Z';
const clock = () => new Date(NOW);
const opened: Store[] = [];
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
});

const factories = {
  sqlite: async () =>
    openDatabaseStore(join(mkdtempSync(join(tmpdir(), 'bankdata-both-')), 'db.sqlite'), { now: clock }),
  postgres: async () => openDatabaseStore(await createTestDatabase(), { now: clock }),
};

describePostgres('Store operations on both dialects', () => {
  describe.each(Object.keys(factories) as (keyof typeof factories)[])('%s', (dialect) => {
    const open = async () => {
      const store = await factories[dialect]();
      opened.push(store);
      return store;
    };

    it('registers, ends and re-registers a consent', async () => {
      const store = await open();
      expect(store.dialect).toBe(dialect);
      const id = 'c-1' as ConsentId;
      expect(await store.consents.add(id)).toBe('added');
      expect(await store.consents.add(id)).toBe('already-registered');
      await store.consents.markEnded(id, 'BDT409');
      expect((await store.consents.list({ active: true })).length).toBe(0);
      expect(await store.consents.add(id)).toBe('re-registered');
      await expect(store.consents.markEnded('nope' as ConsentId, 'x')).rejects.toThrow(/not registered/);
      expect(await store.reports.consents()).toEqual([
        {
          consent_id: 'c-1',
          bank: null,
          status: null,
          days_to_expiry: null,
          last_synced_at: null,
          last_outcome: 'ended',
          ended_reason: null,
        },
      ]);
    });

    it('holds the run lease for one holder at a time, renews and releases it', async () => {
      const store = await open();
      const a = { pid: process.pid, host: 'host-a' };
      const b = { pid: process.pid, host: 'host-b' };
      expect((await store.lease.acquire(a)).ok).toBe(true);
      expect(await store.lease.acquire(b)).toEqual({
        ok: false,
        heldBy: { ...a, expiresAt: '2026-11-20T01:01:00.000Z' },
      });
      expect(await store.lease.renew(b)).toBe(false);
      expect(await store.lease.renew(a)).toBe(true);
      expect(await store.lease.release(b)).toBe(false);
      expect(await store.lease.release(a)).toBe(true);
      expect(await store.lease.current()).toBeNull();
      // An expired lease is taken over.
      await store.lease.acquire(a);
      expect(await store.lease.acquire({ ...b, now: '2026-11-20T01:02:00.000Z' })).toEqual({
        ok: true,
        acquiredAt: '2026-11-20T01:02:00.000Z',
        expiresAt: '2026-11-20T01:03:00.000Z',
        tookOver: a,
      });
    });

    it('records runs, rejects and counts them', async () => {
      const store = await open();
      const runId = await store.runs.start({ runId: 'r-1' });
      await store.rejects.insert(
        [{ resource: 'account', bank: 'PNZ', consentId: null, accountId: null, reason: 'bad', rawPayload: { a: 1 } }],
        { runId },
      );
      await store.runs.finish(runId, {
        outcome: 'partial',
        consents: 1,
        requests: 2,
        rowsWritten: 0,
        failedUnits: 1,
        errorSummary: null,
      });
      expect(await store.reports.rejectCounts()).toEqual([{ resource: 'account', count: 1 }]);
      expect((await store.rejects.list({ runId }))[0]).toMatchObject({ rawPayload: '{"a":1}', runId, createdAt: NOW });
      expect((await store.reports.latestRuns(5))[0]).toMatchObject({
        run_id: 'r-1',
        outcome: 'partial',
        requests: 2,
        failed_units: 1,
      });
      expect(await store.reports.totals()).toEqual({ transactions: 0, accounts: 0, balances: 0, files: 0 });
      await expect(
        store.runs.finish('nope', {
          outcome: 'ok',
          consents: 0,
          requests: 0,
          rowsWritten: 0,
          failedUnits: 0,
          errorSummary: null,
        }),
      ).rejects.toThrow(/no run/);
    });

    it('forgets an ended consent (dry run counts, then deletes)', async () => {
      const store = await open();
      const id = 'c-2' as ConsentId;
      await store.consents.add(id);
      await store.rejects.insert(
        [{ resource: 'party', bank: 'PNZ', consentId: id, accountId: null, reason: 'bad', rawPayload: 'x' }],
        { runId: null },
      );
      const dry = await store.consents.forget(id, { dryRun: true });
      expect(dry.deleted).toEqual({ rejects: 1, consents: 1 });
      expect(await store.consents.get(id)).not.toBeNull();
      expect((await store.consents.forget(id, { dryRun: false })).deleted).toEqual({ rejects: 1, consents: 1 });
      expect(await store.consents.get(id)).toBeNull();
    });

    it('keeps what the windows taught, merged', async () => {
      const store = await open();
      await store.syncState.recordWindowKnowledge('PNZ', { acceptedRows: 100, windowDays: 7 });
      await store.syncState.recordWindowKnowledge('PNZ', { acceptedRows: 50, refusedRows: 900 });
      await store.syncState.recordWindowKnowledge('PNZ', { refusedRows: 1200 });
      expect(await store.syncState.getWindowKnowledge('PNZ')).toEqual({
        windowDays: 7,
        maxAcceptedRows: 100,
        minRefusedRows: 900,
      });
    });
  });
});
