/**
 * Every store write of an account's rows on PostgreSQL takes the account's write lock before its
 * first write, and a write of several accounts takes their locks in one order (dialect-sql.ts
 * `lockAccounts`). Two workers syncing two consents over one account (or one commit of several
 * accounts beside another) then wait for each other instead of deadlocking (40P01: a statement
 * file recorded beside another worker's statement listing of the same account ended its unit
 * failed).
 *
 * Each writer is enumerated below: a test connection holds the account's lock, the write must be
 * seen waiting for an advisory lock and settle only once the lock is let go.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
  type StatementId,
} from '@bankdata/core/schemas';
import { createPool } from '../../../src/store/pg/open';
import { openPgStore, type PgStore } from '../../../src/store/pg/pg-store';
import { toAccountRow, toBalanceRow, toPartyRow, toStatementRow, toTransactionRow } from '../../../src/sync/transform';
import { waitFor } from '../../cli/cli-process';
import { createTestDatabase, describePostgres } from '../../support/postgres';

const NOW = new Date('2025-03-05T00:00:00.000Z');
const BANK = 'PNZ' as BankName;
const CONSENT = 'c0a8012e-7d3b-4f5e-9a61-2b9f4c1d8e70' as ConsentId;
const A1 = 'acc-1' as AccountId;
const A2 = 'acc-2' as AccountId;
const ctx = { bank: BANK, consentId: CONSENT, fetchedAt: NOW };

const account = (id: AccountId) => toAccountRow({ AccountId: id, Currency: 'NZD', Nickname: id }, ctx);
const statement = (id: string) =>
  toStatementRow(
    Statement.parse({
      AccountId: A1,
      StatementId: id,
      StatementReference: id,
      Type: 'RegularPeriodic',
      StartDateTime: '2025-02-01T00:00:00+13:00',
      EndDateTime: '2025-02-28T23:59:59+13:00',
      CreationDateTime: '2025-03-01T06:00:00+13:00',
    }),
    ctx,
  );

function fileOf(statementId: string) {
  const content = Buffer.from(`statement ${statementId}\n`);
  const localPath = join(mkdtempSync(join(tmpdir(), 'bankdata-lock-')), `${statementId}.csv`);
  writeFileSync(localPath, content);
  return {
    bank: BANK,
    accountId: A1,
    statementId: statementId as StatementId,
    filePath: `statements/PNZ/${A1}/${statementId}.csv`,
    localPath,
    contentType: 'text/csv',
    sha256: createHash('sha256').update(content).digest('hex'),
    bytes: content.length,
  };
}

/** Each store operation that writes account A1's rows, on a store holding A1 and A2 and statement s1. */
const writers: [string, (store: PgStore) => Promise<unknown>][] = [
  // Several accounts, A2 first as a bank may list them: the locks are still taken A1 first.
  ['commitAccounts', (s) => s.commitAccounts({ ...ctx, rows: [account(A2), account(A1)], runId: null })],
  [
    'commitBalances',
    (s) =>
      s.commitBalances({
        ...ctx,
        accountId: A1,
        rows: [
          toBalanceRow(
            Balance.parse({
              AccountId: A1,
              Amount: { Amount: '10.00', Currency: 'NZD' },
              CreditDebitIndicator: 'Credit',
              Type: 'InterimAvailable',
              DateTime: '2025-03-04T12:05:00+13:00',
            }),
            ctx,
          ),
        ],
        runId: null,
      }),
  ],
  ['commitStatements', (s) => s.commitStatements({ ...ctx, accountId: A1, rows: [statement('s2')], runId: null })],
  ['recordStatementFiles', (s) => s.recordStatementFiles([fileOf('s1')], { runId: null, consentId: ctx.consentId })],
  [
    'commitParty',
    (s) =>
      s.commitParty({
        ...ctx,
        accountId: A1,
        row: toPartyRow(Party.parse({ PartyId: 'p1', Name: 'Jane Smith' }), ctx, A1),
        runId: null,
      }),
  ],
  [
    'commitTransactionWindow',
    (s) =>
      s.commitTransactionWindow({
        ...ctx,
        accountId: A1,
        range: { from: '2025-03-01T00:00:00.000Z', to: '2025-03-05T00:00:00.000Z' },
        creditDebitFilter: null,
        checkpoint: null,
        rows: [
          toTransactionRow(
            Transaction.parse({
              AccountId: A1,
              TransactionId: 't1',
              Amount: { Amount: '18.90', Currency: 'NZD' },
              CreditDebitIndicator: 'Debit',
              Status: 'Booked',
              BookingDateTime: '2025-03-04T12:02:41+13:00',
            }),
            ctx,
          ),
        ],
        runId: null,
      }),
  ],
  [
    'categories.save',
    (s) =>
      s.categories.save([
        {
          bank: BANK,
          accountId: A1,
          transactionId: 't0',
          category: 'food',
          payee: null,
          source: 'rule',
          rule: 'r1',
          rowUpdatedAt: NOW.toISOString(),
        },
      ]),
  ],
  // The consent's rows of A1 (its account, statement) deleted or handed over.
  ['consents.forget', (s) => s.consents.forget(CONSENT, { dryRun: false })],
];

/** This database's advisory locks (pg_locks is the whole server's; other test files run beside this one). */
async function advisoryLocks(client: pg.PoolClient, granted: boolean): Promise<number> {
  const { rows } = await client.query(
    `SELECT count(*) AS n FROM pg_locks
     WHERE locktype = 'advisory' AND granted = $1
       AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    [granted],
  );
  return Number(rows[0].n);
}

/** Takes the account's write lock in the holder's transaction, as the store's writers do. */
const lockOf = (client: pg.PoolClient, accountId: AccountId) =>
  client.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`${BANK}/${accountId}`]);

describePostgres('the account write lock on PostgreSQL', () => {
  let store: PgStore;
  // The other transaction: a connection of the test's own, beside the store's pool.
  let side: pg.Pool;
  let holder: pg.PoolClient;
  beforeEach(async () => {
    const url = await createTestDatabase();
    store = await openPgStore(url, { now: () => NOW });
    side = createPool(url);
    holder = await side.connect();
    await store.consents.add(CONSENT);
    await store.commitAccounts({ ...ctx, rows: [account(A1), account(A2)], runId: null });
    await store.commitStatements({ ...ctx, accountId: A1, rows: [statement('s1')], runId: null });
  });
  afterEach(async () => {
    await holder.query('ROLLBACK').catch(() => undefined);
    holder.release();
    await side.end();
    await store.close();
  });

  describe.each(writers)('%s', (_name, write) => {
    it("waits for another transaction holding the account's lock, then writes", async () => {
      await holder.query('BEGIN');
      await lockOf(holder, A1);
      let settled = false;
      const writing = write(store).finally(() => {
        settled = true;
      });
      // Polled, no fixed sleep: a write that did not wait settles, and the poll stops with none waiting.
      const waiting = await waitFor(async () => {
        const n = await advisoryLocks(holder, false);
        return n !== 0 || settled ? n : undefined;
      });
      expect(waiting).toBe(1);
      expect(settled).toBe(false);
      await holder.query('COMMIT');
      await writing;
    });
  });

  it('takes several accounts’ locks in one order: another transaction taking them in that order never deadlocks with it', async () => {
    await holder.query('BEGIN');
    await lockOf(holder, A1);
    let settled = false;
    const writing = store.commitAccounts({ ...ctx, rows: [account(A2), account(A1)], runId: null }).then(() => {
      settled = true;
    });
    expect(await waitFor(async () => ((await advisoryLocks(holder, false)) !== 0 ? true : undefined))).toBe(true);
    // The commit waits for A1 holding no lock of its own, so the holder's next lock (A2) is free
    // (taken A2 first, it would wait for the holder while the holder waits for it: 40P01).
    expect(await advisoryLocks(holder, true)).toBe(1);
    await lockOf(holder, A2);
    expect(settled).toBe(false);
    await holder.query('COMMIT');
    await writing;
    const { rows } = await store.pool.query(`SELECT account_id FROM accounts ORDER BY account_id`);
    expect(rows.map((r) => r.account_id)).toEqual([A1, A2]);
  });
});
