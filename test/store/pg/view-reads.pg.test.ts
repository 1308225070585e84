/**
 * The reads written once for both dialects (src/store/view-reads.ts, continuity.ts,
 * report-queries.ts) against a real PostgreSQL server: the export fixture is filled into SQLite,
 * copied to PostgreSQL, and every dataset in every format, the continuity check and the report's
 * figures are read on both through the same functions (a SqlRunner each). The bytes of every
 * export file and every value must be the same.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { nzDateOf } from '@bankdata/core/nz-time';
import { applyCategories } from '../../../src/categories/apply';
import { checkContinuity } from '../../../src/check/check-accounts';
import { unitsPerMinor } from '@bankdata/core/money';
import { DATASETS, exportDataset, type ExportOptions } from '../../../src/export';
import type { Store } from '../../../src/store';
import { continuityReads } from '../../../src/store/continuity';
import { duplicateOps } from '../../../src/store/duplicates';
import { copySqliteToPostgres } from '../../../src/store/pg/copy-tables';
import { createPool } from '../../../src/store/pg/open';
import { reportReads } from '../../../src/store/report-queries';
import { reportsOf } from '../../../src/store/reports';
import { postgresRunner } from '../../../src/store/pg/pg-runner';
import { sqliteRunner, type SqlRunner } from '../../../src/store/sql-runner';
import { viewReads } from '../../../src/store/view-reads';
import { DEFAULT_TRANSFER_RULES } from '../../../src/transfers/match';
import { refreshTransfers } from '../../../src/transfers/refresh';
import {
  ANZ_CONSENT,
  CARD,
  createFixtureStore,
  EVERYDAY,
  NOW,
  PNZ_CONSENT,
  type FixtureStore,
} from '../../export/fixture-store';
import { createTestDatabase, describePostgres } from '../../support/postgres';

/** The store namespaces these modules implement, over one runner: what each store wires. */
function readsOf(runner: SqlRunner): Store {
  const only = { path: runner.dialect, dialect: runner.dialect, now: () => NOW };
  return {
    ...only,
    continuity: continuityReads(runner),
    duplicates: duplicateOps(runner),
    reportData: reportReads(runner),
    reports: reportsOf(runner, () => NOW),
    views: viewReads(runner),
  } as unknown as Store;
}

type Case = { name: string; options: Omit<ExportOptions, 'out'> };

function cases(): Case[] {
  const out: Case[] = [];
  for (const dataset of DATASETS) {
    for (const format of ['csv', 'json', 'ndjson'])
      out.push({ name: `${dataset}.${format}`, options: { dataset, format } });
  }
  const filtered: [string, Omit<ExportOptions, 'out'>][] = [
    [
      'transactions dates booked',
      { dataset: 'transactions', format: 'csv', filters: { from: '2025-02-10', to: '2025-03-03', status: 'booked' } },
    ],
    ['transactions pending', { dataset: 'transactions', format: 'ndjson', filters: { status: 'pending' } }],
    [
      'transactions two accounts',
      { dataset: 'transactions', format: 'json', filters: { accountId: [EVERYDAY, CARD], bank: 'PNZ' } },
    ],
    [
      'transactions consent',
      { dataset: 'transactions', format: 'csv', filters: { consentId: ANZ_CONSENT }, excel: true, lineEnding: 'lf' },
    ],
    ['transactions no neutralise', { dataset: 'transactions', format: 'csv', neutralise: false }],
    ['balances instants', { dataset: 'balances', format: 'csv', filters: { from: '2025-03-01', to: '2025-03-04' } }],
    ['balances via account consent', { dataset: 'balances', format: 'json', filters: { consentId: PNZ_CONSENT } }],
    ['statements period', { dataset: 'statements', format: 'csv', filters: { from: '2025-02-01', to: '2025-02-20' } }],
    ['runs day', { dataset: 'runs', format: 'ndjson', filters: { from: '2025-03-05', to: '2025-03-05' } }],
    ['payments days', { dataset: 'payments', format: 'csv', filters: { from: '2025-01-01', to: '2025-03-05' } }],
    ['consents bank', { dataset: 'consents', format: 'json', filters: { bank: 'anz' } }],
    ['accounts none', { dataset: 'accounts', format: 'csv', filters: { accountId: 'no-such-account' } }],
  ];
  for (const [name, options] of filtered) out.push({ name, options });
  for (const format of ['xero', 'myob']) {
    out.push({
      name: `${format} everyday`,
      options: { dataset: 'transactions', format, filters: { accountId: EVERYDAY, bank: 'PNZ' } },
    });
  }
  for (const ofxDialect of ['sgml', 'xml']) {
    out.push({
      name: `ofx ${ofxDialect} consent`,
      options: { dataset: 'transactions', format: 'ofx', ofxDialect, filters: { consentId: PNZ_CONSENT } },
    });
    out.push({
      name: `ofx ${ofxDialect} to a day (LEDGERBAL carried)`,
      options: {
        dataset: 'transactions',
        format: 'ofx',
        ofxDialect,
        filters: { accountId: EVERYDAY, bank: 'PNZ', to: '2025-03-02' },
      },
    });
    out.push({
      name: `ofx ${ofxDialect} ANZ`,
      options: { dataset: 'transactions', format: 'ofx', ofxDialect, filters: { consentId: ANZ_CONSENT } },
    });
  }
  return out;
}

describePostgres('reads over the views, the same on SQLite and PostgreSQL', () => {
  let fx: FixtureStore;
  let pool: import('pg').Pool;
  let onSqlite: Store;
  let onPostgres: Store;

  beforeAll(async () => {
    fx = await createFixtureStore();
    // The fixture names a statement file it never wrote; the copy carries files, so write it.
    const content = Buffer.from('%PDF-1.4 fixture statement\n');
    for (const { file_path: path } of fx.store.sqlite
      .prepare('SELECT file_path FROM statements WHERE file_path IS NOT NULL')
      .all() as { file_path: string }[]) {
      mkdirSync(dirname(join(fx.dir, path)), { recursive: true });
      writeFileSync(join(fx.dir, path), content);
      fx.store.sqlite
        .prepare('UPDATE statements SET file_sha256 = ?, file_bytes = ? WHERE file_path = ?')
        .run(createHash('sha256').update(content).digest('hex'), content.length, path);
    }
    // Categories from the MCC table and the bank's codes, and the own-account transfers, so that
    // the report's spend by category reads decided rows on both.
    await applyCategories(fx.store, { rules: [], all: true });
    await refreshTransfers(fx.store, DEFAULT_TRANSFER_RULES);
    pool = createPool(await createTestDatabase());
    await copySqliteToPostgres(fx.store.sqlite, pool, { dataDir: fx.dir });
    onSqlite = readsOf(sqliteRunner(fx.store.sqlite, { safeIntegers: true }));
    onPostgres = readsOf(postgresRunner(pool, { safeIntegers: true }));
  });
  afterAll(async () => {
    await pool?.end();
    await fx?.cleanup();
  });

  /** The export's file bytes, rows and warnings, or its error message. */
  async function exported(store: Store, name: string, options: Omit<ExportOptions, 'out'>) {
    const out = join(fx.dir, `${store.dialect}-${name.replace(/\W+/g, '_')}`);
    try {
      const result = await exportDataset(store, { ...options, out, now: () => NOW });
      return { bytes: readFileSync(out).toString('latin1'), rows: result.rows, warnings: result.warnings };
    } catch (error) {
      return { error: (error as Error).message };
    }
  }

  it('exports every dataset in every format, filtered or not, to the same bytes', async () => {
    let withRows = 0;
    for (const { name, options } of cases()) {
      const sqlite = await exported(onSqlite, name, options);
      const postgres = await exported(onPostgres, name, options);
      expect(postgres, name).toEqual(sqlite);
      if ((sqlite.rows ?? 0) > 0) withRows++;
    }
    // The comparison means something: nearly every case wrote rows.
    expect(withRows).toBeGreaterThanOrEqual(cases().length - 3);
  });

  it('streams a dataset in batches on PostgreSQL (a cursor), the same rows as SQLite', async () => {
    const read = async (store: Store) => {
      const { columns, batches } = await store.views.rows('transactions', { status: 'all' }, { batchSize: 2 });
      const sizes: number[] = [];
      const rows: unknown[][] = [];
      for await (const batch of batches) {
        sizes.push(batch.length);
        rows.push(...batch);
      }
      return { columns, rows, sizes };
    };
    const [sqlite, postgres] = [await read(onSqlite), await read(onPostgres)];
    expect(postgres).toEqual(sqlite);
    expect(postgres.sizes.length).toBeGreaterThan(2);
    expect(postgres.sizes.slice(0, -1).every((n) => n === 2)).toBe(true);
    // Integers arrive exact, as BigInt, on both.
    const minor = postgres.columns.indexOf('amount_minor');
    expect(postgres.rows.some((r) => typeof r[minor] === 'bigint')).toBe(true);
  });

  it('gives the continuity check the same snapshots, rows and findings', async () => {
    const accounts = await onSqlite.continuity.listAccounts();
    expect(accounts.length).toBeGreaterThan(2);
    expect(await onPostgres.continuity.listAccounts()).toEqual(accounts);
    let nonZero = 0;
    let pendingRows = 0;
    for (const account of accounts) {
      const scale = unitsPerMinor(account.currency);
      const options = { scale, lateWindowDays: 14, from: '' };
      const snapshots = await onSqlite.continuity.balanceSnapshots(account, options);
      expect(await onPostgres.continuity.balanceSnapshots(account, options), account.accountId).toEqual(snapshots);
      nonZero += snapshots.filter((s) => s.betweenUnits !== 0n).length;
      // The running-balance walk's reads: the breaks in SQL, the shared instants, the rows around one.
      const walk = async (store: Store) => {
        const shared = await store.continuity.sharedInstants(account, '');
        const first = shared[0];
        return {
          steps: await store.continuity.runningSteps(account, { from: '', horizon: null, scale }),
          shared,
          around:
            first === undefined ? null : await store.continuity.bookedRowsAround(account, { from: '', first, scale }),
        };
      };
      expect(await walk(onPostgres)).toEqual(await walk(onSqlite));
      for (const read of ['transactionCoverage', 'latestBookingDateTime'] as const) {
        expect(await onPostgres.continuity[read](account), read).toEqual(await onSqlite.continuity[read](account));
      }
      const range = { from: '2025-02-01T00:00:00.000Z', to: '2025-03-05T00:00:00.000Z', scale };
      for (const units of [-4250n * scale, 1234567n, 0n, 10_000n * scale]) {
        expect(await onPostgres.continuity.hasLookAlikeRows(account, { ...range, units })).toBe(
          await onSqlite.continuity.hasLookAlikeRows(account, { ...range, units }),
        );
      }
      const pending = await onSqlite.continuity.pendingAmounts(account, scale);
      expect(await onPostgres.continuity.pendingAmounts(account, scale)).toEqual(pending);
      pendingRows += pending.length;
    }
    expect(nonZero).toBeGreaterThan(0);
    expect(pendingRows).toBeGreaterThan(0);

    const sqliteCheck = await checkContinuity(onSqlite, { now: NOW });
    const postgresCheck = await checkContinuity(onPostgres, { now: NOW });
    expect(postgresCheck).toEqual(sqliteCheck);
    expect(await onPostgres.continuity.listFindings()).toEqual(await onSqlite.continuity.listFindings());
    expect(await onPostgres.continuity.countFindings()).toBe(sqliteCheck.findings.length);
  });

  it('writes and lists continuity findings the same way (one transaction, exact text)', async () => {
    const finding = {
      bank: 'PNZ' as const,
      accountId: EVERYDAY,
      kind: 'balances' as const,
      fromDateTime: '2025-03-01T01:00:00.000Z',
      toDateTime: '2025-03-04T01:00:00.000Z',
      fromDate: '2025-03-01',
      toDate: '2025-03-04',
      amount: '-42.50001',
      amountMinor: null,
      currency: 'NZD',
      cause: 'missing_transaction' as const,
      transactionId: null,
      detail: 'planted',
    };
    for (const store of [onSqlite, onPostgres]) {
      await store.continuity.replaceFindings({
        accounts: [finding],
        findings: [finding],
        runId: null,
        checkedAt: NOW.toISOString(),
      });
      // A failing write leaves the findings as they were.
      await expect(
        store.continuity.replaceFindings({
          accounts: [finding],
          findings: [finding, { ...finding, amount: null as never }],
          runId: null,
          checkedAt: NOW.toISOString(),
        }),
      ).rejects.toThrow();
    }
    const listed = await onSqlite.continuity.listFindings({ accountId: EVERYDAY });
    expect(listed.map((f) => f.amount_text)).toEqual(['-42.50001']);
    expect(await onPostgres.continuity.listFindings({ accountId: EVERYDAY })).toEqual(listed);
  });

  it('gives the report the same accounts, daily flows, spend by category, balance anchors, consents, runs and counts', async () => {
    const accounts = await onSqlite.reportData.accounts();
    expect(await onPostgres.reportData.accounts()).toEqual(accounts);
    expect(await onPostgres.reportData.accounts({ accountId: CARD })).toEqual(
      await onSqlite.reportData.accounts({ accountId: CARD }),
    );
    let anchors = 0;
    const spends: { category: string }[] = [];
    for (const account of accounts) {
      const scale = unitsPerMinor(account.currency);
      const flows = await onSqlite.reportData.dailyFlows(account, scale);
      expect(await onPostgres.reportData.dailyFlows(account, scale), account.accountId).toEqual(flows);
      const anchor = await onSqlite.reportData.balanceAnchor(account, { scale, nzDateOf });
      expect(await onPostgres.reportData.balanceAnchor(account, { scale, nzDateOf }), account.accountId).toEqual(
        anchor,
      );
      if (anchor) anchors++;
      const period = { scale, from: '2000-01-01', to: '2099-12-31' };
      const spend = await onSqlite.reportData.categorySpend(account, period);
      expect(await onPostgres.reportData.categorySpend(account, period), account.accountId).toEqual(spend);
      spends.push(...spend);
    }
    expect(anchors).toBeGreaterThan(0);
    expect(spends.length).toBeGreaterThan(0);
    expect(spends.some((s) => s.category !== 'uncategorised')).toBe(true);
    expect(await onPostgres.reportData.consents()).toEqual(await onSqlite.reportData.consents());
    // The runs as the report reads them (a PostgreSQL run's workers aside: SQLite has none).
    const runsOn = async (store: Store) =>
      (await store.reports.latestRuns(10)).map(({ workers: _workers, ...run }) => run);
    expect(await runsOn(onPostgres)).toEqual(await runsOn(onSqlite));
    const payments = await onSqlite.reportData.countPayments();
    expect(payments).toBeGreaterThan(0);
    expect(await onPostgres.reportData.countPayments()).toBe(payments);
  });
});
