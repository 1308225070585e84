/**
 * Duplicates the bank served (docs/continuity.md "Duplicates the bank served"), on both dialects:
 * the check marks the row a balance proves extra, with its evidence, never deleting it
 * (v_duplicates, v_transactions.suspected_duplicate); a later balance that no longer supports the
 * suspicion clears it; look-alike rows the balances do not prove extra, or two groups that could
 * each hold the extra row, are not marked; the bank's running balance that repeats marks every
 * row of the run but the first seen, each once. Run by duplicates.test.ts and duplicates.pg.test.ts.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { toUnits } from '@bankdata/core/money';
import type { AccountId, ConsentId, TransactionId } from '@bankdata/core/schemas';
import { checkContinuity } from '../../src/check/check-accounts';
import { exportDataset } from '../../src/export';
import type { Store } from '../../src/store';
import { execute, queryRows, storeSuite } from '../support/dialects';
import { account, fresh } from './check-sql.cases';

const CONSENT = '5d1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d' as ConsentId;
const NOW = '2025-06-30T00:00:00.000Z';
const ACCOUNT = 'acc-1';
const day = (d: number) => `2025-01-${String(d).padStart(2, '0')}T11:00:00.000Z`;

/** [id, instant, signed amount, description, first seen, running balance] */
type Row = [string, string, string, string, string, string?];

async function setUp(store: Store, rows: Row[]): Promise<void> {
  await store.consents.add(CONSENT);
  await execute(
    store,
    'UPDATE consents SET permissions = ?, start_date_time = ? WHERE consent_id = ?',
    'ReadAccountsDetail ReadBalances ReadTransactionsDetail',
    '2025-05-01T00:00:00.000Z',
    CONSENT,
  );
  await execute(
    store,
    `INSERT INTO accounts (bank, account_id, consent_id, currency, raw_json, first_seen_at, last_seen_at, updated_at)
     VALUES ('PNZ', ?, ?, 'NZD', '{}', ?, ?, ?)`,
    ACCOUNT,
    CONSENT,
    NOW,
    NOW,
    NOW,
  );
  await execute(
    store,
    `INSERT INTO sync_state (bank, account_id, consent_id, resource, watermark, updated_at)
     VALUES ('PNZ', ?, ?, 'transactions', ?, ?)`,
    ACCOUNT,
    CONSENT,
    NOW,
    NOW,
  );
  for (const [id, at, amount, description, seen, balance = null] of rows) {
    await execute(
      store,
      `INSERT INTO transactions (bank, account_id, transaction_id, consent_id, status, booking_date_time, booking_date,
         amount, amount_minor, currency, credit_debit_indicator, description, balance_after, raw_json, first_seen_at, last_seen_at, updated_at)
       VALUES ('PNZ', ?, ?, ?, 'Booked', ?, ?, ?, ?, 'NZD', ?, ?, ?, '{}', ?, ?, ?)`,
      ACCOUNT,
      id,
      CONSENT,
      at,
      at.slice(0, 10),
      amount,
      Number(toUnits(amount) / 1000n),
      amount.startsWith('-') ? 'Debit' : 'Credit',
      description,
      balance,
      seen,
      seen,
      seen,
    );
  }
}

async function balance(store: Store, at: string, amount: string, fetchedAt = at): Promise<void> {
  await execute(
    store,
    `INSERT INTO balances (bank, account_id, consent_id, type, amount, amount_minor, currency, credit_debit_indicator, date_time, raw_json, fetched_at)
     VALUES ('PNZ', ?, ?, 'InterimBooked', ?, ?, 'NZD', ?, ?, '{}', ?)`,
    ACCOUNT,
    CONSENT,
    amount,
    Number(toUnits(amount) / 1000n),
    amount.startsWith('-') ? 'Debit' : 'Credit',
    at,
    fetchedAt,
  );
}

const dir = mkdtempSync(join(tmpdir(), 'bankdata-duplicates-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The transactions exported in `format` (filters as given): the file's text. */
async function exported(store: Store, format: string, filters: Record<string, unknown> = {}): Promise<string> {
  // Made again if the per-file clean-up of the other dialect's file took it (the module is shared).
  mkdirSync(dir, { recursive: true });
  const out = join(dir, `${store.dialect}-${format}-${Math.random().toString(36).slice(2)}`);
  await exportDataset(store, { dataset: 'transactions', format, out, filters, now: () => new Date(NOW) });
  return readFileSync(out, 'utf8');
}

const check = (store: Store, now = NOW) => checkContinuity(store, { now: new Date(now) });

const flags = async (store: Store) =>
  (
    await queryRows<{ transaction_id: string; suspected_duplicate: unknown }>(
      store,
      'SELECT transaction_id, suspected_duplicate FROM v_transactions ORDER BY transaction_id',
    )
  ).map((r) => `${r.transaction_id}=${r.suspected_duplicate === true || r.suspected_duplicate === 1 ? 1 : 0}`);

/** Two coffees at one instant, the first seen later than the second (and with the smaller id). */
const COFFEES: Row[] = [
  ['tx-0', '2025-06-05T01:00:00.000Z', '-10.00', 'Coffee', '2025-06-07T00:00:00.000Z'],
  ['tx-1', '2025-06-05T01:00:00.000Z', '-10.00', 'Coffee', '2025-06-06T00:00:00.000Z'],
  ['tx-2', '2025-06-06T02:00:00.000Z', '5.00', 'Refund', '2025-06-07T00:00:00.000Z'],
];

export const duplicatesSuite = storeSuite('duplicates the bank served', ({ open }) => {
  it('marks the later-seen of two identical rows a booked balance proves extra, with the evidence; no row is deleted', async () => {
    const store = await open();
    await setUp(store, COFFEES);
    await balance(store, '2025-06-01T00:00:00.000Z', '1000.00');
    // The bank counted one coffee: 1000 - 10 + 5.
    await balance(store, '2025-06-10T00:00:00.000Z', '995.00');
    const result = await check(store);
    expect(result.findings.map((f) => f.cause)).toEqual(['duplicate']);
    expect(result.duplicates.map((d) => [d.transactionId, d.twinTransactionId])).toEqual([['tx-0', 'tx-1']]);
    expect(result.duplicateCounts).toEqual({ marked: 1, kept: 0, cleared: 0 });
    const rows = await queryRows(
      store,
      `SELECT transaction_id, twin_transaction_id, evidence, balance_date, balance_date_time, balance_text,
              counted_balance_text, amount_off_text, amount_off_minor, currency, description, amount_text, suspected_at
       FROM v_duplicates`,
    );
    expect(rows).toEqual([
      {
        transaction_id: 'tx-0',
        twin_transaction_id: 'tx-1',
        evidence: 'balances',
        balance_date: '2025-06-10',
        balance_date_time: '2025-06-10T00:00:00.000Z',
        balance_text: '995.00',
        counted_balance_text: '985.00',
        amount_off_text: '10.00',
        amount_off_minor: 1000,
        currency: 'NZD',
        description: 'Coffee',
        amount_text: '-10.00',
        suspected_at: NOW,
      },
    ]);
    expect(await flags(store)).toEqual(['tx-0=1', 'tx-1=0', 'tx-2=0']);
    // A second check keeps it (suspected_at unchanged).
    const again = await check(store, '2025-07-01T00:00:00.000Z');
    expect(again.duplicateCounts).toEqual({ marked: 0, kept: 1, cleared: 0 });
    expect(await queryRows(store, 'SELECT suspected_at, checked_at FROM v_duplicates')).toEqual([
      { suspected_at: NOW, checked_at: '2025-07-01T00:00:00.000Z' },
    ]);
    expect(await queryRows(store, 'SELECT count(*) AS n FROM transactions')).toEqual([{ n: 3 }]);
  });

  it('a later balance that catches up with the second row clears the suspicion (kept, with cleared_at)', async () => {
    const store = await open();
    await setUp(store, COFFEES);
    await balance(store, '2025-06-01T00:00:00.000Z', '1000.00');
    await balance(store, '2025-06-10T00:00:00.000Z', '995.00');
    await check(store);
    expect(await flags(store)).toEqual(['tx-0=1', 'tx-1=0', 'tx-2=0']);
    // The bank's next balance counts both coffees: the second one was real.
    await balance(store, '2025-06-20T00:00:00.000Z', '985.00');
    const later = await check(store, '2025-07-01T00:00:00.000Z');
    expect(later.duplicates).toEqual([]);
    expect(later.duplicateCounts).toEqual({ marked: 0, kept: 0, cleared: 1 });
    expect(await flags(store)).toEqual(['tx-0=0', 'tx-1=0', 'tx-2=0']);
    expect(await queryRows(store, 'SELECT count(*) AS n FROM v_duplicates')).toEqual([{ n: 0 }]);
    expect(await queryRows(store, 'SELECT transaction_id, cleared_at FROM duplicate_suspicions')).toEqual([
      { transaction_id: 'tx-0', cleared_at: '2025-07-01T00:00:00.000Z' },
    ]);
  });

  it('look-alike rows the balances count both of are not marked', async () => {
    const store = await open();
    await setUp(store, COFFEES);
    await balance(store, '2025-06-01T00:00:00.000Z', '1000.00');
    await balance(store, '2025-06-10T00:00:00.000Z', '985.00');
    const result = await check(store);
    expect(result.findings).toEqual([]);
    expect(result.duplicates).toEqual([]);
    expect(await flags(store)).toEqual(['tx-0=0', 'tx-1=0', 'tx-2=0']);
  });

  it('two groups of look-alike rows that could each hold the extra row: none is marked', async () => {
    const store = await open();
    await setUp(store, [
      ...COFFEES,
      ['tx-3', '2025-06-07T03:00:00.000Z', '-10.00', 'Tea', '2025-06-08T00:00:00.000Z'],
      ['tx-4', '2025-06-07T03:00:00.000Z', '-10.00', 'Tea', '2025-06-08T00:00:00.000Z'],
    ]);
    await balance(store, '2025-06-01T00:00:00.000Z', '1000.00');
    // Three of the four rows counted: one of them is extra, and nothing says which.
    await balance(store, '2025-06-10T00:00:00.000Z', '975.00');
    const result = await check(store);
    expect(result.findings.map((f) => f.cause)).toEqual(['duplicate']);
    expect(result.duplicates).toEqual([]);
  });

  it('a running balance that repeats marks the later-seen row (then the greater id), with the running balance as evidence', async () => {
    const store = await open();
    const seen = '2025-06-08T00:00:00.000Z';
    await setUp(store, [
      ['r-1', '2025-06-01T01:00:00.000Z', '100.00', 'Pay', seen, '1100.00'],
      ['r-2', '2025-06-03T01:00:00.000Z', '-40.00', 'Power', seen, '1060.00'],
      ['r-3', '2025-06-03T01:00:00.000Z', '-40.00', 'Power', seen, '1060.00'],
      ['r-4', '2025-06-04T01:00:00.000Z', '-5.00', 'Bus', seen, '1055.00'],
      ['r-5', '2025-06-20T01:00:00.000Z', '-5.00', 'Bus', seen, '1050.00'],
    ]);
    const result = await check(store);
    expect(result.findings.map((f) => [f.kind, f.cause])).toEqual([['running_balance', 'duplicate']]);
    expect(
      await queryRows(
        store,
        'SELECT transaction_id, twin_transaction_id, evidence, balance_text, counted_balance_text, amount_off_text FROM v_duplicates',
      ),
    ).toEqual([
      {
        transaction_id: 'r-3',
        twin_transaction_id: 'r-2',
        evidence: 'running_balance',
        balance_text: '1060.00',
        counted_balance_text: '1020.00',
        amount_off_text: '40.00',
      },
    ]);
    expect(await flags(store)).toEqual(['r-1=0', 'r-2=0', 'r-3=1', 'r-4=0', 'r-5=0']);
  });

  it('a row the bank served three times: both copies are flagged, each once', async () => {
    const store = await open();
    await fresh(store);
    await account(store, 'acc', [
      ['a', day(1), '100.00', '1100.00'],
      ['p1', day(3), '-40.00', '1060.00'],
      ['p2', day(3), '-40.00', '1060.00'],
      ['p3', day(3), '-40.00', '1060.00'],
      ['r', day(4), '-10.00', '1050.00'],
      ['z', '2025-02-01T11:00:00.000Z', '0.00', '1050.00'],
    ]);
    await execute(
      store,
      "UPDATE transactions SET first_seen_at = '2025-01-03T20:00:00.000Z' WHERE transaction_id IN ('p1', 'p3')",
    );
    await execute(
      store,
      "UPDATE transactions SET first_seen_at = '2025-01-04T20:00:00.000Z' WHERE transaction_id = 'p2'",
    );
    const result = await check(store);
    expect(result.findings.map((f) => [f.transactionId, f.amount, f.cause])).toEqual([
      ['p2', '40.00', 'duplicate'],
      ['p3', '40.00', 'duplicate'],
    ]);
    const flagged = result.duplicates.map((s) => s.transactionId);
    expect(new Set(flagged).size).toBe(2);
    expect(result.duplicateCounts).toEqual({ marked: 2, kept: 0, cleared: 0 });
    expect((await queryRows(store, 'SELECT transaction_id FROM v_duplicates ORDER BY transaction_id')).length).toBe(2);
    expect(result.duplicates.map((s) => [s.transactionId, s.twinTransactionId])).toEqual([
      ['p2', 'p1'],
      ['p3', 'p1'],
    ]);
    // A suspicion named twice is one row, counted once.
    const counts = await store.duplicates.replaceSuspicions({
      accounts: [{ bank: 'PNZ', accountId: 'acc' as AccountId }],
      suspicions: [...result.duplicates, ...result.duplicates],
      runId: null,
      checkedAt: '2025-07-01T00:00:00.000Z',
    });
    expect(counts).toEqual({ marked: 0, kept: 2, cleared: 0 });
  });

  it('exports keep the flagged row with suspected_duplicate; --exclude-duplicates leaves it out (CSV, JSON, NDJSON, OFX)', async () => {
    const store = await open();
    await setUp(store, COFFEES);
    await balance(store, '2025-06-01T00:00:00.000Z', '1000.00');
    await balance(store, '2025-06-10T00:00:00.000Z', '995.00');
    await check(store);
    const csv = (await exported(store, 'csv')).split('\r\n').filter((l) => l !== '');
    const header = csv[0]!.split(',');
    const at = header.indexOf('suspected_duplicate');
    expect(at).toBeGreaterThan(0);
    const flagOf = (line: string) => `${line.split(',')[header.indexOf('transaction_id')]}=${line.split(',')[at]}`;
    // 0/1 in files on both dialects.
    expect(csv.slice(1).map(flagOf)).toEqual(['tx-0=1', 'tx-1=0', 'tx-2=0']);
    const without = (await exported(store, 'csv', { excludeDuplicates: true })).split('\r\n').filter((l) => l !== '');
    expect(without.slice(1).map(flagOf)).toEqual(['tx-1=0', 'tx-2=0']);

    const json = JSON.parse(await exported(store, 'json')) as { transaction_id: string; suspected_duplicate: number }[];
    expect(json.map((r) => [r.transaction_id, r.suspected_duplicate])).toEqual([
      ['tx-0', 1],
      ['tx-1', 0],
      ['tx-2', 0],
    ]);
    const ndjson = (await exported(store, 'ndjson', { excludeDuplicates: true }))
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => (JSON.parse(l) as { transaction_id: string }).transaction_id);
    expect(ndjson).toEqual(['tx-1', 'tx-2']);
    // OFX keeps the row by default (the statement as the bank served it); --exclude-duplicates leaves it out.
    const ofx = await exported(store, 'ofx', { accountId: ACCOUNT });
    const ofxWithout = await exported(store, 'ofx', { accountId: ACCOUNT, excludeDuplicates: true });
    expect(ofx.match(/<STMTTRN>/g)).toHaveLength(3);
    expect(ofxWithout.match(/<STMTTRN>/g)).toHaveLength(2);
    expect(ofxWithout).not.toContain('<FITID>tx-0');
    // The filter is the transactions dataset's only.
    mkdirSync(dir, { recursive: true });
    await expect(
      exportDataset(store, {
        dataset: 'accounts',
        format: 'csv',
        out: join(dir, 'a.csv'),
        filters: { excludeDuplicates: true },
      }),
    ).rejects.toThrow('--exclude-duplicates does not apply to the accounts dataset');
  });

  it('17,000 rows served twice in one account: every copy is named (one parameter a read, not one per id)', async () => {
    // Each row and its copy share instant, amount and running balance: a repeat pair each, whose
    // 34,000 ids the first-seen look-up reads. Bound one parameter per id they were over SQLite's
    // 32,766 ("too many SQL variables") and the check died; docs/continuity.md: no ceiling.
    const store = await open();
    await setUp(store, []);
    await execute(
      store,
      'UPDATE consents SET start_date_time = ? WHERE consent_id = ?',
      '2021-12-01T00:00:00.000Z',
      CONSENT,
    );
    const INSTANTS = 17_000;
    const T0 = Date.parse('2022-01-01T00:00:00.000Z');
    const SEEN = '2024-01-02T00:00:00.000Z';
    const EARLIER = '2024-01-01T00:00:00.000Z';
    const PER_STATEMENT = 500;
    for (let start = 0; start < INSTANTS; start += PER_STATEMENT) {
      const params: unknown[] = [];
      const tuples: string[] = [];
      for (let i = start; i < Math.min(INSTANTS, start + PER_STATEMENT); i++) {
        const at = new Date(T0 + i * 3_600_000).toISOString();
        // The copy is first seen earlier at every even instant: the original is the one named there.
        for (const [id, seen] of [
          [`t-${i}`, SEEN],
          [`t-${i}-dup`, i % 2 === 0 ? EARLIER : SEEN],
        ]) {
          tuples.push("('PNZ', ?, ?, ?, 'Booked', ?, ?, '1.00', 100, 'NZD', 'Credit', ?, '{}', ?, ?, ?)");
          params.push(ACCOUNT, id, CONSENT, at, at.slice(0, 10), `${i + 1}.00`, seen, seen, seen);
        }
      }
      await execute(
        store,
        `INSERT INTO transactions (bank, account_id, transaction_id, consent_id, status, booking_date_time, booking_date,
           amount, amount_minor, currency, credit_debit_indicator, balance_after, raw_json, first_seen_at, last_seen_at, updated_at)
         VALUES ${tuples.join(', ')}`,
        ...params,
      );
    }
    const result = await checkContinuity(store, { now: new Date(NOW), save: false });
    // Every instant but those within SETTLE_DAYS (3 days: 72 hourly instants) of the latest row.
    const JUDGED = INSTANTS - 72;
    expect(result.findings).toHaveLength(JUDGED);
    expect(result.findings.every((f) => f.cause === 'duplicate')).toBe(true);
    expect(result.duplicates).toHaveLength(JUDGED);
    // The row first seen later is marked, its twin the other: first seen read for every id, across reads.
    const named = (i: number) =>
      i % 2 === 0 ? [`t-${i}`, `t-${i}-dup`, 'running_balance'] : [`t-${i}-dup`, `t-${i}`, 'running_balance'];
    expect(result.duplicates.map((s) => [s.transactionId, s.twinTransactionId, s.evidence])).toEqual(
      Array.from({ length: JUDGED }, (_, i) => named(i)),
    );
  });

  it('first seen of more ids than either dialect binds (70,000): the stored ones, read one parameter at a time', async () => {
    // PostgreSQL's limit is 65,535 parameters: past it too, the ids a read are one array.
    const store = await open();
    await setUp(store, COFFEES);
    const ids = Array.from({ length: 70_000 }, (_, i) => `absent-${i}` as TransactionId);
    ids.splice(40_000, 0, 'tx-2' as TransactionId);
    ids.push('tx-0' as TransactionId, 'tx-0' as TransactionId);
    const seen = await store.duplicates.firstSeen({ bank: 'PNZ', accountId: ACCOUNT as AccountId }, ids);
    expect([...seen].sort()).toEqual([
      ['tx-0', '2025-06-07T00:00:00.000Z'],
      ['tx-2', '2025-06-07T00:00:00.000Z'],
    ]);
    expect(await store.duplicates.firstSeen({ bank: 'PNZ', accountId: ACCOUNT as AccountId }, [])).toEqual(new Map());
  });

  it('a check that may not write (read-only) stores no suspicion', async () => {
    const store = await open();
    await setUp(store, COFFEES);
    await balance(store, '2025-06-01T00:00:00.000Z', '1000.00');
    await balance(store, '2025-06-10T00:00:00.000Z', '995.00');
    const result = await checkContinuity(store, { now: new Date(NOW), save: false });
    expect(result.duplicates).toHaveLength(1);
    expect(result.duplicateCounts).toBeNull();
    expect(await queryRows(store, 'SELECT count(*) AS n FROM duplicate_suspicions')).toEqual([{ n: 0 }]);
  });
});
