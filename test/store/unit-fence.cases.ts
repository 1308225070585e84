/**
 * Every unit write of a consent in a run commits only while this process still holds the
 * consent in that run, on both dialects (SQLite: the run's lease, docs/configuration.md "Sync
 * rules"; PostgreSQL: the worker's lease of the consent, docs/postgres.md "Cooperating workers"):
 * once another run or worker took it over (this one paused past its term), the write is refused
 * with LeaseLostError and its transaction rolled back, so a process that wakes from a pause never
 * writes over what the consent's new holder wrote. The writers are every unit write of the store.
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  Balance,
  Party,
  Statement,
  Transaction,
  type AccountId,
  type BankName,
  type ConsentId,
  type StatementId,
} from '@bankdata/core/schemas';
import { LeaseLostError, type RunWork, type Store } from '../../src/store';
import { toAccountRow, toBalanceRow, toPartyRow, toStatementRow, toTransactionRow } from '../../src/sync/transform';
import { execute, queryRows, storeSuite, type DialectContext } from '../support/dialects';

const NOW = new Date('2025-03-05T00:00:00.000Z');
const TTL = 60_000;
const BANK = 'PNZ' as BankName;
const CONSENT = 'c0a8012e-7d3b-4f5e-9a61-2b9f4c1d8e70' as ConsentId;
const A1 = 'acc-1' as AccountId;
const ctx = { bank: BANK, consentId: CONSENT, fetchedAt: NOW };

/** A statement listed before the run (`f1`…`f3`), whose file a writer records. */
const listedStatement = (id: string) =>
  toStatementRow(
    Statement.parse({
      AccountId: A1,
      StatementId: id,
      StatementReference: id,
      Type: 'RegularPeriodic',
      StartDateTime: '2025-01-01T00:00:00+13:00',
      EndDateTime: '2025-01-31T23:59:59+13:00',
      CreationDateTime: '2025-02-01T06:00:00+13:00',
    }),
    ctx,
  );

/** Statement `f${n}`'s file as it lies on disk after its download (PostgreSQL copies its bytes in). */
function downloadedFile(n: number) {
  const content = Buffer.from(`%PDF-1.4 statement f${n}\n`);
  const localPath = join(mkdtempSync(join(tmpdir(), 'bankdata-fence-')), `f${n}.pdf`);
  writeFileSync(localPath, content);
  return {
    bank: BANK,
    accountId: A1,
    statementId: `f${n}` as StatementId,
    filePath: `statements/PNZ/acc-1/f${n}.pdf`,
    localPath,
    contentType: 'application/pdf',
    sha256: createHash('sha256').update(content).digest('hex'),
    bytes: content.byteLength,
  };
}

/** Each unit write of the consent, its n-th call writing a row of its own, and the table it writes. */
const writers: [string, string, (store: Store, runId: string, n: number) => Promise<unknown>][] = [
  [
    'commitAccounts',
    'accounts',
    (s, runId, n) =>
      s.commitAccounts({
        ...ctx,
        rows: [toAccountRow({ AccountId: `acc-new-${n}` as AccountId, Currency: 'NZD', Nickname: 'new' }, ctx)],
        runId,
      }),
  ],
  [
    'commitBalances',
    'balances',
    (s, runId, n) =>
      s.commitBalances({
        ...ctx,
        accountId: A1,
        rows: [
          toBalanceRow(
            Balance.parse({
              AccountId: A1,
              Amount: { Amount: `${10 + n}.00`, Currency: 'NZD' },
              CreditDebitIndicator: 'Credit',
              Type: 'InterimAvailable',
              DateTime: '2025-03-04T12:05:00+13:00',
            }),
            ctx,
          ),
        ],
        runId,
      }),
  ],
  [
    'commitStatements',
    'statements',
    (s, runId, n) =>
      s.commitStatements({
        ...ctx,
        accountId: A1,
        rows: [
          toStatementRow(
            Statement.parse({
              AccountId: A1,
              StatementId: `s${n}`,
              StatementReference: `s${n}`,
              Type: 'RegularPeriodic',
              StartDateTime: '2025-02-01T00:00:00+13:00',
              EndDateTime: '2025-02-28T23:59:59+13:00',
              CreationDateTime: '2025-03-01T06:00:00+13:00',
            }),
            ctx,
          ),
        ],
        runId,
      }),
  ],
  [
    'commitParty',
    'parties',
    (s, runId, n) =>
      s.commitParty({
        ...ctx,
        accountId: A1,
        row: toPartyRow(Party.parse({ PartyId: `p${n}`, Name: `Owner ${n}` }), ctx, A1),
        runId,
      }),
  ],
  [
    'recordStatementFiles',
    'statements',
    (s, runId, n) => s.recordStatementFiles([downloadedFile(n)], { runId, consentId: CONSENT }),
  ],
  [
    'commitTransactionWindow',
    'transactions',
    (s, runId, n) =>
      s.commitTransactionWindow({
        ...ctx,
        accountId: A1,
        range: { from: '2025-03-01T00:00:00.000Z', to: '2025-03-05T00:00:00.000Z' },
        creditDebitFilter: null,
        checkpoint: { watermark: '2025-03-05T00:00:00.000Z' },
        rows: [
          toTransactionRow(
            Transaction.parse({
              AccountId: A1,
              TransactionId: `t${n}`,
              Amount: { Amount: '18.90', Currency: 'NZD' },
              CreditDebitIndicator: 'Debit',
              Status: 'Pending',
              BookingDateTime: '2025-03-04T12:02:41+13:00',
            }),
            ctx,
          ),
        ],
        runId,
      }),
  ],
];

/** The table's rows, whole, as sorted text: what a refused write must leave as it was. */
const rowsOf = async (store: Store, table: string) =>
  (await queryRows(store, `SELECT * FROM ${table}`)).map((row) => JSON.stringify(row)).sort();

/**
 * Another process takes the consent over from the run begun at NOW, its holder paused past its
 * term: SQLite, a new run whose lease acquisition finds the old one expired; PostgreSQL, a worker
 * that finds the old one's term lapsed (its stored expiry, judged by the server's clock) and opens
 * a run of its own.
 */
async function takeOver(d: DialectContext, store: Store, runId: string): Promise<void> {
  const later = new Date(NOW.getTime() + TTL);
  const other = await d.reopen(store, { now: () => later });
  if (d.dialect === 'postgres')
    await execute(
      store,
      `UPDATE run_workers SET expires_at = clock_timestamp() - interval '1 second' WHERE run_id = ?`,
      runId,
    );
  const begun = await other.runs.begin({
    consentIds: [CONSENT],
    holder: { host: 'other-host', pid: 4343 },
    leaseTtlMs: TTL,
    now: later,
  });
  expect(begun.ok).toBe(true);
}

export const unitFenceSuite = storeSuite('unit writes fenced by the run that holds the consent', (d) => {
  let store: Store;
  let work: RunWork;
  beforeEach(async () => {
    store = await d.open({ now: () => NOW });
    await store.consents.add(CONSENT);
    await store.commitAccounts({
      ...ctx,
      rows: [toAccountRow({ AccountId: A1, Currency: 'NZD', Nickname: 'Bills' }, ctx)],
      runId: null,
    });
    await store.commitStatements({
      ...ctx,
      accountId: A1,
      rows: ['f1', 'f2', 'f3'].map(listedStatement),
      runId: null,
    });
    // A holder on another host: only its term can say it is gone.
    const begun = await store.runs.begin({
      consentIds: [CONSENT],
      holder: { host: 'other-host', pid: 4242 },
      leaseTtlMs: TTL,
      now: NOW,
    });
    if (!begun.ok) throw new Error('the run was not begun');
    work = begun.work;
    expect(await work.next(NOW)).toBe(CONSENT);
  });

  describe.each(writers)('%s', (_name, table, write) => {
    it('commits while the run holds the consent; once it is taken over, is refused and writes nothing', async () => {
      await write(store, work.runId, 1);
      const held = await rowsOf(store, table);
      expect(held.some((row) => row.includes('1'))).toBe(true);
      await takeOver(d, store, work.runId);
      await expect(write(store, work.runId, 2)).rejects.toBeInstanceOf(LeaseLostError);
      expect(await rowsOf(store, table)).toEqual(held);
    });
  });

  it('a write past the term that nobody took over commits (the term alone does not lose the consent)', async () => {
    const [, table, write] = writers.at(-1)!;
    if (d.dialect === 'postgres')
      await execute(
        store,
        `UPDATE run_workers SET expires_at = clock_timestamp() - interval '1 second' WHERE run_id = ?`,
        work.runId,
      );
    await write(store, work.runId, 3);
    expect((await rowsOf(store, table)).length).toBe(1);
  });

  it('a write naming a run this process does not hold is not fenced (a write outside a sync)', async () => {
    const [, , write] = writers[0]!;
    await write(store, randomUUID(), 1);
    expect((await rowsOf(store, 'accounts')).length).toBe(2);
  });
});
