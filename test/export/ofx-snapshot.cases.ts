/**
 * An OFX file describes one state of the database (docs/exports.md "OFX"): a
 * statement's DTEND and LEDGERBAL come from reads made before its STMTTRNs are read, and they were
 * separate queries, so a booked row a sync committed in between was the file's last STMTTRN while
 * LEDGERBAL and DTEND stayed those of the row before: ledger-autosync and hledger turn LEDGERBAL
 * into a balance assertion, and the import failed. The sync here is a second connection to the
 * database (as another process's would be) that commits the row right after the range read: a
 * hook, no timing. Run on both dialects by ofx-snapshot.test.ts and ofx-snapshot.pg.test.ts.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, expect, it } from 'vitest';
import type { AccountId } from '@bankdata/core/schemas';
import { exportDataset } from '../../src/export';
import type { Store, TransactionRow } from '../../src/store';
import type { ViewReads } from '../../src/store/view-reads';
import { account, CONSENT, fresh } from '../check/check-sql.cases';
import { storeSuite } from '../support/dialects';
import { txn } from './fixture-store';

const ACCOUNT = 'acc-snapshot' as AccountId;
const NOW = () => new Date('2025-03-05T01:00:00.000Z');
const dirs: string[] = [];

/** The views with `late` run after every range read: the store's own, and (the fix) a snapshot's. */
function rangeHooked(views: ViewReads, late: () => Promise<void>): ViewReads {
  return {
    ...views,
    range: async (filters) => {
      const read = await views.range(filters);
      await late();
      return read;
    },
    snapshot: (work) => views.snapshot((inner) => work(rangeHooked(inner, late))),
  };
}

/** A sync's window of 4 March NZ for the account, committed with `rows`. */
function commitMarch4(store: Store, rows: TransactionRow[]) {
  return store.commitTransactionWindow({
    bank: 'PNZ',
    accountId: ACCOUNT,
    consentId: CONSENT,
    range: { from: '2025-03-04T00:00:00+13:00', to: '2025-03-04T23:00:00+13:00' },
    creditDebitFilter: null,
    rows,
    checkpoint: null,
    runId: null,
  });
}

/** The account's OFX statement: its amounts in order, DTEND and LEDGERBAL. */
async function statement(store: Store): Promise<{ amounts: string[]; dtEnd?: string; ledger?: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'bankdata-ofx-snapshot-'));
  dirs.push(dir);
  const out = join(dir, 'statement.ofx');
  await exportDataset(store, {
    dataset: 'transactions',
    format: 'ofx',
    out,
    filters: { accountId: ACCOUNT, bank: 'PNZ' },
    now: NOW,
  });
  const ofx = readFileSync(out, 'utf8');
  return {
    amounts: [...ofx.matchAll(/<TRNAMT>([^<\s]+)/g)].map((m) => m[1]!),
    dtEnd: /<DTEND>(\d{8})/.exec(ofx)?.[1],
    ledger: /<LEDGERBAL>\s*<BALAMT>([^<\s]+)/.exec(ofx)?.[1],
  };
}

export const ofxSnapshotSuite = storeSuite('an OFX file read from one state of the database', (d) => {
  afterAll(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('a booked row a sync commits between the range read and the rows read: STMTTRNs, DTEND and LEDGERBAL describe the same rows', async () => {
    const store = await d.open();
    await fresh(store);
    await account(store, ACCOUNT, [
      ['snap-1', '2025-03-01T00:00:00.000Z', '100.00', '2330.07'],
      ['snap-2', '2025-03-03T00:00:00.000Z', '-15.00', '2315.07'],
    ]);
    const sync = await d.reopen(store);
    let committed = false;
    const late = async () => {
      if (committed) return;
      committed = true;
      await commitMarch4(sync, [
        txn('PNZ', ACCOUNT, CONSENT, {
          id: 'late-1',
          at: '2025-03-04T10:00:00+13:00',
          amount: '-15.00',
          balanceAfter: '2300.07',
        }),
      ]);
    };
    store.views = rangeHooked(store.views, late);

    // The file of the state its first read saw: the late row in none of its parts.
    const during = await statement(store);
    expect(committed).toBe(true);
    expect(during).toEqual({ amounts: ['100.00', '-15.00'], dtEnd: '20250303', ledger: '2315.07' });
    // The next export reads the row the sync committed, in all of them.
    expect(await statement(store)).toEqual({
      amounts: ['100.00', '-15.00', '-15.00'],
      dtEnd: '20250304',
      ledger: '2300.07',
    });
  });

  it('an output that fails mid-stream: its own error is raised, and the store is left out of any transaction', async () => {
    const store = await d.open();
    await fresh(store);
    // Enough rows for the file to be written in several chunks.
    const rows: [string, string, string, string][] = [];
    for (let i = 0; i < 3000; i++)
      rows.push([
        `r-${i}`,
        new Date(Date.UTC(2024, 0, 1) + i * 3_600_000).toISOString(),
        '-1.00',
        `${100_000 - i - 1}.00`,
      ]);
    await account(store, ACCOUNT, rows);
    let writes = 0;
    const broken = new Writable({
      write(_chunk, _encoding, done) {
        writes += 1;
        done(writes > 2 ? Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }) : null);
      },
    });
    const failed = await exportDataset(store, {
      dataset: 'transactions',
      format: 'ofx',
      out: '-',
      stdout: broken,
      filters: { accountId: ACCOUNT, bank: 'PNZ' },
      now: NOW,
    }).then(
      () => null,
      (error: unknown) => error as Error,
    );
    // The output's own error (exit 7 at the command), not the database's "busy executing a query".
    expect(failed?.message).toMatch(/EPIPE/);
    // The store goes on: a read, and a write (which a transaction left open refused).
    expect(await store.views.accounts({ accountId: ACCOUNT })).toHaveLength(1);
    await commitMarch4(store, []);
  });
});
