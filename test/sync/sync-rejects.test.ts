/**
 * A record of another account in an account's answer is a reject for every per-account resource
 * (balances, statements, transactions)
 * alike: kept aside in `rejects` with its reason, counted in the run's summary (partial).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DataApiClient } from '../../src/api';
import type { AccountId } from '@bankdata/core/schemas';
import { startHarness, type Harness } from '../fixtures/sync-harness';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ historyDays: 150 });
});
afterAll(async () => {
  await h.close();
});

const STRAY = 'acc-not-this-one' as AccountId;

describe('records of another account', () => {
  it('a balance, a statement and a transaction of another account are rejects with their reason, counted in the summary', async () => {
    const planted: { resource: string; accountId: AccountId }[] = [];
    // The first answer with a record gets a copy of it under another account's id.
    const plant = <T extends { AccountId: AccountId }>(resource: string, accountId: AccountId, records: T[]): T[] => {
      if (planted.some((p) => p.resource === resource) || records.length === 0) return records;
      planted.push({ resource, accountId });
      return [...records, { ...records[0]!, AccountId: STRAY }];
    };
    const client: DataApiClient = {
      ...h.client,
      getBalances: async (consentId, accountId) => {
        const result = await h.client.getBalances(consentId, accountId);
        return { ...result, records: plant('balance', accountId, result.records) };
      },
      listTransactions: async (consentId, accountId, range) => {
        const result = await h.client.listTransactions(consentId, accountId, range);
        return { ...result, records: plant('transaction', accountId, result.records) };
      },
      listStatements: async (consentId, accountId, range) => {
        const result = await h.client.listStatements(consentId, accountId, range);
        return { ...result, records: plant('statement', accountId, result.records) };
      },
    };
    const summary = await h.sync({ client });
    expect(planted.map((p) => p.resource).sort()).toEqual(['balance', 'statement', 'transaction']);

    const rows = h.store.sqlite
      .prepare('SELECT resource, account_id, reason, raw_payload FROM rejects WHERE run_id = ? ORDER BY resource')
      .all(summary.runId) as { resource: string; account_id: string; reason: string; raw_payload: string }[];
    expect(rows.map(({ resource, account_id, reason }) => ({ resource, account_id, reason }))).toEqual(
      planted
        .map((p) => ({
          resource: p.resource,
          account_id: p.accountId,
          reason: `AccountId ${STRAY} in the answer for ${p.accountId}`,
        }))
        .sort((a, b) => a.resource.localeCompare(b.resource)),
    );
    for (const row of rows) expect(JSON.parse(row.raw_payload)).toMatchObject({ AccountId: STRAY });
    expect(summary.counters.rejects).toBe(3);
    // None of them was stored as a row of the account it named.
    for (const table of ['balances', 'statements', 'transactions']) {
      expect(
        h.store.sqlite.prepare(`SELECT count(*) AS n FROM ${table} WHERE account_id = ?`).get(STRAY),
        table,
      ).toEqual({ n: 0 });
    }
    expect(summary.outcome).toBe('partial');
    const run = h.store.sqlite
      .prepare('SELECT outcome, error_summary FROM runs WHERE run_id = ?')
      .get(summary.runId) as { outcome: string; error_summary: string };
    expect(run).toMatchObject({ outcome: 'partial' });
    expect(run.error_summary).toContain('3 record(s) quarantined in rejects');
  });
});
