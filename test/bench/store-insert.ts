/**
 * SqliteStore writes: the same BENCH_ROWS transaction rows (200 000), made from the emulator's world
 * by the sync's own transform (50 000, copied under other account ids up to the count), written side by side into fresh databases opened the same way
 * (openStore: WAL, synchronous NORMAL, foreign keys, the same migrated schema):
 *   (a) through `store.commitTransactionWindow`, one call per window of ~BENCH_WINDOW rows (500)
 *       of one account, as the sync commits them;
 *   (b) a plain better-sqlite3 prepared INSERT loop, one transaction per window;
 *   (c) a plain prepared SELECT-by-key then INSERT loop (the store's logic without drizzle), one
 *       transaction per window;
 *   (d) (a)'s windows committed again into (a)'s database: every row unchanged, as a lookback
 *       re-fetch.
 * Rows/s of each, and the ratio to (b).
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DateTime } from 'luxon';
import { BANKS, type ConsentId } from '@bankdata/core/schemas';
import { generateWorld } from '@bankdata/emulator/world';
import { openStore, type AccountRow, type SqliteStore, type TransactionRow } from '../../src/store';
import { toAccountRow, toTransactionRow } from '../../src/sync/transform';

const ROWS = Number(process.env.BENCH_ROWS ?? 200_000);
const WINDOW = Number(process.env.BENCH_WINDOW ?? 500);
const START = DateTime.fromISO('2026-03-10T10:00:00+13:00', { setZone: true }).toUTC();
const CONSENT = '5d1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d' as ConsentId;
const NOW = new Date('2026-03-10T00:00:00.000Z');
/** Transactions per customer in the default world (about 560), to size it. */
const ROWS_PER_CUSTOMER = 500;
/** Rows made from the world; the rest are copies under other account ids. */
const BASE_ROWS = Number(process.env.BENCH_BASE_ROWS ?? 50_000);

interface Window {
  accountId: TransactionRow['accountId'];
  bank: TransactionRow['bank'];
  from: Date;
  to: Date;
  rows: TransactionRow[];
}

/**
 * The world's transactions as the sync would store them, cut into windows of one account. Up
 * to BASE_ROWS come from the world through toTransactionRow; past that, copies of its accounts
 * (AccountId suffixed `~2`, `~3`…) carry the same rows, which keeps the set-up short.
 */
function makeRows(): { accounts: AccountRow[]; windows: Window[]; rows: number } {
  const base = Math.min(ROWS, BASE_ROWS);
  const customersPerBank = Math.max(1, Math.ceil(base / ROWS_PER_CUSTOMER / BANKS.length));
  const world = generateWorld({ seed: 7, start: START, banks: BANKS, customersPerBank });
  const made: { account: AccountRow; rows: TransactionRow[] }[] = [];
  let rows = 0;
  for (const account of world.accounts.values()) {
    if (rows >= base) break;
    const ctx = { bank: account.bank, consentId: CONSENT, fetchedAt: NOW };
    const txs = world
      .transactionsAt(account.bank, account.account.AccountId, START)
      .slice(0, base - rows)
      .reverse();
    rows += txs.length;
    made.push({ account: toAccountRow(account.account, ctx), rows: txs.map((t) => toTransactionRow(t, ctx)) });
  }
  if (rows < base) throw new Error(`bench: the world holds ${rows} transactions, fewer than ${base}`);
  const accounts: AccountRow[] = [];
  const windows: Window[] = [];
  rows = 0;
  for (let copy = 1; rows < ROWS; copy++) {
    for (const { account, rows: original } of made) {
      if (rows >= ROWS) break;
      const accountId = (copy === 1 ? account.accountId : `${account.accountId}~${copy}`) as AccountRow['accountId'];
      const txs = original.slice(0, ROWS - rows).map((r) => (copy === 1 ? r : { ...r, accountId }));
      rows += txs.length;
      accounts.push({ ...account, accountId });
      for (let i = 0; i < txs.length; i += WINDOW) {
        const chunk = txs.slice(i, i + WINDOW);
        windows.push({
          accountId,
          bank: account.bank,
          from: new Date(chunk[0]!.bookingDateTime),
          to: new Date(chunk.at(-1)!.bookingDateTime),
          rows: chunk,
        });
      }
    }
  }
  return { accounts, windows, rows };
}

/** A fresh database with the consent and the accounts the rows belong to (not timed). */
async function freshStore(dir: string, name: string, accounts: AccountRow[]): Promise<SqliteStore> {
  const store = await openStore(join(dir, `${name}.sqlite`), { now: () => NOW });
  await store.consents.add(CONSENT);
  await store.commitAccounts({ bank: accounts[0]!.bank, consentId: CONSENT, runId: null, rows: [] });
  for (const bank of BANKS) {
    const rows = accounts.filter((a) => a.bank === bank);
    if (rows.length > 0) await store.commitAccounts({ bank, consentId: CONSENT, runId: null, rows });
  }
  return store;
}

const COLUMNS: readonly (keyof TransactionRow)[] = [
  'bank',
  'accountId',
  'transactionId',
  'consentId',
  'status',
  'bookingDateTime',
  'bookingDate',
  'valueDateTime',
  'amount',
  'amountMinor',
  'currency',
  'creditDebitIndicator',
  'description',
  'merchantName',
  'merchantCategoryCode',
  'creditorName',
  'debtorName',
  'creditorParticulars',
  'creditorCode',
  'creditorReference',
  'debtorParticulars',
  'debtorCode',
  'debtorReference',
  'bankTransactionCode',
  'bankTransactionSubcode',
  'proprietaryCode',
  'balanceAfter',
  'counterpartyAccount',
  'rawJson',
];
const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const INSERT_SQL =
  `INSERT INTO transactions (${[...COLUMNS.map(snake), 'first_seen_at', 'last_seen_at', 'updated_at', 'removed_at'].join(', ')}) ` +
  `VALUES (${[...COLUMNS, 'a', 'b', 'c', 'd'].map(() => '?').join(', ')})`;

function values(row: TransactionRow, now: string): unknown[] {
  return [...COLUMNS.map((c) => row[c]), now, now, now, null];
}

async function timeIt(work: () => unknown): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

async function viaStore(store: SqliteStore, windows: readonly Window[]): Promise<number> {
  return timeIt(async () => {
    for (const w of windows) {
      await store.commitTransactionWindow({
        bank: w.bank,
        accountId: w.accountId,
        consentId: CONSENT,
        range: { from: w.from, to: w.to },
        creditDebitFilter: null,
        rows: w.rows,
        checkpoint: { watermark: w.to },
        runId: null,
        now: NOW,
      });
    }
  });
}

function plainInsert(store: SqliteStore, windows: readonly Window[]): Promise<number> {
  const insert = store.sqlite.prepare(INSERT_SQL);
  const now = NOW.toISOString();
  const commit = store.sqlite.transaction((rows: readonly TransactionRow[]) => {
    for (const row of rows) insert.run(values(row, now));
  });
  return timeIt(() => {
    for (const w of windows) commit(w.rows);
  });
}

function plainSelectThenInsert(store: SqliteStore, windows: readonly Window[]): Promise<number> {
  const insert = store.sqlite.prepare(INSERT_SQL);
  const select = store.sqlite.prepare(
    'SELECT * FROM transactions WHERE bank = ? AND account_id = ? AND transaction_id = ?',
  );
  const now = NOW.toISOString();
  const commit = store.sqlite.transaction((rows: readonly TransactionRow[]) => {
    for (const row of rows) {
      if (select.get(row.bank, row.accountId, row.transactionId) === undefined) insert.run(values(row, now));
    }
  });
  return timeIt(() => {
    for (const w of windows) commit(w.rows);
  });
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-NZ');
const count = (store: SqliteStore) =>
  (store.sqlite.prepare('SELECT count(*) AS n FROM transactions').get() as { n: number }).n;

export default async function bench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bankdata-bench-store-'));
  try {
    let t = performance.now();
    const { accounts, windows, rows } = makeRows();
    process.stdout.write(
      `made ${fmt(rows)} rows of ${accounts.length} accounts in ${windows.length} windows (≤ ${WINDOW} rows) from the world in ${fmt(performance.now() - t)} ms\n`,
    );
    const results: [string, number, number][] = [];
    const measure = async (
      label: string,
      name: string | SqliteStore,
      run: (store: SqliteStore) => number | Promise<number>,
      expected: number,
    ) => {
      const store = typeof name === 'string' ? await freshStore(dir, name, accounts) : name;
      const ms = await run(store);
      // Sanity: every row landed once.
      if (count(store) !== expected) throw new Error(`bench: ${label} holds ${count(store)} rows, not ${expected}`);
      results.push([label, rows, ms]);
      const mb =
        statSync(store.path).size / 1e6 +
        (existsSync(`${store.path}-wal`) ? statSync(`${store.path}-wal`).size / 1e6 : 0);
      process.stdout.write(`${label}: ${fmt(ms)} ms (database and WAL ${fmt(mb)} MB)\n`);
      return store;
    };
    t = performance.now();
    const plain = await measure(
      '(b) plain prepared INSERT, one transaction per window',
      'plain',
      (s) => plainInsert(s, windows),
      rows,
    );
    await plain.close();
    const storeDb = await measure(
      '(a) store.commitTransactionWindow per window',
      'store',
      (s) => viaStore(s, windows),
      rows,
    );
    const lookup = await measure(
      '(c) plain prepared SELECT by key, then INSERT',
      'lookup',
      (s) => plainSelectThenInsert(s, windows),
      rows,
    );
    await lookup.close();
    await measure(
      '(d) store.commitTransactionWindow again, every row unchanged',
      storeDb,
      (s) => viaStore(s, windows),
      rows,
    );
    await storeDb.close();

    const plainMs = results.find(([label]) => label.startsWith('(b)'))![2];
    process.stdout.write('\n| Write path | Rows | Time (ms) | Rows/s | Time vs (b) |\n|---|---:|---:|---:|---:|\n');
    for (const [label, n, ms] of [...results].sort((x, y) => x[0].localeCompare(y[0]))) {
      process.stdout.write(
        `| ${label} | ${fmt(n)} | ${fmt(ms)} | ${fmt(n / (ms / 1000))} | ${(ms / plainMs).toFixed(1)}× |\n`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
