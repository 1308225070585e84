/**
 * The exports' row order is total (docs/exports.md "Datasets and columns": two exports of the same
 * data are byte-identical), on both dialects: rows that tie on every other ordering column are put
 * in order by the rest of their identity, never by where the database happens to keep them. The
 * case that showed it: two balances of one instant and type returned by one fetch (a restatement),
 * one of them fetched again, which rewrites its row (`last_seen_at`), so PostgreSQL kept it after
 * the other. Run by export-order.test.ts and export-order.pg.test.ts.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, expect, it } from 'vitest';
import type { AccountId } from '@bankdata/core/schemas';
import { exportDataset } from '../../src/export';
import type { BalanceRow, Store } from '../../src/store';
import { account, CONSENT, fresh } from '../check/check-sql.cases';
import { storeSuite } from '../support/dialects';

const ACCOUNT = 'acc-order' as AccountId;
const AT = '2025-01-10T00:00:00.000Z';
const dirs: string[] = [];

function balance(amount: string, fetchedAt: string): BalanceRow {
  return {
    bank: 'PNZ',
    accountId: ACCOUNT,
    consentId: CONSENT,
    type: 'InterimBooked',
    amount,
    amountMinor: Number(amount.replace('.', '')),
    currency: 'NZD',
    creditDebitIndicator: 'Credit',
    dateTime: AT,
    rawJson: '{}',
    fetchedAt,
  };
}

/** One fetch of the account's balances, through the store's own write. */
async function fetchBalances(store: Store, fetchedAt: string, amounts: readonly string[]): Promise<void> {
  await store.commitBalances({
    bank: 'PNZ',
    accountId: ACCOUNT,
    consentId: CONSENT,
    rows: amounts.map((a) => balance(a, fetchedAt)),
    runId: null,
    now: fetchedAt,
  });
}

async function exportedAmounts(store: Store): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'bankdata-order-'));
  dirs.push(dir);
  const out = join(dir, 'balances.csv');
  await exportDataset(store, { dataset: 'balances', format: 'csv', out, filters: { accountId: ACCOUNT } });
  const rows = parse<{ amount: string }>(readFileSync(out, 'utf8'), { columns: true });
  return rows.map((r) => r.amount);
}

export const exportOrderSuite = storeSuite('the exports row order, total on both dialects', (d) => {
  afterAll(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('two balances of one instant and type, one fetched again: by amount, whichever was written last', async () => {
    for (const [order, again] of [
      [['140.00', '100.00'], '100.00'],
      [['100.00', '140.00'], '140.00'],
      [['100.00', '140.00'], '100.00'],
    ] as const) {
      const store = await d.open();
      await fresh(store);
      await account(store, ACCOUNT, [['t-1', '2025-01-05T00:00:00.000Z', '1.00', null]]);
      await fetchBalances(store, '2025-01-10T01:00:00.000Z', order);
      await fetchBalances(store, '2025-01-11T01:00:00.000Z', [again]);
      expect(await exportedAmounts(store), `stored ${order.join(', ')}, then ${again} again`).toEqual([
        '100.00',
        '140.00',
      ]);
    }
  });
});
