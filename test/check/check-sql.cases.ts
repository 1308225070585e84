/**
 * The continuity check's running-balance walk is SQL over the account's rows (a window with the
 * row before each row, src/store/continuity.ts runningSteps) with the walk in JavaScript only
 * around rows that share an instant. These cases hold it, on both dialects, to the walk's rules
 * row by row (RunningBalanceWalk over every booked row in booking order, the oracle) and to the
 * findings each edge must give: rows of one instant in an order their ids do not follow, a row
 * stored twice, pending rows, a credits-only consent, the settle horizon and the consent's start,
 * a break at the first rows, and amounts that binary floating point would round; a running-balance
 * break's cause from the balances around it (two rows missing between two balances, with a jump
 * beside them too, a missing row beside a jump, a jump across balances that add up, jumps within a
 * `duplicate` and a `minor_unit` balances break); and the balance snapshots' edges: a row posted late (beside a row never
 * served too), a balance the bank restated for one instant (restated back to its first amount
 * too, and two statements of one fetch), the report's anchor and the OFX export's ledger balance
 * taking the same statement as the check. Balances are stored by the store's own write
 * (commitBalances), one fetch at a time. Run by check-sql.test.ts and check-sql.pg.test.ts.
 */
import { expect, it } from 'vitest';
import { toUnits, unitsPerMinor } from '@bankdata/core/money';
import { nzDateOf } from '@bankdata/core/nz-time';
import type { AccountId, BankName, ConsentId, TransactionId } from '@bankdata/core/schemas';
import { checkContinuity, SETTLE_DAYS } from '../../src/check/check-accounts';
import { RunningBalanceWalk, type BookedRow } from '../../src/check/continuity';
import { formatCheck } from '../../src/cli/check';
import type { BalanceRow, Store } from '../../src/store';
import { execute, queryRows, storeSuite } from '../support/dialects';

export const CONSENT = '5d1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d' as ConsentId;
const CREDITS_ONLY = '6e2d3c4b-5f6a-4b7c-9d8e-0f1a2b3c4d5e' as ConsentId;
const NOW = '2025-06-30T00:00:00.000Z';
const FULL = 'ReadAccountsDetail ReadBalances ReadTransactionsDetail';

/** [id, instant, amount, running balance or null, status] */
export type Spec = [string, string, string, string | null, ('Booked' | 'Pending')?];

export async function account(
  store: Store,
  accountId: string,
  rows: Spec[],
  options: { consent?: ConsentId; currency?: string } = {},
) {
  const consent = options.consent ?? CONSENT;
  const currency = options.currency ?? 'NZD';
  await execute(
    store,
    `INSERT INTO accounts (bank, account_id, consent_id, currency, raw_json, first_seen_at, last_seen_at, updated_at)
     VALUES ('PNZ', ?, ?, ?, '{}', ?, ?, ?)`,
    accountId,
    consent,
    currency,
    NOW,
    NOW,
    NOW,
  );
  await execute(
    store,
    `INSERT INTO sync_state (bank, account_id, consent_id, resource, watermark, updated_at)
     VALUES ('PNZ', ?, ?, 'transactions', ?, ?)`,
    accountId,
    consent,
    NOW,
    NOW,
  );
  const scale = unitsPerMinor(currency);
  for (const [id, at, amount, balance, status = 'Booked'] of rows) {
    const units = toUnits(amount);
    const minor = units % scale === 0n ? Number(units / scale) : null;
    await execute(
      store,
      `INSERT INTO transactions (bank, account_id, transaction_id, consent_id, status, booking_date_time, booking_date,
         amount, amount_minor, currency, credit_debit_indicator, balance_after, raw_json, first_seen_at, last_seen_at, updated_at)
       VALUES ('PNZ', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '{}', ?, ?, ?)`,
      accountId,
      id,
      consent,
      status,
      at,
      at.slice(0, 10),
      amount.replace(/^-/, ''),
      minor === null ? null : Math.abs(minor),
      currency,
      amount.startsWith('-') ? 'Debit' : 'Credit',
      balance,
      NOW,
      NOW,
      NOW,
    );
    // The stored amount is signed (the sync's transform writes the sign into the text and the minor units).
    await execute(
      store,
      'UPDATE transactions SET amount = ?, amount_minor = ? WHERE account_id = ? AND transaction_id = ?',
      amount,
      minor,
      accountId,
      id,
    );
  }
}

export async function fresh(store: Store): Promise<void> {
  await store.consents.add(CONSENT);
  await store.consents.add(CREDITS_ONLY);
  await execute(
    store,
    'UPDATE consents SET permissions = ?, start_date_time = ? WHERE consent_id = ?',
    FULL,
    '2024-12-01T00:00:00.000Z',
    CONSENT,
  );
  await execute(
    store,
    'UPDATE consents SET permissions = ?, start_date_time = ? WHERE consent_id = ?',
    'ReadAccountsDetail ReadTransactionsCredits ReadTransactionsDetail',
    '2024-12-01T00:00:00.000Z',
    CREDITS_ONLY,
  );
}

/** The walk's rules over every booked row of the account, row by row: what the check must find. */
async function oracle(store: Store, accountId: string, from: string) {
  const rows = await queryRows<{
    transaction_id: string;
    booking_date_time: string;
    amount: string;
    balance_after: string | null;
  }>(
    store,
    `SELECT transaction_id, booking_date_time, amount, balance_after FROM transactions
     WHERE account_id = ? AND status = 'Booked' AND removed_at IS NULL AND booking_date_time >= ?
     ORDER BY booking_date_time, transaction_id`,
    accountId,
    from,
  );
  const latest = await queryRows<{ at: string }>(
    store,
    'SELECT max(booking_date_time) AS at FROM transactions WHERE account_id = ?',
    accountId,
  );
  const horizon = new Date(Date.parse(latest[0]!.at) - SETTLE_DAYS * 86_400_000).toISOString();
  const walk = new RunningBalanceWalk(horizon);
  for (const r of rows)
    walk.push({
      transactionId: r.transaction_id as TransactionId,
      bookingDateTime: r.booking_date_time,
      bookingDate: r.booking_date_time.slice(0, 10),
      units: toUnits(r.amount),
      balanceAfter: r.balance_after === null ? null : toUnits(r.balance_after),
    } satisfies BookedRow);
  return walk.finish().map((b) => `${b.before.transactionId}>${b.row.transactionId} ${b.units}`);
}

/** A running-balance finding as the oracle writes a break: the row before, the row, the units. */
function pair(f: { detail: string; transactionId: string | null; amount: string }): string {
  return `${/\(after (\S+)\)/.exec(f.detail)?.[1]}>${f.transactionId} ${toUnits(f.amount)}`;
}

async function running(store: Store, accountId: string) {
  const result = await checkContinuity(store, { accountId, save: false, now: new Date(NOW) });
  return result.findings.filter((f) => f.kind === 'running_balance');
}

/** Each finding of the account as [kind, transaction id, amount, cause], the check run without saving. */
async function causes(store: Store, accountId: string) {
  const result = await checkContinuity(store, { accountId, save: false, now: new Date(NOW) });
  return result.findings.map((f) => [f.kind, f.transactionId, f.amount, f.cause]);
}

/** [type, instant, amount, fetched at] of a booked balance, fetched in the order given. */
type BalanceSpec = [string, string, string, string];

/** The row the sync's transform makes of a booked balance read at `fetched`. */
function balanceRow(accountId: string, [type, at, amount]: BalanceSpec, fetched: string): BalanceRow {
  return {
    bank: 'PNZ',
    accountId: accountId as AccountId,
    consentId: CONSENT,
    type,
    amount,
    amountMinor: Number(toUnits(amount) / 1000n),
    currency: 'NZD',
    creditDebitIndicator: amount.startsWith('-') ? 'Debit' : 'Credit',
    dateTime: at,
    rawJson: '{}',
    fetchedAt: fetched,
  };
}

/** Closing balances of 1000.00 on 1 January and `closing` on 7 January, each read at noon that day. */
async function closings(store: Store, accountId: string, closing: string) {
  await balances(store, accountId, [
    ['ClosingBooked', day(1), '1000.00', day(1, '12:00')],
    ['ClosingBooked', day(7), closing, day(7, '12:00')],
  ]);
}

/** Each balance stored by the store's own write (commitBalances), one fetch each, at its fetch time. */
async function balances(store: Store, accountId: string, specs: BalanceSpec[]) {
  for (const spec of specs) await fetchBalances(store, accountId, spec[3], [spec]);
}

/** One fetch of the account's balances at `fetched`, as the sync commits it; its counts. */
async function fetchBalances(store: Store, accountId: string, fetched: string, specs: BalanceSpec[]) {
  return store.commitBalances({
    bank: 'PNZ',
    accountId: accountId as AccountId,
    consentId: CONSENT,
    rows: specs.map((spec) => balanceRow(accountId, spec, fetched)),
    runId: null,
    now: fetched,
  });
}

const START = '2024-12-01T00:00:00.000Z';
const day = (d: number, hm = '00:00') => `2025-01-${String(d).padStart(2, '0')}T${hm}:00.000Z`;
/** Rows after the ones under test, so that these are older than the settle horizon. */
const tail = (balance: string): Spec[] => [['z-late', '2025-02-01T00:00:00.000Z', '0.00', balance]];

/** An account whose rows were each first seen when booked: none posted late. */
async function accountSeenWhenBooked(store: Store, accountId: string, rows: Spec[]): Promise<void> {
  await account(store, accountId, rows);
  await execute(store, 'UPDATE transactions SET first_seen_at = booking_date_time WHERE account_id = ?', accountId);
}

export const checkSqlSuite = storeSuite('the running-balance walk in SQL', (d) => {
  it('rows of one instant in an order their ids do not follow: no break; the row after them is judged from the last of the chain', async () => {
    const store = await d.open();
    await fresh(store);
    await account(store, 'ties', [
      ['a', day(1), '100.00', '100.00'],
      // One instant: the balances chain c → b → d, the ids say b, c, d.
      ['b', day(2), '-30.00', '50.00'],
      ['c', day(2), '-20.00', '80.00'],
      ['d', day(2), '5.00', '55.00'],
      ['e', day(3), '1.00', '56.00'],
      // One instant at which the chain cannot follow: f's balance is off by 1.00.
      ['f', day(4), '2.00', '59.00'],
      ['g', day(4), '3.00', '62.00'],
      ['h', day(5), '-2.00', '60.00'],
      ...tail('60.00'),
    ]);
    const found = await running(store, 'ties');
    expect(found.map((f) => [f.transactionId, f.amount, f.cause])).toEqual([['f', '1.00', 'missing_transaction']]);
    expect(found.map((f) => f.detail)).toEqual([
      "f: balance before 56.00 NZD (after e) + amount 2.00 NZD = 58.00 NZD, the bank's running balance is 59.00 NZD",
    ]);
    expect(found.map(pair)).toEqual(await oracle(store, 'ties', START));
  });

  it('a row stored twice at its instant is a duplicate; ties at the very first rows have no row before them', async () => {
    const store = await d.open();
    await fresh(store);
    await account(store, 'dup', [
      ['a1', day(1), '10.00', '10.00'],
      ['a2', day(1), '-4.00', '6.00'],
      ['b', day(2), '-2.50', '3.50'],
      ['b-again', day(2), '-2.50', '3.50'],
      ['c', day(3), '1.50', '5.00'],
      ...tail('5.00'),
    ]);
    const found = await running(store, 'dup');
    expect(found.map((f) => [f.transactionId, f.fromDateTime, f.amount, f.cause])).toEqual([
      ['b-again', day(2), '2.50', 'duplicate'],
    ]);
    expect(found.map(pair)).toEqual(await oracle(store, 'dup', START));
  });

  it('a break at the first row is none (nothing before it); at the second row it is found', async () => {
    const store = await d.open();
    await fresh(store);
    await account(store, 'first', [
      ['a', day(1), '10.00', '999.00'],
      ['b', day(2), '10.00', '1000.00'],
      ['c', day(3), '10.00', '1500.00'],
      ...tail('1500.00'),
    ]);
    const found = await running(store, 'first');
    expect(found.map((f) => [f.transactionId, f.amount])).toEqual([
      ['b', '-9.00'],
      ['c', '490.00'],
    ]);
    expect(found.map(pair)).toEqual(await oracle(store, 'first', START));
  });

  it('pending rows are not walked; a break of a pending row’s amount is named pending_row; a row without a balance restarts the walk', async () => {
    const store = await d.open();
    await fresh(store);
    await account(store, 'pending', [
      ['a', day(1), '10.00', '10.00'],
      ['p1', day(2, '01:00'), '-7.25', null, 'Pending'],
      ['b', day(2, '02:00'), '-1.00', '9.00'],
      // The pending -7.25 counted in the bank's balance.
      ['c', day(3), '-1.00', '0.75'],
      ['d', day(4), '5.00', null],
      ['e', day(5), '5.00', '100.00'],
      ['f', day(6), '5.00', '105.00'],
      ...tail('105.00'),
    ]);
    const found = await running(store, 'pending');
    expect(found.map((f) => [f.transactionId, f.amount, f.cause])).toEqual([['c', '-7.25', 'pending_row']]);
    expect(found.map(pair)).toEqual(await oracle(store, 'pending', START));
  });

  it('rows within the settle horizon and rows before the complete consent’s start are not judged', async () => {
    const store = await d.open();
    await fresh(store);
    await account(store, 'window', [
      // Before the consent returning credits and debits started: not walked.
      ['old1', '2024-11-01T00:00:00.000Z', '1.00', '1.00'],
      ['old2', '2024-11-02T00:00:00.000Z', '1.00', '50.00'],
      ['a', day(1), '1.00', '51.00'],
      ['b', day(2), '1.00', '52.00'],
      // Within SETTLE_DAYS of the latest row: a late row may still arrive in front of it.
      ['c', day(10), '1.00', '60.00'],
      ['d', day(11), '1.00', '61.00'],
    ]);
    expect(await running(store, 'window')).toEqual([]);
    expect(await oracle(store, 'window', START)).toEqual([]);
  });

  it('a credits-only consent’s account is not checked', async () => {
    const store = await d.open();
    await fresh(store);
    await account(store, 'credits', [['a', day(1), '1.00', '5.00'], ['b', day(2), '1.00', '99.00'], ...tail('99.00')], {
      consent: CREDITS_ONLY,
    });
    const result = await checkContinuity(store, { accountId: 'credits', save: false, now: new Date(NOW) });
    expect(result.findings).toEqual([]);
    expect(result.skipped).toEqual([
      { bank: 'PNZ', accountId: 'credits', reason: 'no consent returns both credits and debits' },
    ]);
  });

  it('the accounts checked are the ones judged: a skipped account is covered, not counted as checked (the "no break in N" of check and of the sync summary)', async () => {
    const store = await d.open();
    await fresh(store);
    await account(store, 'both', [['a', day(1), '1.00', '1.00'], ['b', day(2), '-0.50', '0.50'], ...tail('0.50')]);
    await account(store, 'credits', [['a', day(1), '1.00', '5.00'], ...tail('5.00')], { consent: CREDITS_ONLY });
    const result = await checkContinuity(store, { save: false, now: new Date(NOW) });
    expect(result.findings).toEqual([]);
    expect(result.skipped.map((s) => s.accountId)).toEqual(['credits']);
    expect({ accounts: result.accounts, checked: result.checked }).toEqual({ accounts: 2, checked: 1 });
    expect(formatCheck(result)).toMatch(/^continuity: no break in 1 account\(s\)\n {2}not checked PNZ credits: /);
  });

  it('a row posted late counts within 14 days of 24 hours before a balance, across an NZ daylight-saving change too', async () => {
    const store = await d.open();
    await fresh(store);
    // Balances of 20 Sep, 5 Oct and 10 Oct 2025; NZ daylight saving began on 28 Sep (a day of 23
    // hours). A credit of 50.00 booked 21 Sep 00:30 UTC, 30 minutes inside the 14 days before the
    // 5 Oct balance, was first seen on 12 Oct: the 5 Oct balance is before it was posted.
    await account(store, 'late', []);
    await execute(
      store,
      `INSERT INTO transactions (bank, account_id, transaction_id, consent_id, status, booking_date_time, booking_date,
         amount, amount_minor, currency, credit_debit_indicator, raw_json, first_seen_at, last_seen_at, updated_at)
       VALUES ('PNZ', 'late', 'r', ?, 'Booked', '2025-09-21T00:30:00.000Z', '2025-09-21', '50.00', 5000, 'NZD', 'Credit',
         '{}', '2025-10-12T00:00:00.000Z', '2025-10-12T00:00:00.000Z', '2025-10-12T00:00:00.000Z')`,
      CONSENT,
    );
    for (const [at, amount] of [
      ['2025-09-20T00:00:00.000Z', '1000.00'],
      ['2025-10-05T00:00:00.000Z', '1000.00'],
      ['2025-10-10T00:00:00.000Z', '1050.00'],
    ] as const)
      await execute(
        store,
        `INSERT INTO balances (bank, account_id, consent_id, type, amount, amount_minor, currency, credit_debit_indicator,
           date_time, raw_json, fetched_at)
         VALUES ('PNZ', 'late', ?, 'InterimBooked', ?, ?, 'NZD', 'Credit', ?, '{}', ?)`,
        CONSENT,
        amount,
        Number(toUnits(amount) / 1000n),
        at,
        at,
      );
    const result = await checkContinuity(store, {
      accountId: 'late',
      save: false,
      now: new Date('2025-10-30T00:00:00.000Z'),
    });
    expect(result.findings.map((f) => `${f.kind} ${f.amount}`)).toEqual([]);
  });

  it('a row posted late beside a row never served: one break, the missing row’s, at its amount; the late row is no break', async () => {
    const store = await d.open();
    await fresh(store);
    // R (+20.00, booked 2 January) was posted after the balances of 3 and 5 January were read: it
    // was first seen by the run that read the 8 January balance (balances are read first). M
    // (+50.00, booked 4 January) was never served.
    await account(store, 'late-and-missing', [['R', day(2), '20.00', null]]);
    await execute(
      store,
      'UPDATE transactions SET first_seen_at = ? WHERE account_id = ?',
      day(8, '00:05'),
      'late-and-missing',
    );
    await balances(store, 'late-and-missing', [
      ['InterimBooked', day(1), '1000.00', day(1)], // before R
      ['InterimBooked', day(3), '1000.00', day(3)], // R booked, not yet posted
      ['InterimBooked', day(5), '1050.00', day(5)], // R not yet posted; M booked
      ['InterimBooked', day(8), '1070.00', day(8)], // R posted
    ]);
    const result = await checkContinuity(store, { accountId: 'late-and-missing', save: false, now: new Date(NOW) });
    expect(result.findings.map((f) => [f.kind, f.fromDateTime, f.toDateTime, f.amount, f.cause, f.detail])).toEqual([
      [
        'balances',
        day(3),
        day(5),
        '50.00',
        'missing_transaction',
        'booked balance 1000.00 NZD then 1050.00 NZD: moved by 50.00 NZD, the stored booked transactions between them sum to 0.00 NZD',
      ],
    ]);
  });

  it('amounts that binary floating point rounds add up exactly, five-decimal amounts and balances included', async () => {
    const store = await d.open();
    await fresh(store);
    await account(store, 'exact', [
      ['a', day(1), '0.10', '0.10'],
      ['b', day(2), '0.20', '0.3'],
      ['c', day(3), '0.00001', '0.30001'],
      ['d', day(4), '-0.30001', '0'],
      ['e', day(5), '900719925474.93', '900719925474.93'],
      ['f', day(6), '0.01', '900719925474.94000'],
      // One unit of 1/100000 off: a break below the minor unit.
      ['g', day(7), '0.01', '900719925474.95001'],
      ...tail('900719925474.95001'),
    ]);
    const found = await running(store, 'exact');
    expect(found.map((f) => [f.transactionId, f.amount, f.cause])).toEqual([['g', '0.00001', 'minor_unit']]);
    expect(found.map(pair)).toEqual(await oracle(store, 'exact', START));
  });

  it('the first instant’s rows in an order their ids do not follow (no balance before them) chain with no break', async () => {
    const store = await d.open();
    await fresh(store);
    await account(store, 'first', [
      // The bank's chain is c (80.00) then b (50.00); the ids say b, c; no row before them.
      ['b', day(1), '-30.00', '50.00'],
      ['c', day(1), '-20.00', '80.00'],
      ['d', day(2), '5.00', '55.00'],
      ...tail('55.00'),
    ]);
    const found = await running(store, 'first');
    expect(found.map((f) => [f.transactionId, f.amount, f.cause])).toEqual([]);
    expect(found.map(pair)).toEqual(await oracle(store, 'first', START));
  });

  it('a 0.00 row at an instant other rows share (a loop back to the balance before) chains with no break', async () => {
    const store = await d.open();
    await fresh(store);
    await account(store, 'zero', [
      ['a', day(1), '100.00', '100.00'],
      // The chain is y (0.00: 100.00) then x (-10.00: 90.00); both leave 100.00, the ids say x, y.
      ['x', day(3), '-10.00', '90.00'],
      ['y', day(3), '0.00', '100.00'],
      ['r', day(4), '-10.00', '80.00'],
      ...tail('80.00'),
    ]);
    const found = await running(store, 'zero');
    expect(found.map((f) => [f.transactionId, f.amount, f.cause])).toEqual([]);
    expect(found.map(pair)).toEqual(await oracle(store, 'zero', START));
  });

  it('a row served twice at an instant other rows share is one duplicate of its amount, suspected beside its twin', async () => {
    const store = await d.open();
    await fresh(store);
    await account(store, 'twice', [
      ['a', day(1), '100.00', '1100.00'],
      // The chain is p (1060.00) then q (1055.00); p-copy repeats p.
      ['p', day(3), '-40.00', '1060.00'],
      ['p-copy', day(3), '-40.00', '1060.00'],
      ['q', day(3), '-5.00', '1055.00'],
      ['r', day(4), '-10.00', '1045.00'],
      ...tail('1045.00'),
    ]);
    const result = await checkContinuity(store, { accountId: 'twice', now: new Date(NOW) });
    const found = result.findings.filter((f) => f.kind === 'running_balance');
    expect(found.map((f) => [f.transactionId, f.amount, f.cause])).toEqual([['p-copy', '40.00', 'duplicate']]);
    expect(result.duplicates.map((s) => [s.transactionId, s.twinTransactionId])).toEqual([['p-copy', 'p']]);
    expect(await queryRows(store, 'SELECT transaction_id FROM v_duplicates')).toEqual([{ transaction_id: 'p-copy' }]);
  });

  it('two rows missing between two booked balances: each running-balance break is a missing transaction, not a jump; across balances that add up it is a jump', async () => {
    const store = await d.open();
    await fresh(store);
    // Credits of 50.00 (before r2) and 30.00 (before r3) were never served: the balances of 1 and
    // 7 January moved 80.00 more than the stored rows, the running balance 50.00 then 30.00.
    await accountSeenWhenBooked(store, 'two-missing', [
      ['r1', day(2), '10.00', '1010.00'],
      ['r2', day(4), '10.00', '1070.00'],
      ['r3', day(6), '10.00', '1110.00'],
      ...tail('1110.00'),
    ]);
    // The same rows where the balances add up (1000.00 + 30.00): the bank's running balance itself
    // jumps by 50.00 at r2 and goes on from there.
    await accountSeenWhenBooked(store, 'jump', [
      ['r1', day(2), '10.00', '1010.00'],
      ['r2', day(4), '10.00', '1070.00'],
      ['r3', day(6), '10.00', '1080.00'],
      ...tail('1080.00'),
    ]);
    await closings(store, 'two-missing', '1110.00');
    await closings(store, 'jump', '1030.00');
    expect(await causes(store, 'two-missing')).toEqual([
      ['balances', null, '80.00', 'missing_transaction'],
      ['running_balance', 'r2', '50.00', 'missing_transaction'],
      ['running_balance', 'r3', '30.00', 'missing_transaction'],
    ]);
    expect(await causes(store, 'jump')).toEqual([['running_balance', 'r2', '50.00', 'running_balance_jump']]);
  });

  it('a running-balance jump between the same two balances as a missing row stays a jump: the missing row is the break, or the breaks, that add up to the balances break', async () => {
    const store = await d.open();
    await fresh(store);
    // A credit of 50.00 never served before r2 (the balances of 1 and 7 January moved 50.00 more
    // than the stored rows), and at r3 the bank's running balance jumps by 100.00 (1180.00 for
    // 1080.00): the balances do not move by it.
    await accountSeenWhenBooked(store, 'missing-and-jump', [
      ['r1', day(2), '10.00', '1010.00'],
      ['r2', day(4), '10.00', '1070.00'],
      ['r3', day(6), '10.00', '1180.00'],
      ...tail('1180.00'),
    ]);
    // Credits of 50.00 (before r2) and 30.00 (before r3) never served, and a jump of 100.00 at r4:
    // no one break is the balances' 80.00, the breaks of r2 and r3 add up to it.
    await accountSeenWhenBooked(store, 'two-missing-and-jump', [
      ['r1', day(2), '10.00', '1010.00'],
      ['r2', day(3), '10.00', '1070.00'],
      ['r3', day(4), '10.00', '1110.00'],
      ['r4', day(6), '10.00', '1220.00'],
      ...tail('1220.00'),
    ]);
    await closings(store, 'missing-and-jump', '1080.00');
    await closings(store, 'two-missing-and-jump', '1120.00');
    expect(await causes(store, 'missing-and-jump')).toEqual([
      ['balances', null, '50.00', 'missing_transaction'],
      ['running_balance', 'r2', '50.00', 'missing_transaction'],
      ['running_balance', 'r3', '100.00', 'running_balance_jump'],
    ]);
    expect(await causes(store, 'two-missing-and-jump')).toEqual([
      ['balances', null, '80.00', 'missing_transaction'],
      ['running_balance', 'r2', '50.00', 'missing_transaction'],
      ['running_balance', 'r3', '30.00', 'missing_transaction'],
      ['running_balance', 'r4', '100.00', 'running_balance_jump'],
    ]);
  });

  it('a balances break of cause duplicate or minor_unit confirms no missing row: the running-balance breaks within it are jumps, whatever their amounts', async () => {
    const store = await d.open();
    await fresh(store);
    // The debit d of 20.00 served twice (d and d-copy, one instant), the bank's running balance
    // counting both and then going back up by 20.00 at r3: the balances of 1 and 7 January (both
    // 1000.00) show one row extra (a `duplicate` break of 20.00), and r3's break of 20.00 is the
    // running balance jumping back, not a credit of 20.00 never served.
    await accountSeenWhenBooked(store, 'served-twice', [
      ['r1', day(2), '10.00', '1010.00'],
      ['d', day(3), '-20.00', '990.00'],
      ['d-copy', day(3), '-20.00', '970.00'],
      ['r3', day(5), '10.00', '1000.00'],
      ...tail('1000.00'),
    ]);
    // The running balance jumps by 50.00 at r2 and by -49.996 at r3: the balances moved 0.004
    // beyond the stored rows (`minor_unit`), which the two breaks add up to, and no row is missing.
    await accountSeenWhenBooked(store, 'sub-cent', [
      ['r1', day(2), '10.00', '1010.00'],
      ['r2', day(4), '10.00', '1070.00'],
      ['r3', day(6), '10.00', '1030.004'],
      ...tail('1030.004'),
    ]);
    await closings(store, 'served-twice', '1000.00');
    await closings(store, 'sub-cent', '1030.004');
    expect(await causes(store, 'served-twice')).toEqual([
      ['balances', null, '20.00', 'duplicate'],
      ['running_balance', 'r3', '20.00', 'running_balance_jump'],
    ]);
    expect(await causes(store, 'sub-cent')).toEqual([
      ['balances', null, '0.004', 'minor_unit'],
      ['running_balance', 'r2', '50.00', 'running_balance_jump'],
      ['running_balance', 'r3', '-49.996', 'running_balance_jump'],
    ]);
  });

  it('a balance the bank restated for one instant: the check chains through the statement fetched last, whatever the ids, and the two statements are no break', async () => {
    const store = await d.open();
    await fresh(store);
    const rows: Spec[] = [
      ['a', day(1), '100.00', '100.00'],
      ['b', day(5), '40.00', '140.00'],
      ['c', day(8), '-15.00', '125.00'],
      ...tail('125.00'),
    ];
    // The 6 January closing balance was first stated as 150.00 (read on the 6th), then restated as
    // 140.00 (read on the 9th); both are stored (a row per amount). Inserted in either order.
    const first: BalanceSpec = ['ClosingBooked', day(6), '150.00', day(6, '12:00')];
    const restated: BalanceSpec = ['ClosingBooked', day(6), '140.00', day(9, '12:00')];
    const around: BalanceSpec[] = [
      ['InterimBooked', day(2), '100.00', day(2, '12:00')],
      ['InterimBooked', day(10), '125.00', day(10, '12:00')],
    ];
    for (const [accountId, order] of [
      ['restated-last', [first, restated]],
      ['restated-first', [restated, first]],
    ] as const) {
      await accountSeenWhenBooked(store, accountId, rows);
      await balances(store, accountId, [around[0]!, ...order, around[1]!]);
      const result = await checkContinuity(store, { accountId, save: false, now: new Date(NOW) });
      expect(
        result.findings.map((f) => `${f.kind} ${f.fromDateTime} ${f.toDateTime} ${f.amount} ${f.cause}`),
        accountId,
      ).toEqual([]);
    }
  });

  it('a restated balance that does not add up is one break, between the balance before and the restated amount; the statement it superseded is not compared', async () => {
    const store = await d.open();
    await fresh(store);
    await accountSeenWhenBooked(store, 'restated-off', [
      ['a', day(1), '100.00', '100.00'],
      ['b', day(5), '40.00', '140.00'],
      ...tail('140.00'),
    ]);
    // The first statement (140.00) adds up; the bank's restatement (130.00), its latest word, does not.
    await balances(store, 'restated-off', [
      ['InterimBooked', day(2), '100.00', day(2, '12:00')],
      ['ClosingBooked', day(6), '140.00', day(6, '12:00')],
      ['ClosingBooked', day(6), '130.00', day(9, '12:00')],
    ]);
    const result = await checkContinuity(store, { accountId: 'restated-off', save: false, now: new Date(NOW) });
    expect(result.findings.map((f) => [f.kind, f.fromDateTime, f.toDateTime, f.amount, f.cause, f.detail])).toEqual([
      [
        'balances',
        day(2),
        day(6),
        '-10.00',
        'missing_transaction',
        'booked balance 100.00 NZD then 130.00 NZD: moved by 30.00 NZD, the stored booked transactions between them sum to 40.00 NZD',
      ],
    ]);
  });

  it('a balance restated and then restated back to its first figure (A, B, A): A, which the latest fetch stated, is the snapshot, the report’s anchor and the ledger balance', async () => {
    const store = await d.open();
    await fresh(store);
    await accountSeenWhenBooked(store, 'restated-back', [
      ['a', day(1), '100.00', '100.00'],
      ['b', day(5), '40.00', '140.00'],
      ...tail('140.00'),
    ]);
    await balances(store, 'restated-back', [['InterimBooked', day(2), '100.00', day(2, '12:00')]]);
    // The 6 January closing balance, through the store's own write: 140.00 (read on the 6th),
    // restated as 150.00 (the 7th), then restated back to 140.00 (the 9th), the bank's latest word.
    const closing = (amount: string): BalanceSpec => ['ClosingBooked', day(6), amount, ''];
    expect(await fetchBalances(store, 'restated-back', day(6, '12:00'), [closing('140.00')])).toEqual({
      added: 1,
      unchanged: 0,
    });
    expect(await fetchBalances(store, 'restated-back', day(7, '12:00'), [closing('150.00')])).toEqual({
      added: 1,
      unchanged: 0,
    });
    expect(await fetchBalances(store, 'restated-back', day(9, '12:00'), [closing('140.00')])).toEqual({
      added: 0,
      unchanged: 1,
    });
    // Both statements kept, a row per amount; 140.00 keeps the fetch that first returned it.
    expect(
      await queryRows(
        store,
        `SELECT amount_text, fetched_at FROM v_balances WHERE account_id = ? AND type = 'ClosingBooked' ORDER BY fetched_at`,
        'restated-back',
      ),
    ).toEqual([
      { amount_text: '140.00', fetched_at: day(6, '12:00') },
      { amount_text: '150.00', fetched_at: day(7, '12:00') },
    ]);

    // The check: 100.00 then 140.00 with 40.00 booked between them adds up.
    const result = await checkContinuity(store, { accountId: 'restated-back', save: false, now: new Date(NOW) });
    expect(result.findings.map((f) => `${f.kind} ${f.fromDateTime} ${f.toDateTime} ${f.amount} ${f.cause}`)).toEqual(
      [],
    );
    // The report's anchor and the OFX export's LEDGERBAL read the same statement.
    const key = { bank: 'PNZ' as BankName, accountId: 'restated-back' as AccountId };
    const anchor = await store.reportData.balanceAnchor(key, { scale: 1000n, nzDateOf });
    expect([anchor?.units, anchor?.dateTime, anchor?.source]).toEqual([toUnits('140.00'), day(6), 'balance']);
    expect(await store.views.latestBalance(key, ['ClosingBooked', 'InterimBooked'], null)).toEqual({
      amount: '140.00',
      dateTime: day(6),
    });
  });

  it('two statements of one instant and type that one fetch returned: the check, the report’s anchor and the ledger balance take the same one, the later stored', async () => {
    const store = await d.open();
    await fresh(store);
    for (const [accountId, answer] of [
      ['one-fetch-a', ['150.00', '140.00']],
      ['one-fetch-b', ['140.00', '150.00']],
    ] as const) {
      await accountSeenWhenBooked(store, accountId, [
        ['a', day(1), '100.00', '100.00'],
        ['b', day(5), '40.00', '140.00'],
        ...tail('140.00'),
      ]);
      await balances(store, accountId, [['InterimBooked', day(2), '100.00', day(2, '12:00')]]);
      // One answer holding both figures for the 6 January closing balance: one fetch time.
      await fetchBalances(
        store,
        accountId,
        day(9, '12:00'),
        answer.map((amount): BalanceSpec => ['ClosingBooked', day(6), amount, '']),
      );
      const taken = answer[1];
      const result = await checkContinuity(store, { accountId, save: false, now: new Date(NOW) });
      const breaks = result.findings.map((f) => `${f.kind} ${f.fromDateTime} ${f.toDateTime} ${f.amount} ${f.cause}`);
      expect(breaks, accountId).toEqual(
        taken === '140.00' ? [] : [`balances ${day(2)} ${day(6)} 10.00 missing_transaction`],
      );
      const key = { bank: 'PNZ' as BankName, accountId: accountId as AccountId };
      const anchor = await store.reportData.balanceAnchor(key, { scale: 1000n, nzDateOf });
      expect(anchor?.units, accountId).toBe(toUnits(taken));
      const ledger = await store.views.latestBalance(key, ['ClosingBooked', 'InterimBooked'], null);
      expect(ledger?.amount, accountId).toBe(taken);
    }
  });
});
