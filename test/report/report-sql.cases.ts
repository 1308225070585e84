/**
 * The report's SQL (src/store/report-queries.ts) on both dialects: the balance line an account's
 * running balances anchor when no stated balance is held; the rows the check suspects the bank
 * served twice left out of money in and out and of spend by category. Run by report-sql.test.ts and
 * report-sql.pg.test.ts.
 */
import { expect, it } from 'vitest';
import { toUnits } from '@bankdata/core/money';
import { gatherReport } from '../../src/report/build-report';
import { renderReport } from '../../src/report/html';
import { nzDateOf } from '@bankdata/core/nz-time';
import type { AccountId, BankName } from '@bankdata/core/schemas';
import { account, CONSENT, fresh } from '../check/check-sql.cases';
import { execute, storeSuite } from '../support/dialects';

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

  it('a balance the bank restated for one instant: the report’s anchor and the OFX export’s ledger balance both take the one fetched last, a closing one before an interim one', async () => {
    const store = await d.open();
    await fresh(store);
    const at = '2025-05-31T11:59:59.000Z';
    // [account, type, amount, fetched at], in the order inserted: the later read first and last.
    const balances = [
      ['older-first', 'ClosingBooked', '100.00', '2025-06-01T00:00:00.000Z'],
      ['older-first', 'ClosingBooked', '92.00', '2025-06-02T00:00:00.000Z'],
      ['older-first', 'InterimBooked', '7.00', '2025-06-03T00:00:00.000Z'],
      ['newer-first', 'InterimBooked', '7.00', '2025-06-03T00:00:00.000Z'],
      ['newer-first', 'ClosingBooked', '92.00', '2025-06-02T00:00:00.000Z'],
      ['newer-first', 'ClosingBooked', '100.00', '2025-06-01T00:00:00.000Z'],
    ] as const;
    for (const accountId of ['older-first', 'newer-first']) await account(store, accountId, []);
    for (const [accountId, type, amount, fetched] of balances)
      await execute(
        store,
        `INSERT INTO balances (bank, account_id, consent_id, type, amount, amount_minor, currency, credit_debit_indicator,
           date_time, raw_json, fetched_at)
         VALUES ('PNZ', ?, ?, ?, ?, ?, 'NZD', 'Credit', ?, '{}', ?)`,
        accountId,
        CONSENT,
        type,
        amount,
        Number(toUnits(amount) / 1000n),
        at,
        fetched,
      );
    for (const accountId of ['older-first', 'newer-first']) {
      const key = { bank: 'PNZ' as BankName, accountId: accountId as AccountId };
      const anchor = await store.reportData.balanceAnchor(key, { scale: 1000n, nzDateOf });
      expect(anchor?.units, accountId).toBe(toUnits('92.00'));
      const ledger = await store.views.latestBalance(key, ['ClosingBooked', 'InterimBooked'], null);
      expect(ledger?.amount, accountId).toBe('92.00');
    }
  });
  it('leaves a row the check suspects the bank served twice out of money in and out and spend by category, and says so', async () => {
    const store = await d.open();
    await fresh(store);
    await account(store, 'dup', [
      ['p', '2025-06-01T00:00:00.000Z', '100.00', '100.00'],
      ['a', '2025-06-02T00:00:00.000Z', '50.00', '150.00'],
      ['a-dup', '2025-06-02T00:00:00.000Z', '50.00', '150.00'],
      ['d', '2025-06-03T00:00:00.000Z', '-20.00', '130.00'],
      ['d-dup', '2025-06-03T00:00:00.000Z', '-20.00', '130.00'],
      ['e', '2025-06-04T00:00:00.000Z', '-5.00', '125.00'],
      ['e-2', '2025-06-04T00:00:00.000Z', '-5.00', '120.00'],
    ]);
    // Open suspicions on a-dup and d-dup; one on e-2 a later check cleared (counted again).
    for (const [id, twin, cleared] of [
      ['a-dup', 'a', null],
      ['d-dup', 'd', null],
      ['e-2', 'e', '2025-06-20T00:00:00.000Z'],
    ] as const)
      await execute(
        store,
        `INSERT INTO duplicate_suspicions (bank, account_id, transaction_id, twin_transaction_id, evidence, balance,
           balance_date_time, balance_date, counted_balance, amount_off, amount_off_minor, currency, detail,
           suspected_at, checked_at, run_id, cleared_at)
         VALUES ('PNZ', 'dup', ?, ?, 'running_balance', '0.00', '2025-06-04T00:00:00.000Z', '2025-06-04', '0.00',
           '0.00', 0, 'NZD', 'planted', '2025-06-10T00:00:00.000Z', '2025-06-10T00:00:00.000Z', NULL, ?)`,
        id,
        twin,
        cleared,
      );
    const report = await gatherReport(store, { now: new Date('2025-06-30T00:00:00.000Z') });
    const [section] = report.accounts;
    expect(section?.totals).toEqual({ inUnits: toUnits('150.00'), outUnits: toUnits('-30.00') });
    expect(section?.flows).toEqual([{ month: '2025-06', inUnits: toUnits('150.00'), outUnits: toUnits('-30.00') }]);
    expect(section?.duplicates).toEqual({ rows: 2, inUnits: toUnits('50.00'), outUnits: toUnits('-20.00') });
    expect(section?.categories.rows.map((r) => [r.category, r.totalUnits])).toEqual([
      ['uncategorised', toUnits('-30.00')],
    ]);
    // The balance line keeps the bank's rows (the check's break says where it cannot be trusted).
    expect(section?.balances.at(-1)).toEqual({ date: '2025-06-04', units: toUnits('120.00') });
    const { html } = renderReport(report);
    expect(html).toContain(
      '2 row(s) the check suspects the bank served twice left out of money in and out: in 50.00 NZD, out −20.00 NZD (v_duplicates)',
    );
  });
});
