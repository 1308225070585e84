/**
 * How SQLite serves the read side (docs/continuity.md "Set-based"): every query the continuity
 * check's walk and balance sums and the report's daily totals send reads an account's booked rows
 * from the transactions_account_rows index alone (a covering index: no table page), and the
 * running-balance window runs in the index's order (no sort of the rows). Each query is recorded
 * as the store sends it and explained.
 */
import { join } from 'node:path';
import { SQLiteSyncDialect } from 'drizzle-orm/sqlite-core';
import type { SQL } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { AccountId, BankName } from '@bankdata/core/schemas';
import { nzDateOf } from '@bankdata/core/nz-time';
import { openStore } from '../../src/store';
import { continuityReads } from '../../src/store/continuity';
import { reportReads } from '../../src/store/report-queries';
import { sqliteRunner, type SqlRunner } from '../../src/store/sql-runner';
import { tempDir } from '../store/helpers';

const dialect = new SQLiteSyncDialect();

describe('the read side on SQLite', () => {
  it('reads booked rows from the covering index, the window in its order', async () => {
    const store = await openStore(join(tempDir(), 'bankdata.sqlite'));
    try {
      const runner = sqliteRunner(store.sqlite, { safeIntegers: true });
      const plans: { sql: string; plan: string[] }[] = [];
      const explain = (query: SQL) => {
        const { sql, params } = dialect.sqlToQuery(query);
        const plan = store.sqlite
          .prepare(`EXPLAIN QUERY PLAN ${sql}`)
          .all(...params)
          .map((r) => (r as { detail: string }).detail);
        plans.push({ sql, plan });
      };
      const recording: SqlRunner = {
        ...runner,
        all: (query) => (explain(query), runner.all(query)),
        get: (query) => (explain(query), runner.get(query)),
        iterate: (query, batchSize) => (explain(query), runner.iterate(query, batchSize)),
      };
      const key = { bank: 'PNZ' as BankName, accountId: 'acc-1' as AccountId };
      const from = '2024-01-01T00:00:00.000Z';
      const continuity = continuityReads(recording);
      await continuity.runningSteps(key, { from, horizon: null, scale: 1000n });
      await continuity.sharedInstants(key, from);
      await continuity.balanceSnapshots(key, { from, scale: 1000n, lateWindowDays: 14 });
      await continuity.bookedRowsAround(key, { from, first: '2024-02-01T00:00:00.000Z', scale: 1000n });
      await reportReads(recording).dailyFlows(key, 1000n);
      await reportReads(recording).balanceAnchor(key, { scale: 1000n, nzDateOf });

      const transactionReads = plans.flatMap(({ sql, plan }) =>
        plan.filter((d) => / t(?: |$)/.test(d) && sql.includes('transactions')).map((d) => ({ sql, d })),
      );
      expect(transactionReads.length).toBeGreaterThan(5);
      for (const { d } of transactionReads)
        expect(d).toMatch(/^SEARCH t USING COVERING INDEX transactions_account_rows /);
      const walk = plans[0]!;
      expect(walk.sql).toContain('lag(');
      expect(walk.plan.filter((d) => d.includes('TEMP B-TREE') && !d.includes('ORDER BY'))).toEqual([]);
      // The walk's one sort is of the breaks it keeps (the outer ORDER BY), never of the rows.
      expect(walk.plan.filter((d) => d.includes('TEMP B-TREE'))).toEqual(['USE TEMP B-TREE FOR ORDER BY']);
    } finally {
      await store.close();
    }
  });
});
