import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/exit-codes';
import { exportDataset, validateExportRequest, type ExportFilters } from '../../src/export';
import { DATASETS, DATASET_SPECS, FORMATS, STATEMENT_FORMATS } from '../../src/export/datasets';
import {
  createFixtureStore,
  PNZ_CONSENT,
  ANZ_CONSENT,
  PAYMENT_CONSENT,
  PAYMENT_ID,
  type FixtureStore,
} from './fixture-store';

let fx: FixtureStore;
beforeAll(async () => {
  fx = await createFixtureStore();
});
afterAll(() => fx.cleanup());

async function ids(dataset: string, filters: ExportFilters, key: string): Promise<string[]> {
  const out = join(fx.dir, `${dataset}-${Math.random().toString(36).slice(2)}.ndjson`);
  await exportDataset(fx.store, { dataset, format: 'ndjson', out, filters });
  return readFileSync(out, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => String((JSON.parse(l) as Record<string, unknown>)[key]));
}

describe('a bad request is a usage error that names the problem', () => {
  const cases: [string, string, string, ExportFilters, RegExp][] = [
    ['unknown dataset', 'refunds', 'csv', {}, /unknown dataset: "refunds"/],
    ['unknown format', 'transactions', 'xlsx', {}, /unknown format: "xlsx"/],
    ['unparsable --from', 'transactions', 'csv', { from: '2025-13-01' }, /--from is not a date: "2025-13-01"/],
    ['impossible --to', 'transactions', 'csv', { to: '2025-02-30' }, /--to is not a date/],
    [
      'date-time instead of a date',
      'transactions',
      'csv',
      { from: '2025-03-01T00:00:00+13:00' },
      /--from is not a date/,
    ],
    [
      'from after to',
      'transactions',
      'csv',
      { from: '2025-03-02', to: '2025-03-01' },
      /--from 2025-03-02 is after --to 2025-03-01/,
    ],
    ['unknown status', 'transactions', 'csv', { status: 'settled' }, /unknown status: "settled"/],
    ['unknown bank', 'transactions', 'csv', { bank: 'Monzo' }, /unknown bank: "Monzo"/],
    [
      'dates on a dataset without dates',
      'accounts',
      'csv',
      { from: '2025-03-01' },
      /--from does not apply to the accounts dataset/,
    ],
    [
      '--status outside transactions',
      'balances',
      'csv',
      { status: 'booked' },
      /--status does not apply to the balances dataset/,
    ],
    [
      '--account on consents',
      'consents',
      'json',
      { accountId: 'acc-0001' },
      /--account does not apply to the consents dataset/,
    ],
    ['ofx without --account', 'transactions', 'ofx', {}, /needs --account/],
    ['ofx for another dataset', 'statements', 'ofx', { accountId: 'acc-0001' }, /only the transactions dataset/],
    [
      '--exclude-transfers outside transactions',
      'balances',
      'csv',
      { excludeTransfers: true },
      /--exclude-transfers does not apply to the balances dataset/,
    ],
    [
      '--exclude-transfers on a bank statement',
      'transactions',
      'ofx',
      { accountId: 'acc-0001', excludeTransfers: true },
      /--exclude-transfers does not apply to --format ofx/,
    ],
    [
      '--exclude-transfers on xero',
      'transactions',
      'xero',
      { accountId: 'acc-0001', excludeTransfers: true },
      /--exclude-transfers does not apply to --format xero/,
    ],
  ];
  it.each(cases)('%s', (_name, dataset, format, filters, message) => {
    const run = () => validateExportRequest(dataset, format, filters);
    expect(run).toThrow(UsageError);
    expect(run).toThrow(message);
  });

  it('--excel with JSON is refused rather than ignored', async () => {
    await expect(exportDataset(fx.store, { dataset: 'runs', format: 'json', out: '-', excel: true })).rejects.toThrow(
      /--excel applies to --format csv only/,
    );
  });

  it('bank names are matched case-insensitively and spelt as the API spells them', () => {
    expect(validateExportRequest('accounts', 'csv', { bank: 'kiwibank' }).filters.bank).toBe('Kiwibank');
  });
});

describe('filters select rows by NZ dates, inclusive', () => {
  it('transactions by booking_date: 23:59:59 NZDT on --to is in, 00:00 NZDT the next day is out', async () => {
    const got = await ids(
      'transactions',
      { bank: 'PNZ', accountId: 'acc-0001', from: '2025-02-28', to: '2025-02-28' },
      'transaction_id',
    );
    expect(got).toEqual(['txn-20250228-0003']); // booked 2025-02-28T10:59:59Z; the salary at 2025-02-28T11:00:00Z is 1 March NZ
    const march = await ids(
      'transactions',
      { bank: 'PNZ', accountId: 'acc-0001', from: '2025-03-01', to: '2025-03-01' },
      'transaction_id',
    );
    expect(march).toEqual(['txn-20250301-0002']);
  });

  it('--status booked and pending split the rows; all is the default', async () => {
    const all = await ids('transactions', { bank: 'PNZ', accountId: 'acc-0001' }, 'status');
    const booked = await ids('transactions', { bank: 'PNZ', accountId: 'acc-0001', status: 'booked' }, 'status');
    const pending = await ids('transactions', { bank: 'PNZ', accountId: 'acc-0001', status: 'pending' }, 'status');
    expect(pending).toEqual(['Pending']);
    expect(new Set(booked)).toEqual(new Set(['Booked']));
    expect(booked.length + pending.length).toBe(all.length);
  });

  it('balances by the NZ date of date_time', async () => {
    expect(await ids('balances', { to: '2025-02-28' }, 'type')).toEqual(['ClosingBooked']);
    expect(await ids('balances', { from: '2025-03-01', accountId: 'acc-0001' }, 'type')).toEqual([
      'InterimAvailable',
      'InterimBooked',
    ]);
  });

  it('statements by period: a statement is in when its period overlaps the days asked', async () => {
    expect(await ids('statements', { from: '2025-01-31', to: '2025-01-31' }, 'statement_id')).toEqual(['stmt-2025-01']);
    expect(await ids('statements', { from: '2025-02-01', to: '2025-02-01' }, 'statement_id')).toEqual(['stmt-2025-02']);
    expect(await ids('statements', { from: '2025-01-31', to: '2025-02-01' }, 'statement_id')).toEqual([
      'stmt-2025-01',
      'stmt-2025-02',
    ]);
    expect(await ids('statements', { from: '2025-03-01' }, 'statement_id')).toEqual([]);
  });

  it('runs by the NZ date of started_at (11:30Z on 4 March is 00:30 NZDT on 5 March)', async () => {
    expect(await ids('runs', { from: '2025-03-05' }, 'run_id')).toEqual(['run-0002']);
    expect(await ids('runs', { to: '2025-03-04' }, 'run_id')).toEqual(['run-0001']);
    expect(await ids('runs', {}, 'run_id')).toEqual(['run-0001', 'run-0002']);
  });

  it('--consent selects by the view column, or for balances and statements through the account', async () => {
    expect(await ids('transactions', { consentId: ANZ_CONSENT }, 'transaction_id')).toEqual(['anz-1', 'pmt-1']);
    expect(await ids('consents', { consentId: PNZ_CONSENT }, 'consent_id')).toEqual([PNZ_CONSENT]);
    expect(await ids('balances', { consentId: ANZ_CONSENT }, 'type')).toEqual([]);
    expect((await ids('balances', { consentId: PNZ_CONSENT }, 'account_id')).length).toBe(4);
    expect(await ids('statements', { consentId: PNZ_CONSENT }, 'statement_id')).toEqual([
      'stmt-2025-01',
      'stmt-2025-02',
    ]);
  });

  /**
   * `--consent` of payments is the payment consent (docs/exports.md "Filters"): it lives only as
   * v_payments.consent_id, and the guard against mistyped ids looked it up among the data consents
   * (v_consents), so every `export payments --consent` exited 2 "no such consent in the database".
   */
  it('--consent of payments selects by the payment consent; every other dataset by a data consent; a mistyped one is refused', async () => {
    const out = join(fx.dir, 'payments-of-consent.csv');
    const result = await exportDataset(fx.store, {
      dataset: 'payments',
      format: 'csv',
      out,
      filters: { consentId: PAYMENT_CONSENT },
    });
    expect(result.rows).toBe(1);
    expect(readFileSync(out, 'utf8')).toContain(PAYMENT_ID);

    // Every dataset the docs give --consent, with the consent of its kind: rows, exit 0.
    const withConsent = DATASETS.filter((d) => DATASET_SPECS[d].consent !== undefined);
    expect(withConsent).toEqual([
      'transactions',
      'accounts',
      'balances',
      'statements',
      'parties',
      'consents',
      'payments',
    ]);
    const key = { payments: 'payment_id', consents: 'consent_id' } as Record<string, string>;
    for (const dataset of withConsent) {
      const consentId = dataset === 'payments' ? PAYMENT_CONSENT : PNZ_CONSENT;
      expect((await ids(dataset, { consentId }, key[dataset] ?? 'account_id')).length, dataset).toBeGreaterThan(0);
    }
    // A consent of the other kind, or one mistyped, is no consent of the dataset: exit 2, one line naming it.
    const refused = (dataset: string, consentId: string) =>
      exportDataset(fx.store, { dataset, format: 'csv', out, filters: { consentId } });
    const mistyped = '00000000-0000-4000-8000-000000000000';
    for (const consentId of [PNZ_CONSENT, mistyped])
      await expect(refused('payments', consentId)).rejects.toMatchObject({
        exitCode: 2,
        message: `--consent ${consentId}: no such payment consent in the database`,
      });
    for (const dataset of withConsent.filter((d) => d !== 'payments'))
      for (const consentId of [PAYMENT_CONSENT, mistyped])
        await expect(refused(dataset, consentId), dataset).rejects.toMatchObject({
          exitCode: 2,
          message: `--consent ${consentId}: no such consent in the database`,
        });
  });

  it('--account and --bank narrow to one bank when an id exists at two', async () => {
    expect(await ids('accounts', { accountId: 'acc-0001' }, 'bank')).toEqual(['ANZ', 'PNZ']);
    expect(await ids('accounts', { accountId: 'acc-0001', bank: 'ANZ' }, 'bank')).toEqual(['ANZ']);
    expect(await ids('parties', { accountId: 'acc-0001' }, 'name')).toEqual(['@J Smith']);
  });
});

/**
 * The ends of the calendar (src/export/filters.ts `nzDateFlag`, the one reading of a command's NZ
 * date; docs/exports.md "Filters"): 9999-12-31 is a valid `--to` ("no end") and 0000-01-01 a
 * valid `--from`, for every dataset with dates and every format it takes. Before, `--to
 * 9999-12-31` counted its end through the next date's text (`+010000-01-01`) and every dated
 * export ended in exit 70, "internal error (a bug)", where `report --to 9999-12-31` exited 0.
 */
describe('the ends of the calendar: every dataset with dates, every format', () => {
  const dated = DATASETS.filter((d) => DATASET_SPECS[d].dates !== undefined);
  const cases = dated.flatMap((dataset) =>
    FORMATS.filter((f) => dataset === 'transactions' || !(STATEMENT_FORMATS as readonly string[]).includes(f)).map(
      (format) => [dataset, format] as const,
    ),
  );
  const ends: ExportFilters[] = [
    { to: '9999-12-31' },
    { from: '0000-01-01' },
    { from: '0000-01-01', to: '9999-12-31' },
    { from: '0999-12-31', to: '0999-12-31' },
    { from: '9999-12-31', to: '9999-12-31' },
  ];
  /** Statement formats take one account at one bank. */
  const scoped = (format: string, filters: ExportFilters): ExportFilters =>
    (STATEMENT_FORMATS as readonly string[]).includes(format)
      ? { ...filters, accountId: 'acc-card-77', bank: 'PNZ' }
      : filters;
  const bytes = async (dataset: string, format: string, filters: ExportFilters) => {
    const out = join(fx.dir, `ends-${Math.random().toString(36).slice(2)}.${format}`);
    await exportDataset(fx.store, { dataset, format, out, filters, now: () => new Date('2025-03-05T01:00:00Z') });
    return readFileSync(out, 'utf8');
  };

  it('covers every dataset with dates', () => {
    expect(dated).toEqual(['transactions', 'balances', 'statements', 'runs', 'payments']);
  });

  it.each(cases)(
    '%s as %s: exit 0 at each end; 9999-12-31 and 0000-01-01 leave out nothing',
    async (dataset, format) => {
      for (const filters of ends) {
        // An OFX statement of a range before any balance was read has no LEDGERBAL: exit 2, as documented.
        if (format === 'ofx' && filters.to === '0999-12-31') continue;
        await bytes(dataset, format, scoped(format, filters));
      }
      if ((STATEMENT_FORMATS as readonly string[]).includes(format)) return; // DTSTART/DTEND, the range itself
      const all = await bytes(dataset, format, scoped(format, {}));
      expect(await bytes(dataset, format, scoped(format, { to: '9999-12-31' }))).toBe(all);
      expect(await bytes(dataset, format, scoped(format, { from: '0000-01-01', to: '9999-12-31' }))).toBe(all);
    },
  );

  it.each(['10000-01-01', '+010000-01-01', '2025-02-30', '2025-2-3', '9999-12-32'])(
    '%s is a usage error naming the flag',
    (value) => {
      expect(() => validateExportRequest('transactions', 'csv', { to: value })).toThrow(
        `--to is not a date: ${JSON.stringify(value)}`,
      );
    },
  );
});
