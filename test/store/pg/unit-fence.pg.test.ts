/**
 * Every unit write of a consent in a PostgreSQL run commits only while this worker holds the
 * consent (docs/postgres.md "Cooperating workers"): once another worker took it over (this one
 * judged gone), the write is refused with LeaseLostError and its transaction rolled back, so a
 * worker that wakes from a pause never writes over the consent's new holder.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  Balance,
  Party,
  Statement,
  Transaction,
  type AccountId,
  type BankName,
  type ConsentId,
} from '@bankdata/core/schemas';
import { LeaseLostError, type RunWork } from '../../../src/store';
import { createPool } from '../../../src/store/pg/open';
import { openPgStore, type PgStore } from '../../../src/store/pg/pg-store';
import { openOrJoinRun } from '../../../src/store/pg/work-queue';
import { toAccountRow, toBalanceRow, toPartyRow, toStatementRow, toTransactionRow } from '../../../src/sync/transform';
import { createTestDatabase, describePostgres } from '../../support/postgres';

const NOW = new Date('2025-03-05T00:00:00.000Z');
const TTL = 60_000;
const BANK = 'PNZ' as BankName;
const CONSENT = 'c0a8012e-7d3b-4f5e-9a61-2b9f4c1d8e70' as ConsentId;
const A1 = 'acc-1' as AccountId;
const ctx = { bank: BANK, consentId: CONSENT, fetchedAt: NOW };

/** Each unit write of the consent, its n-th call writing a row of its own, and the table it writes. */
const writers: [string, string, (store: PgStore, runId: string, n: number) => Promise<unknown>][] = [
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

describePostgres('unit writes fenced by the consent held (PostgreSQL workers)', () => {
  let store: PgStore;
  let other: pg.Pool;
  let work: RunWork;
  beforeEach(async () => {
    const url = await createTestDatabase();
    store = await openPgStore(url, { now: () => NOW });
    other = createPool(url, { max: 2 });
    await store.consents.add(CONSENT);
    await store.commitAccounts({
      ...ctx,
      rows: [toAccountRow({ AccountId: A1, Currency: 'NZD', Nickname: 'Bills' }, ctx)],
      runId: null,
    });
    // A worker on another host: only its term can say it is gone.
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
  afterEach(async () => {
    await other.end();
    await store.close();
  });

  /** The table's rows, whole, as text: what a refused write must leave as it was. */
  const rowsOf = async (table: string) =>
    (await store.pool.query(`SELECT to_jsonb(t)::text AS row FROM ${table} t ORDER BY 1`)).rows.map((r) => r.row);

  describe.each(writers)('%s', (_name, table, write) => {
    it('commits while the worker holds the consent; once it is taken over, is refused and writes nothing', async () => {
      await write(store, work.runId, 1);
      const held = await rowsOf(table);
      // The worker paused past its term: the next worker judges it gone, takes its consent back
      // to the queue and (the run having no live worker left) opens its own run.
      await store.pool.query(
        `UPDATE run_workers SET expires_at = clock_timestamp() - interval '1 second' WHERE run_id = $1`,
        [work.runId],
      );
      const next = await openOrJoinRun(other, {
        worker: { workerId: 'w2', host: 'other-host', pid: 4343 },
        consentIds: [CONSENT],
        runId: randomUUID(),
        now: NOW,
        leaseTtlMs: TTL,
      });
      expect(next.opened).toBe(true);
      await expect(write(store, work.runId, 2)).rejects.toBeInstanceOf(LeaseLostError);
      expect(await rowsOf(table)).toEqual(held);
    });
  });

  it('a write naming a run no worker of this process is in is not fenced (a write outside a sync)', async () => {
    const [, , write] = writers[0]!;
    await write(store, randomUUID(), 1);
    expect((await rowsOf('accounts')).length).toBe(2);
  });
});
