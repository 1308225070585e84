/**
 * Rows booked at one instant (a bank that sends dates only books a day's rows at 00:00) with ids
 * whose text order is not the order of their running balances (`T-9` before `T-10`, as a bank
 * numbers them): the transactions export writes each instant's rows in their balances' chain,
 * the OFX LEDGERBAL and the report's balance anchor take the chain's end, walked from the end of
 * the chain of the instant before (docs/exports.md "Datasets and columns"). Run on both dialects by
 * balance-chain.test.ts and balance-chain.pg.test.ts.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, expect, it } from 'vitest';
import { toUnits } from '@bankdata/core/money';
import { exportDataset } from '../../src/export';
import { checkContinuity } from '../../src/check/check-accounts';
import { gatherReport } from '../../src/report/build-report';
import type { Store } from '../../src/store';
import { account, fresh } from '../check/check-sql.cases';
import { storeSuite } from '../support/dialects';

/** Each day's rows at one instant; within a day the chain runs T-9 → T-10 and T-11 → T-12 (ids' text order reversed on day 2). */
export const DATES_ONLY: [string, string, string, string][] = [
  ['T-8', '2025-06-01T00:00:00.000Z', '100.00', '2315.07'],
  ['T-9', '2025-06-02T00:00:00.000Z', '-10.00', '2305.07'],
  ['T-10', '2025-06-02T00:00:00.000Z', '-20.00', '2285.07'],
  ['T-11', '2025-06-03T00:00:00.000Z', '-5.00', '2280.07'],
  ['T-12', '2025-06-03T00:00:00.000Z', '-5.00', '2275.07'],
];

const NOW = () => new Date('2025-06-30T00:00:00.000Z');
let n = 0;

async function exported(store: Store, format: string, accountId: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'bankdata-chain-'));
  dirs.push(dir);
  const out = join(dir, `out-${(n += 1)}.${format}`);
  await exportDataset(store, {
    dataset: 'transactions',
    format,
    out,
    filters: { accountId },
    ...(format === 'csv' ? { neutralise: false } : {}),
    now: NOW,
  });
  return readFileSync(out, 'utf8');
}

const dirs: string[] = [];

export const balanceChainSuite = storeSuite('rows of one instant in their balances’ chain', (d) => {
  afterAll(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('the CSV and JSON exports write each instant’s rows in their running balances’ order, whatever their ids', async () => {
    const store = await d.open();
    await fresh(store);
    await account(store, 'acc-chain', DATES_ONLY);
    const csv = await exported(store, 'csv', 'acc-chain');
    const ids = csv
      .split('\r\n')
      .slice(1)
      .filter((l) => l !== '')
      .map((l) => /\bT-\d+\b/.exec(l)?.[0]);
    expect(ids).toEqual(['T-8', 'T-9', 'T-10', 'T-11', 'T-12']);
    const json = JSON.parse(await exported(store, 'json', 'acc-chain')) as { transaction_id: string }[];
    expect(json.map((r) => r.transaction_id)).toEqual(['T-8', 'T-9', 'T-10', 'T-11', 'T-12']);
  });

  it('a chain across a batch boundary, and two accounts, keep their order (the rows held are one instant’s)', async () => {
    const store = await d.open();
    await fresh(store);
    await account(store, 'acc-a', DATES_ONLY);
    await account(store, 'acc-b', [
      ['T-10', '2025-06-02T00:00:00.000Z', '-1.00', '9.00'],
      ['T-9', '2025-06-02T00:00:00.000Z', '-2.00', '7.00'],
    ]);
    const { batches } = await store.views.rows('transactions', { status: 'all' }, { batchSize: 2 });
    const got: string[] = [];
    for await (const batch of batches)
      for (const row of batch) got.push(row.filter((v) => /^T-/.test(String(v))).join());
    expect(got).toEqual(['T-8', 'T-9', 'T-10', 'T-11', 'T-12', 'T-10', 'T-9']);
  });

  /** A day (one instant) with a payment, its reversal and another payment from the same balance, ids either way. */
  const LOOPS: Record<string, [string, string, string, string][]> = {
    'the payment first by id': [
      ['T-1', '2025-06-01T00:00:00.000Z', '100.00', '100.00'],
      ['T-2', '2025-06-02T00:00:00.000Z', '-5.00', '95.00'],
      ['T-3', '2025-06-02T00:00:00.000Z', '-10.00', '90.00'],
      ['T-4', '2025-06-02T00:00:00.000Z', '10.00', '100.00'],
    ],
    'the loop first by id': [
      ['T-1', '2025-06-01T00:00:00.000Z', '100.00', '100.00'],
      ['T-2', '2025-06-02T00:00:00.000Z', '-10.00', '90.00'],
      ['T-3', '2025-06-02T00:00:00.000Z', '10.00', '100.00'],
      ['T-4', '2025-06-02T00:00:00.000Z', '-5.00', '95.00'],
    ],
  };
  for (const [name, rows] of Object.entries(LOOPS)) {
    it(`a payment and its reversal beside another row from the same balance (${name}): every row in the chain, to 95.00, in the CSV, OFX, the report and the check`, async () => {
      const store = await d.open();
      await fresh(store);
      await account(store, 'acc-loop', rows);
      const [header = [], ...lines]: string[][] = parse(await exported(store, 'csv', 'acc-loop'));
      const ofx = await exported(store, 'ofx', 'acc-loop');
      const report = await gatherReport(store, { now: NOW() });
      await checkContinuity(store);
      expect({
        csv: lines.at(-1)?.[header.indexOf('balance_after')],
        ledgerBal: /<LEDGERBAL>\s*<BALAMT>([^<\s]+)/.exec(ofx)?.[1],
        report: report.accounts[0]?.balances.at(-1)?.units,
        findings: await store.continuity.listFindings({}),
      }).toEqual({ csv: '95.00', ledgerBal: '95.00', report: toUnits('95.00'), findings: [] });
    });
  }

  it('OFX LEDGERBAL is the balance after the last instant’s chain, walked from the end of the chain before it', async () => {
    const store = await d.open();
    await fresh(store);
    await account(store, 'acc-chain', DATES_ONLY);
    const ofx = await exported(store, 'ofx', 'acc-chain');
    expect(/<LEDGERBAL>\s*<BALAMT>([^<\s]+)/.exec(ofx)?.[1]).toBe('2275.07');
  });

  it('the report’s balance line ends at the last instant’s chain end, and each day at its own', async () => {
    const store = await d.open();
    await fresh(store);
    await account(store, 'acc-chain', DATES_ONLY);
    const report = await gatherReport(store, { now: NOW() });
    expect(report.accounts[0]?.balances.map((b) => `${b.date} ${b.units}`)).toEqual([
      `2025-06-01 ${toUnits('2315.07')}`,
      `2025-06-02 ${toUnits('2285.07')}`,
      `2025-06-03 ${toUnits('2275.07')}`,
    ]);
  });
});
