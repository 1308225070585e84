/**
 * The store's operations written once over the SqlRunner (src/store/store-of.ts) that the other
 * suites do not reach, on both dialects from this one case list: consent creations, payments and
 * their attempts, job runs, what transaction queries taught, party and statement look-ups, and
 * forget. Each case reads back what the operation stored, as the same JS values on both dialects.
 */
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { Payment } from '@bankdata/core/payment-schemas';
import { paymentIdentity } from '@bankdata/core/payment-identity';
import type { AccountId, StatementId } from '@bankdata/core/schemas';
import { toAccountRow } from '../../src/sync/transform';
import { execute, queryRow, queryRows, storeSuite } from '../support/dialects';
import { ACCOUNT, BANK, CONSENT, NOW, OTHER_CONSENT, authorise, freshStoreOn, txRow } from './helpers';

const PAYMENT_CONSENT = '7f2a1c3e-4b5d-4e6f-8a9b-0c1d2e3f4a5b';
const payment = (status: Payment['status'], at: string) =>
  Payment.parse({
    payment_id: '1e2d3c4b-5a69-4788-9a0b-1c2d3e4f5a6b',
    consent_id: PAYMENT_CONSENT,
    status,
    creation_timestamp: '2025-03-05T10:00:00+13:00',
    status_updated_timestamp: at,
    amount: { total: '12.50', currency: 'NZD' },
    pcr: { particulars: 'rent', reference: 'march' },
    idempotency_key: 'key-1',
  });

export const storeOpsSuite = storeSuite('the store operations written once', (d) => {
  describe('consent creations', () => {
    it('keeps a creation open until it settles, and refuses an unknown key', async () => {
      const store = await freshStoreOn(d);
      const input = { idempotencyKey: 'k1', intentHash: 'h1', bodyJson: '{"a":1}', bank: BANK, flow: 'redirect' };
      const begun = await store.creations.begin({ ...input, now: '2025-03-05T00:00:00Z' });
      expect(begun).toMatchObject({ idempotencyKey: 'k1', state: 'pending', createdAt: '2025-03-05T00:00:00.000Z' });
      expect(begun.bodySha256).toMatch(/^[0-9a-f]{64}$/);
      expect(await store.creations.findOpen('h1', '2025-03-05T12:00:00Z')).toEqual(begun);
      // Older than the server keeps a key (24 h): not replayed.
      expect(await store.creations.findOpen('h1', '2025-03-06T00:00:01Z')).toBeNull();
      await store.creations.recordCreated('k1', { consent_id: CONSENT }, '2025-03-05T00:00:01Z');
      expect(await store.creations.getOf(CONSENT)).toMatchObject({ state: 'created', consentId: CONSENT });
      await store.creations.recordSettled('k1', 'Authorised', '2025-03-05T00:00:02Z');
      expect(await store.creations.findOpen('h1', '2025-03-05T12:00:00Z')).toBeNull();
      expect(await store.creations.get('k1')).toMatchObject({
        state: 'settled',
        outcome: 'Authorised',
        updatedAt: '2025-03-05T00:00:02.000Z',
      });
      await expect(store.creations.recordFailed('nope', 'BDT400')).rejects.toThrow('no consent creation with key nope');
      expect(await store.creations.get('nope')).toBeNull();
    });
  });

  describe('payments', () => {
    it('upserts the payment, keeps each status once in its history, and lists the open ones', async () => {
      const store = await freshStoreOn(d);
      const first = await store.payments.record(
        payment('Pending', '2025-03-05T10:00:00+13:00'),
        '2025-03-04T21:00:01Z',
      );
      expect(first).toMatchObject({ status: 'Pending', amount: '12.50', amountMinor: 1250, code: null });
      await store.payments.record(payment('Pending', '2025-03-05T10:00:00+13:00'), '2025-03-04T21:00:02Z');
      const settled = await store.payments.record(
        payment('AcceptedSettlementCompleted', '2025-03-05T10:05:00+13:00'),
        '2025-03-04T21:05:01Z',
      );
      expect(settled).toMatchObject({
        status: 'AcceptedSettlementCompleted',
        firstSeenAt: '2025-03-04T21:00:01.000Z',
        lastCheckedAt: '2025-03-04T21:05:01.000Z',
      });
      expect(await store.payments.get(settled.paymentId)).toEqual(settled);
      expect((await store.payments.history(settled.paymentId)).map((h) => h.status)).toEqual([
        'Pending',
        'AcceptedSettlementCompleted',
      ]);
      expect(await store.payments.listOpen()).toEqual([]);
      expect(await store.payments.get('00000000-0000-4000-8000-000000000000')).toBeNull();
    });

    it('lists statuses the bank stamped with the same instant in the order they were seen', async () => {
      const store = await freshStoreOn(d);
      // A bank that stamps in whole seconds: both statuses carry 10:00:00.
      await store.payments.record(payment('Pending', '2025-03-05T10:00:00+13:00'), '2025-03-04T21:00:01Z');
      await store.payments.record(
        payment('AcceptedSettlementInProcess', '2025-03-05T10:00:00+13:00'),
        '2025-03-04T21:00:02Z',
      );
      expect(
        (await store.payments.history('1e2d3c4b-5a69-4788-9a0b-1c2d3e4f5a6b')).map((h) => [h.status, h.observedAt]),
      ).toEqual([
        ['Pending', '2025-03-04T21:00:01.000Z'],
        ['AcceptedSettlementInProcess', '2025-03-04T21:00:02.000Z'],
      ]);
    });

    it('never takes a status read earlier than the stored one, nor leaves a terminal status', async () => {
      const store = await freshStoreOn(d);
      await store.payments.record(
        payment('AcceptedSettlementCompleted', '2025-03-05T10:05:00+13:00'),
        '2025-03-04T21:05:01Z',
      );
      // Another process's poll that read Pending before the settlement answers after it.
      const stale = await store.payments.record(
        payment('Pending', '2025-03-05T10:00:00+13:00'),
        '2025-03-04T21:05:02Z',
      );
      expect(stale.status).toBe('AcceptedSettlementCompleted');
      // A later stamp cannot leave a terminal status either; the same status is taken again.
      expect((await store.payments.record(payment('Pending', '2025-03-05T10:09:00+13:00'))).status).toBe(
        'AcceptedSettlementCompleted',
      );
      const again = await store.payments.record(
        payment('AcceptedSettlementCompleted', '2025-03-05T10:05:00+13:00'),
        '2025-03-04T21:10:00Z',
      );
      expect(again).toMatchObject({ status: 'AcceptedSettlementCompleted', lastCheckedAt: '2025-03-04T21:10:00.000Z' });
      expect(await store.payments.listOpen()).toEqual([]);
    });

    it('writes an attempt before sending, finds it unanswered, and the payment it made once answered', async () => {
      const store = await freshStoreOn(d);
      const body = {
        consent_id: PAYMENT_CONSENT,
        amount: { total: '12.50', currency: 'NZD' as const },
        pcr: { particulars: 'rent' },
      };
      const requestJson = JSON.stringify(body);
      const request = { consentId: PAYMENT_CONSENT, identity: paymentIdentity(body) };
      await store.payments.insertAttempt({
        idempotencyKey: 'key-1',
        consentId: PAYMENT_CONSENT,
        requestJson,
        now: '2025-03-05T00:00:00Z',
      });
      expect(await store.payments.findUnansweredAttempt(request)).toEqual({ idempotencyKey: 'key-1', requestJson });
      expect(await store.payments.getAttempt('key-1')).toMatchObject({ state: 'sending', paymentId: null });
      expect(await store.payments.findEarlier(request)).toBeNull();
      const made = await store.payments.record(payment('Pending', '2025-03-05T10:00:00+13:00'));
      await store.payments.updateAttempt('key-1', { state: 'created', paymentId: made.paymentId });
      expect(await store.payments.findUnansweredAttempt(request)).toBeNull();
      expect(await store.payments.getAttempt('key-1')).toMatchObject({ state: 'created', paymentId: made.paymentId });
      expect(await store.payments.findEarlier(request)).toEqual({
        idempotencyKey: 'key-1',
        paymentId: made.paymentId,
        status: 'Pending',
        rawJson: made.rawJson,
      });
    });
  });

  describe('runs and their jobs', () => {
    it('records which scheduled job a run was, and refuses to finish an unknown run', async () => {
      const store = await freshStoreOn(d);
      const runId = await store.runs.start({ now: '2025-03-05T00:00:00Z' });
      await store.runs.recordJob(runId, 'nightly', '2025-03-05T00:00:00+13:00');
      expect(await store.runs.getJob(runId)).toEqual({
        runId,
        job: 'nightly',
        scheduledFor: '2025-03-04T11:00:00.000Z',
        holderHost: null,
        holderPid: null,
      });
      expect(await store.runs.getJob('other')).toBeNull();
      const summary = { outcome: 'ok', consents: 1, requests: 2, rowsWritten: 3, failedUnits: 0, errorSummary: null };
      await expect(store.runs.finish('other', { ...summary, outcome: 'ok' })).rejects.toThrow('no run other');
      await store.runs.finish(runId, { ...summary, outcome: 'ok' }, '2025-03-05T00:01:00Z');
      expect(await store.runs.get(runId)).toMatchObject({ ...summary, finishedAt: '2025-03-05T00:01:00.000Z' });
      expect((await store.runs.list(5)).map((r) => r.runId)).toEqual([runId]);
    });

    it('a run tagged twice (two schedule hosts in one PostgreSQL run) keeps its first row and does not throw', async () => {
      const store = await freshStoreOn(d);
      const runId = await store.runs.start({ now: '2025-03-05T00:00:00Z' });
      await store.runs.recordJob(runId, 'nightly-sync', '2025-03-05T02:00:00+13:00');
      await expect(store.runs.recordJob(runId, 'nightly-sync', '2025-03-05T02:00:00+13:00')).resolves.toBeUndefined();
      // A joining worker whose slot differs (another host's schedule) does not rewrite the run's job.
      await store.runs.recordJob(runId, 'nightly-sync', '2025-03-05T02:30:00+13:00');
      expect(await store.runs.getJob(runId)).toEqual({
        runId,
        job: 'nightly-sync',
        scheduledFor: '2025-03-04T13:00:00.000Z',
        holderHost: null,
        holderPid: null,
      });
      expect(await queryRows(store, 'SELECT run_id FROM job_runs')).toEqual([{ run_id: runId }]);
    });

    it("a job's run opened with its tag in one write, naming the process that runs it", async () => {
      const store = await freshStoreOn(d);
      const runId = await store.runs.start({
        now: '2025-03-05T00:00:00Z',
        job: { name: 'expiry-check', scheduledFor: '2025-03-05T08:00:00+13:00' },
      });
      expect(await store.runs.getJob(runId)).toEqual({
        runId,
        job: 'expiry-check',
        scheduledFor: '2025-03-04T19:00:00.000Z',
        holderHost: hostname(),
        holderPid: process.pid,
      });
    });
  });

  describe('what transaction queries taught', () => {
    it('merges accepted and refused sizes (the largest, the smallest) and keeps a lesson not given', async () => {
      const store = await freshStoreOn(d);
      expect(await store.syncState.getWindowKnowledge(BANK)).toEqual({
        windowDays: null,
        maxAcceptedRows: null,
        minRefusedRows: null,
      });
      await store.syncState.recordWindowKnowledge(BANK, { acceptedRows: 40 });
      await store.syncState.recordWindowKnowledge(BANK, { acceptedRows: 25, refusedRows: 120, windowDays: 7 });
      await store.syncState.recordWindowKnowledge(BANK, { acceptedRows: 90, refusedRows: 300 });
      expect(await store.syncState.getWindowKnowledge(BANK)).toEqual({
        windowDays: 7,
        maxAcceptedRows: 90,
        minRefusedRows: 120,
      });
      expect(await store.syncState.getWindowDays(BANK)).toBe(7);
      await expect(store.syncState.recordWindowKnowledge(BANK, { windowDays: 0 })).rejects.toThrow(RangeError);
    });

    it('keeps rows per day per account and consent, without a watermark', async () => {
      const store = await freshStoreOn(d);
      const key = { bank: BANK, accountId: ACCOUNT, consentId: CONSENT };
      expect(await store.syncState.getRowsPerDay(key)).toBeNull();
      await store.syncState.setRowsPerDay({ ...key, rowsPerDay: 2.5 });
      await store.syncState.setRowsPerDay({ ...key, consentId: OTHER_CONSENT, rowsPerDay: 4 });
      expect(await store.syncState.getRowsPerDay(key)).toBe(2.5);
      expect(await store.syncState.getRowsPerDay({ ...key, consentId: OTHER_CONSENT })).toBe(4);
      expect(await store.syncState.getWatermark(key)).toBeNull();
      await expect(store.syncState.setRowsPerDay({ ...key, rowsPerDay: -1 })).rejects.toThrow(RangeError);
    });
    it("lists every stored reading of the bank with its account's type and subtype and its consent's permissions", async () => {
      const store = await freshStoreOn(d);
      const ctx = { bank: BANK, consentId: CONSENT, fetchedAt: NOW };
      await store.commitAccounts({
        ...ctx,
        rows: [
          toAccountRow(
            {
              AccountId: 'acc-saver' as AccountId,
              Currency: 'NZD',
              Nickname: 'Saver',
              AccountType: 'Personal',
              AccountSubType: 'Savings',
            },
            ctx,
          ),
        ],
        runId: null,
      });
      // OTHER_CONSENT reads only the credits; CONSENT is registered but never read (no permissions).
      await authorise(store, OTHER_CONSENT, ['ReadTransactionsCredits']);
      const set = (accountId: string, consentId: typeof CONSENT, rowsPerDay: number) =>
        store.syncState.setRowsPerDay({ bank: BANK, accountId: accountId as AccountId, consentId, rowsPerDay });
      expect(await store.syncState.storedDensities(BANK)).toEqual([]);
      await set('acc-saver', CONSENT, 0.25);
      await set('acc-saver', OTHER_CONSENT, 0.5);
      // An account no longer held keeps its reading, without a type.
      await set('acc-gone', CONSENT, 1.5);
      // A watermark alone is no reading.
      await store.syncState.setWatermark({
        bank: BANK,
        accountId: 'acc-watermark' as AccountId,
        consentId: CONSENT,
        watermark: '2025-03-01T00:00:00Z',
      });
      const got = (await store.syncState.storedDensities(BANK)).sort((a, b) => a.rowsPerDay - b.rowsPerDay);
      expect(got.map(({ permissions: _, ...reading }) => reading)).toEqual([
        { accountId: 'acc-saver', rowsPerDay: 0.25, accountType: 'Personal', accountSubtype: 'Savings' },
        { accountId: 'acc-saver', rowsPerDay: 0.5, accountType: 'Personal', accountSubtype: 'Savings' },
        { accountId: 'acc-gone', rowsPerDay: 1.5, accountType: null, accountSubtype: null },
      ]);
      expect(got.map((r) => r.permissions?.includes('ReadTransactionsCredits') ?? null)).toEqual([null, true, null]);
      expect(got[1]!.permissions).toContain('ReadTransactionsDetail');
      // CONSENT's permissions were never read: unknown, not none.
      expect(got[0]!.permissions).toBeNull();
      expect(got[2]!.permissions).toBeNull();
      expect(await store.syncState.storedDensities('ANZ')).toEqual([]);
    });
  });

  describe('look-ups of the sync', () => {
    it('tells when a party was last read and the newest statement held', async () => {
      const store = await freshStoreOn(d);
      const customer = { bank: BANK, consentId: CONSENT, accountId: null };
      expect(await store.partyLastSeen(customer)).toBeNull();
      const party = {
        bank: BANK,
        consentId: CONSENT,
        accountId: null,
        partyId: 'p1',
        name: 'A Customer',
        rawJson: '{"PartyId":"p1"}',
      };
      await store.commitParty({ ...customer, row: party as never, runId: null, now: '2025-03-05T01:00:00Z' });
      expect(await store.partyLastSeen(customer)).toBe('2025-03-05T01:00:00.000Z');
      expect(await store.newestStatementPeriod({ bank: BANK, accountId: ACCOUNT })).toBeNull();
      // s3: an Interim statement newer by its end than the periodic ones, off their period.
      for (const [id, start, type] of [
        ['s1', '2025-01-01T00:00:00.000Z', 'RegularPeriodic'],
        ['s2', '2025-02-01T00:00:00.000Z', 'RegularPeriodic'],
        ['s3', '2025-02-15T00:00:00.000Z', 'Interim'],
      ] as const) {
        await store.commitStatements({
          bank: BANK,
          consentId: CONSENT,
          accountId: ACCOUNT,
          rows: [
            {
              bank: BANK,
              accountId: ACCOUNT,
              consentId: CONSENT,
              statementId: id as StatementId,
              type,
              startDateTime: start,
              endDateTime: start,
              creationDateTime: start,
              rawJson: `{"StatementId":"${id}"}`,
            } as never,
          ],
          runId: null,
        });
      }
      // The newest periodic one by its end, not the newer Interim: the dates the sync plans its next
      // statement listing from, and the start it lists from.
      expect(await store.newestStatementPeriod({ bank: BANK, accountId: ACCOUNT })).toEqual({
        type: 'RegularPeriodic',
        start: '2025-02-01T00:00:00.000Z',
        end: '2025-02-01T00:00:00.000Z',
        created: '2025-02-01T00:00:00.000Z',
      });
      expect(await store.listStatementsWithoutFile({ bank: BANK, accountId: ACCOUNT })).toEqual(['s1', 's2', 's3']);
    });
  });

  describe('rows held in a look-back', () => {
    it('gives the booking instants of the rows not removed since an instant, the newest up to the limit, oldest first', async () => {
      const store = await freshStoreOn(d);
      await authorise(store, CONSENT);
      const rows = ['2025-03-01T10:00:00+13:00', '2025-03-02T10:00:00+13:00', '2025-03-03T10:00:00+13:00'].map(
        (at, i) =>
          txRow({
            TransactionId: `txn-${i}`,
            Status: 'Booked',
            BookingDateTime: at,
            CreditDebitIndicator: i === 1 ? 'Credit' : 'Debit',
          }),
      );
      await store.commitTransactionWindow({
        bank: BANK,
        accountId: ACCOUNT,
        consentId: CONSENT,
        range: { from: '2025-03-01T00:00:00+13:00', to: '2025-03-04T00:00:00+13:00' },
        creditDebitFilter: null,
        rows,
        checkpoint: null,
        runId: null,
        now: '2025-03-04T01:00:00Z',
      });
      const key = { bank: BANK, accountId: ACCOUNT };
      const ms = (at: string) => Date.parse(at);
      expect(await store.rowTimesSince({ ...key, since: '2025-03-02T00:00:00+13:00', limit: 10 })).toEqual([
        ms('2025-03-02T10:00:00+13:00'),
        ms('2025-03-03T10:00:00+13:00'),
      ]);
      expect(await store.rowTimesSince({ ...key, since: '2025-02-01T00:00:00Z', limit: 1 })).toEqual([
        ms('2025-03-03T10:00:00+13:00'),
      ]);
      expect(await store.rowTimesSince({ ...key, since: '2025-03-04T00:00:00+13:00', limit: 10 })).toEqual([]);
      // Of one indicator: the rows a Credits- or Debits-only consent reads.
      const since = '2025-02-01T00:00:00Z';
      expect(await store.rowTimesSince({ ...key, since, limit: 10, indicator: 'Credit' })).toEqual([
        ms('2025-03-02T10:00:00+13:00'),
      ]);
      expect(await store.rowTimesSince({ ...key, since, limit: 10, indicator: 'Debit' })).toEqual([
        ms('2025-03-01T10:00:00+13:00'),
        ms('2025-03-03T10:00:00+13:00'),
      ]);
    });
  });

  describe('forget', () => {
    it('counts on a dry run without deleting, then deletes the ended consent and its rows', async () => {
      const store = await freshStoreOn(d);
      await store.syncState.setWatermark({ bank: BANK, accountId: ACCOUNT, consentId: CONSENT, watermark: null });
      await store.consents.markEnded(CONSENT, 'BDT410');
      const dry = await store.consents.forget(CONSENT, { dryRun: true });
      expect(dry.deleted).toMatchObject({ accounts: 1, sync_state: 1, consents: 1 });
      expect(await queryRow(store, 'SELECT count(*) AS n FROM accounts')).toEqual({ n: 1 });
      const done = await store.consents.forget(CONSENT, { dryRun: false });
      expect(done.deleted).toEqual(dry.deleted);
      expect(await queryRows(store, 'SELECT consent_id FROM consents')).toEqual([{ consent_id: OTHER_CONSENT }]);
      expect(await queryRow(store, 'SELECT count(*) AS n FROM accounts')).toEqual({ n: 0 });
    });

    it('deletes what was kept per transaction of the rows gone: categories, duplicate suspicions, transfer links', async () => {
      const store = await freshStoreOn(d);
      await store.consents.markEnded(CONSENT, 'BDT410');
      const at = '2025-03-01T00:00:00.000Z';
      await execute(
        store,
        `INSERT INTO transaction_categories (bank, account_id, transaction_id, category, payee, category_source,
           category_rule, decided_at) VALUES (?, ?, 'tx-gone', 'groceries', NULL, 'mcc', '5411', ?)`,
        BANK,
        ACCOUNT,
        at,
      );
      /** An open suspicion of `transactionId` served twice as `twin`, planted. */
      const suspect = (accountId: string, transactionId: string, twin: string) =>
        execute(
          store,
          `INSERT INTO duplicate_suspicions (bank, account_id, transaction_id, twin_transaction_id, evidence, balance,
             balance_date_time, balance_date, counted_balance, amount_off, currency, detail, suspected_at, checked_at)
           VALUES (?, ?, ?, ?, 'balances', '10.00', ?, '2025-03-01', '15.00', '5.00', 'NZD', 'planted', ?, ?)`,
          BANK,
          accountId,
          transactionId,
          twin,
          at,
          at,
          at,
        );
      await suspect(ACCOUNT, 'tx-gone', 'tx-twin');
      await execute(
        store,
        `INSERT INTO transfer_links (status, debit_bank, debit_account_id, debit_transaction_id, credit_bank,
           credit_account_id, credit_transaction_id, currency, amount_minor, days_apart, same_consent, same_party,
           owner_group, counterparty_sides, reference_agrees, score, linked_at)
         VALUES ('linked', ?, ?, 'tx-gone', ?, 'acc-other', 'tx-kept', 'NZD', 500, 0, 1, 0, NULL, 0, 0, 1031, ?)`,
        BANK,
        ACCOUNT,
        BANK,
        at,
      );
      // A suspicion of a row that stays whose twin is a row forgotten: gone too.
      await execute(
        store,
        `INSERT INTO accounts (bank, account_id, consent_id, currency, raw_json, first_seen_at, last_seen_at, updated_at)
         VALUES (?, 'acc-other', ?, 'NZD', '{}', ?, ?, ?)`,
        BANK,
        OTHER_CONSENT,
        at,
        at,
        at,
      );
      await execute(
        store,
        `INSERT INTO transactions (bank, account_id, transaction_id, consent_id, status, booking_date_time, booking_date,
           amount, currency, credit_debit_indicator, raw_json, first_seen_at, last_seen_at, updated_at)
         VALUES (?, 'acc-other', 'tx-stays', ?, 'Booked', ?, '2025-03-01', '-5.00', 'NZD', 'Debit', '{}', ?, ?, ?)`,
        BANK,
        OTHER_CONSENT,
        at,
        at,
        at,
        at,
      );
      await suspect('acc-other', 'tx-stays', 'tx-twin-gone');
      const done = await store.consents.forget(CONSENT, { dryRun: false });
      expect(done.deleted).toMatchObject({ transaction_categories: 1, duplicate_suspicions: 2, transfer_links: 1 });
      for (const table of ['transaction_categories', 'duplicate_suspicions', 'transfer_links'])
        expect(await queryRow(store, `SELECT count(*) AS n FROM ${table}`), table).toEqual({ n: 0 });
    });

    it('deletes the continuity findings of an account no longer stored, and those naming a transaction gone; keeps the others', async () => {
      const store = await freshStoreOn(d);
      await store.consents.markEnded(CONSENT, 'BDT410');
      // Another account, of the consent that stays.
      await execute(
        store,
        `INSERT INTO accounts (bank, account_id, consent_id, currency, raw_json, first_seen_at, last_seen_at, updated_at)
         VALUES (?, 'acc-kept', ?, 'NZD', '{}', ?, ?, ?)`,
        BANK,
        OTHER_CONSENT,
        '2025-03-01T00:00:00.000Z',
        '2025-03-01T00:00:00.000Z',
        '2025-03-01T00:00:00.000Z',
      );
      const finding = (account: string, transactionId: string | null) =>
        execute(
          store,
          `INSERT INTO continuity_findings (bank, account_id, kind, from_date_time, to_date_time, from_date, to_date, amount,
             amount_minor, currency, cause, transaction_id, detail, run_id, checked_at)
           VALUES (?, ?, 'balances', '2025-03-01T00:00:00.000Z', '2025-03-02T00:00:00.000Z', '2025-03-01', '2025-03-02',
             '-10.00', -1000, 'NZD', 'missing_transaction', ?, 'planted', NULL, '2025-03-03T00:00:00.000Z')`,
          BANK,
          account,
          transactionId,
        );
      await finding(ACCOUNT, null); // the forgotten consent's account: gone with it
      await finding('acc-kept', 'tx-gone'); // names a transaction no longer stored
      await finding('acc-kept', null); // stays
      const done = await store.consents.forget(CONSENT, { dryRun: false });
      expect(done.deleted).toMatchObject({ continuity_findings: 2 });
      expect(
        await queryRows(store, 'SELECT account_id, transaction_id FROM continuity_findings ORDER BY account_id'),
      ).toEqual([{ account_id: 'acc-kept', transaction_id: null }]);
    });
  });
});
