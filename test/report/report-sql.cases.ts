/**
 * The report's SQL (src/store/report-queries.ts) on both dialects: the balance line an account's
 * running balances anchor when no stated balance is held. Run by report-sql.test.ts and
 * report-sql.pg.test.ts.
 */
import { expect, it } from 'vitest';
import { toUnits } from '@bankdata/core/money';
import { gatherReport } from '../../src/report/build-report';
import { account, fresh } from '../check/check-sql.cases';
import { storeSuite } from '../support/dialects';

export const reportSqlSuite = storeSuite('the report’s balance anchor', (d) => {
  it('at an instant several rows share, anchors on the last row of their balances’ chain, whatever their ids', async () => {
    const store = await d.open();
    await fresh(store);
    // 100.00 after p; then at one instant b (+5.00: 105.00) and a (+10.00: 115.00), ids out of
    // chain order: the day ends at 115.00, the day before at 100.00.
    await account(store, 'chain', [
      ['p', '2025-06-01T00:00:00.000Z', '100.00', '100.00'],
      ['a', '2025-06-02T00:00:00.000Z', '10.00', '115.00'],
      ['b', '2025-06-02T00:00:00.000Z', '5.00', '105.00'],
    ]);
    const report = await gatherReport(store, { now: new Date('2025-06-30T00:00:00.000Z') });
    expect(report.accounts.map((a) => a.balances.map((b) => `${b.date} ${b.units}`))).toEqual([
      [`2025-06-01 ${toUnits('100.00')}`, `2025-06-02 ${toUnits('115.00')}`],
    ]);
  });

  it('a payment and its reversal at one instant (a loop of balances) end where the walk from the balance before ends', async () => {
    const store = await d.open();
    await fresh(store);
    await account(store, 'loop', [
      ['p', '2025-06-01T00:00:00.000Z', '100.00', '100.00'],
      ['b', '2025-06-02T00:00:00.000Z', '10.00', '110.00'],
      ['a', '2025-06-02T00:00:00.000Z', '-10.00', '100.00'],
    ]);
    const report = await gatherReport(store, { now: new Date('2025-06-30T00:00:00.000Z') });
    expect(report.accounts.map((a) => a.balances.map((b) => `${b.date} ${b.units}`))).toEqual([
      [`2025-06-01 ${toUnits('100.00')}`, `2025-06-02 ${toUnits('100.00')}`],
    ]);
  });
});
