/**
 * The categorising at a sync's end (docs/categories.md "When rows are decided"), against the
 * emulator: it decides the run's rows while the run still holds its lease, before finish()
 * records the run and releases it; a run asked to stop leaves it to the next run. The CLI's exit
 * on an invalid rules file is in test/cli/categorise.test.ts.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store';
import { startHarness, type Harness } from '../fixtures/sync-harness';

let h: Harness;
let rulesFile: string;
beforeAll(async () => {
  h = await startHarness({ customersPerBank: 1 });
  rulesFile = join(h.dir, 'categories.yaml');
  writeFileSync(rulesFile, 'rules:\n  - direction: credit\n    category: income\n');
});
afterAll(async () => {
  await h.close();
});

/** The store with its categories' writes watched: `onSave` runs before each batch is written. */
function watched(onSave: () => void): Store {
  const store = Object.create(h.store) as Store;
  Object.defineProperty(store, 'categories', {
    value: {
      ...h.store.categories,
      save: (...args: Parameters<Store['categories']['save']>) => {
        onSave();
        return h.store.categories.save(...args);
      },
    },
  });
  return store;
}

describe("the categorising at a sync's end", () => {
  it('decides the rows while the run holds its lease, before the run is recorded finished', async () => {
    const seen: { runs: unknown[]; lease: unknown[] }[] = [];
    const summary = await h.sync({
      store: watched(() =>
        seen.push({
          runs: h.store.sqlite.prepare('SELECT run_id, finished_at, outcome FROM runs').all(),
          lease: h.store.sqlite.prepare('SELECT holder_pid FROM lease').all(),
        }),
      ),
      categoriesRulesFile: rulesFile,
    });
    expect(summary.outcome).toBe('ok');
    expect(seen.length).toBeGreaterThan(0);
    // Every batch written while this run was open (no end, no outcome) and its lease held.
    for (const at of seen) {
      expect(at.runs).toEqual([{ run_id: summary.runId, finished_at: null, outcome: null }]);
      expect(at.lease).toEqual([{ holder_pid: process.pid }]);
    }
    expect(summary.categories).toMatchObject({ stopped: false });
    const decided = (summary.categories as { decided: number }).decided;
    expect(decided).toBeGreaterThan(0);
    // Afterwards: recorded, released, and every stored row decided.
    expect(h.store.sqlite.prepare('SELECT finished_at IS NOT NULL AS done FROM runs').all()).toEqual([{ done: 1 }]);
    expect(h.store.sqlite.prepare('SELECT count(*) AS n FROM lease').get()).toEqual({ n: 0 });
    const count = (sql: string) => (h.store.sqlite.prepare(sql).get() as { n: number }).n;
    expect(count('SELECT count(*) AS n FROM transaction_categories')).toBe(decided);
    expect(count('SELECT count(*) AS n FROM transactions WHERE removed_at IS NULL')).toBe(decided);
  });

  it('a run asked to stop leaves the categorising to the next run', async () => {
    // The first run's decisions gone: every stored row waits for one again. Stopped at its first
    // progress report, the run does not decide them (its signal reaches the categorising).
    h.store.sqlite.prepare('DELETE FROM transaction_categories').run();
    const stop = new AbortController();
    const summary = await h.sync({
      store: watched(() => undefined),
      categoriesRulesFile: rulesFile,
      signal: stop.signal,
      onProgress: () => stop.abort(),
    });
    expect(summary.interrupted).toBe(true);
    expect(summary.categories).toEqual({
      decided: 0,
      written: 0,
      bySource: { rule: 0, mcc: 0, code: 0, none: 0 },
      stopped: true,
    });
    expect(h.store.sqlite.prepare('SELECT count(*) AS n FROM transaction_categories').get()).toEqual({ n: 0 });
    // The next run decides them.
    const next = await h.sync({ categoriesRulesFile: rulesFile });
    expect((next.categories as { decided: number }).decided).toBeGreaterThan(0);
  });
});
