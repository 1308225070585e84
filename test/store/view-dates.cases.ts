/**
 * The views' NZ dates of instants on both dialects (docs/data-model.md "Views"): SQLite looks each
 * instant's offset up in nz_offsets, PostgreSQL converts AT TIME ZONE; the same date either way,
 * for instants of the last century too (nz_offsets once began in 2000: NULL before it on SQLite).
 * Run by view-dates.test.ts and view-dates.pg.test.ts.
 */
import { expect, it } from 'vitest';
import { toUnits } from '@bankdata/core/money';
import { account, CONSENT, fresh } from '../check/check-sql.cases';
import { execute, queryRows, storeSuite } from '../support/dialects';

export const viewDatesSuite = storeSuite('the views’ NZ dates', (d) => {
  it('v_balances.date, v_transactions.value_date and v_statements’ dates of instants before 2000', async () => {
    const store = await d.open();
    await fresh(store);
    await account(store, 'old', [['o1', '1999-12-31T10:00:00.000Z', '1.00', '1.00']]);
    await execute(
      store,
      `UPDATE transactions SET value_date_time = '1999-12-31T10:30:00.000Z' WHERE transaction_id = 'o1'`,
    );
    await execute(
      store,
      `INSERT INTO balances (bank, account_id, consent_id, type, amount, amount_minor, currency, credit_debit_indicator,
         date_time, raw_json, fetched_at)
       VALUES ('PNZ', 'old', ?, 'ClosingBooked', '1.00', ?, 'NZD', 'Credit', '1999-12-31T10:59:00.000Z', '{}', '2025-06-30T00:00:00.000Z')`,
      CONSENT,
      Number(toUnits('1.00') / 1000n),
    );
    await execute(
      store,
      `INSERT INTO statements (bank, account_id, statement_id, consent_id, type, start_date_time, end_date_time,
         creation_date_time, raw_json, first_seen_at, last_seen_at, updated_at)
       VALUES ('PNZ', 'old', 's-1935', ?, 'RegularPeriodic', '1935-06-30T12:00:00.000Z', '1935-07-31T11:59:59.000Z',
         '1935-08-01T00:00:00.000Z', '{}', '2025-06-30T00:00:00.000Z', '2025-06-30T00:00:00.000Z',
         '2025-06-30T00:00:00.000Z')`,
      CONSENT,
    );
    expect(await queryRows(store, `SELECT date FROM v_balances WHERE account_id = 'old'`)).toEqual([
      { date: '1999-12-31' },
    ]);
    expect(
      await queryRows(store, `SELECT booking_date, value_date FROM v_transactions WHERE account_id = 'old'`),
    ).toEqual([{ booking_date: '1999-12-31', value_date: '1999-12-31' }]);
    // NZ Mean Time (+11:30) in a 1930s winter: 12:00Z on 30 June 1935 is 23:30 that day in NZ.
    expect(await queryRows(store, `SELECT start_date, end_date FROM v_statements WHERE account_id = 'old'`)).toEqual([
      { start_date: '1935-06-30', end_date: '1935-07-31' },
    ]);
  });
});
