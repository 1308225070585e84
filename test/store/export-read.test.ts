/**
 * How SQLite serves an export's rows (docs/benchmarks.md "Export"): the transactions export's
 * query walks the `transactions_view_order` index (migration 0009) instead of sorting, and a
 * streaming read runs with a 2 MB page cache and gives the connection its own setting back,
 * whether the stream is read to its end or left early.
 */
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store';
import { sqliteRunner } from '../../src/store/sql-runner';
import { tempDir } from './helpers';

describe('the export read on SQLite', () => {
  it('reads v_transactions in its order along an index, with no sort', async () => {
    const store = await openStore(join(tempDir(), 'bankdata.sqlite'));
    try {
      const plan = store.sqlite
        .prepare(
          'EXPLAIN QUERY PLAN SELECT * FROM v_transactions AS v ORDER BY v.bank NULLS FIRST, v.account_id NULLS FIRST, v.booking_date_time NULLS FIRST, v.transaction_id NULLS FIRST',
        )
        .all()
        .map((r) => (r as { detail: string }).detail);
      expect(plan).toContain('SCAN t USING INDEX transactions_view_order');
      expect(plan.filter((d) => d.includes('TEMP B-TREE'))).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('streams with a 2 MB page cache and puts the connection’s setting back after', async () => {
    const store = await openStore(join(tempDir(), 'bankdata.sqlite'));
    try {
      const sqlite = store.sqlite;
      const runner = sqliteRunner(sqlite);
      const cacheSize = () => sqlite.pragma('cache_size', { simple: true }) as number;
      sqlite.pragma('cache_size = -16000');
      // What the stream sets, seen from the pragmas it sends (the busy connection answers no query).
      const sent: string[] = [];
      const pragma = sqlite.pragma.bind(sqlite);
      sqlite.pragma = (source: string, options?: Database.PragmaOptions) => {
        sent.push(source);
        return pragma(source, options);
      };
      const query = sql`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10) SELECT i FROM n`;
      const seen: unknown[] = [];
      for await (const batch of runner.iterateArrays(query, 4)) seen.push(...batch.map((r) => r[0]));
      expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(sent).toEqual(['cache_size', 'cache_size = -2048', 'cache_size = -16000']);
      expect(cacheSize()).toBe(-16000);
      // Left after the first batch: the statement is reset and the setting put back.
      for await (const batch of runner.iterate(query, 4)) {
        expect(batch).toHaveLength(4);
        break;
      }
      expect(cacheSize()).toBe(-16000);
    } finally {
      await store.close();
    }
  });
});
