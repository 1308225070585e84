import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { queryRow, queryRows, storeSuite } from '../support/dialects';
import { Account, Balance, Party, Statement, type AccountId, type StatementId } from '@bankdata/core/schemas';
import { toAccountRow, toBalanceRow, toPartyRow, toStatementRow } from '../../src/sync/transform';
import { ACCOUNT, BANK, CONSENT, NOW, OTHER_CONSENT, authorise, freshStoreOn, tempDir } from './helpers';

/** A statement file of `bytes` bytes where the sync would have put it (the PostgreSQL store copies its bytes in). */
function fileOf(bytes: number): { localPath: string; sha256: string } {
  const content = Buffer.alloc(bytes, 0x25);
  const localPath = join(tempDir(), 'statement.bin');
  writeFileSync(localPath, content);
  return { localPath, sha256: createHash('sha256').update(content).digest('hex') };
}

const ctx = { bank: BANK, consentId: CONSENT, fetchedAt: NOW };
const balance = (amount: string, dateTime = '2025-03-04T12:05:00+13:00', fetchedAt: Date | string = NOW) =>
  toBalanceRow(
    Balance.parse({
      AccountId: ACCOUNT,
      Amount: { Amount: amount, Currency: 'NZD' },
      CreditDebitIndicator: 'Credit',
      Type: 'InterimBooked',
      DateTime: dateTime,
    }),
    { ...ctx, fetchedAt },
  );

export const resourceWritesSuite = storeSuite('resource writes', (d) => {
  describe('commitBalances', () => {
    it('adds a balance row only when (account, type, date_time, amount, indicator) is new', async () => {
      const store = await freshStoreOn(d);
      const unit = { bank: BANK, accountId: ACCOUNT, consentId: CONSENT, runId: null };
      expect(await store.commitBalances({ ...unit, rows: [balance('2315.07')] })).toEqual({ added: 1, unchanged: 0 });
      expect(await store.commitBalances({ ...unit, rows: [balance('2315.07')] })).toEqual({ added: 0, unchanged: 1 });
      expect(
        await store.commitBalances({
          ...unit,
          rows: [balance('2315.07', '2025-03-05T12:05:00+13:00'), balance('2400.00')],
        }),
      ).toEqual({ added: 2, unchanged: 0 });
      const rows = await queryRows(
        store,
        'SELECT amount_text AS amount, amount_minor, date_time FROM v_balances ORDER BY date_time, amount',
      );
      expect(rows).toEqual([
        { amount: '2315.07', amount_minor: 231507, date_time: '2025-03-03T23:05:00.000Z' },
        { amount: '2400.00', amount_minor: 240000, date_time: '2025-03-03T23:05:00.000Z' },
        { amount: '2315.07', amount_minor: 231507, date_time: '2025-03-04T23:05:00.000Z' },
      ]);
    });

    it('a balance fetched again records the fetch that saw it last (last_seen_at), never an earlier one; fetched_at and the consent stay those of the fetch that first returned it', async () => {
      const store = await freshStoreOn(d);
      const fetched = (consentId: typeof CONSENT, at: string) => ({
        bank: BANK,
        accountId: ACCOUNT,
        consentId,
        runId: null,
        now: at,
        rows: [
          toBalanceRow(
            Balance.parse({
              AccountId: ACCOUNT,
              Amount: { Amount: '2315.07', Currency: 'NZD' },
              CreditDebitIndicator: 'Credit',
              Type: 'InterimBooked',
              DateTime: '2025-03-04T12:05:00+13:00',
            }),
            { bank: BANK, consentId, fetchedAt: at },
          ),
        ],
      });
      const stored = () => queryRows(store, 'SELECT consent_id, fetched_at, last_seen_at FROM balances');
      expect(await store.commitBalances(fetched(CONSENT, '2025-03-05T01:00:00.000Z'))).toEqual({
        added: 1,
        unchanged: 0,
      });
      expect(await stored()).toEqual([
        { consent_id: CONSENT, fetched_at: '2025-03-05T01:00:00.000Z', last_seen_at: '2025-03-05T01:00:00.000Z' },
      ]);
      // Read again, through the other consent: the same balance, seen later.
      expect(await store.commitBalances(fetched(OTHER_CONSENT, '2025-03-06T01:00:00.000Z'))).toEqual({
        added: 0,
        unchanged: 1,
      });
      // A fetch from before that one, committed after it (another worker's), does not move it back.
      expect(await store.commitBalances(fetched(CONSENT, '2025-03-05T12:00:00.000Z'))).toEqual({
        added: 0,
        unchanged: 1,
      });
      expect(await stored()).toEqual([
        { consent_id: CONSENT, fetched_at: '2025-03-05T01:00:00.000Z', last_seen_at: '2025-03-06T01:00:00.000Z' },
      ]);
    });
  });

  describe('v_balances', () => {
    it('a balance restated and restated back (A, B, A): the latest word, by the view alone, is A (docs/data-model.md "v_balances")', async () => {
      const store = await freshStoreOn(d);
      const at = (amount: string, now: string) => ({
        bank: BANK,
        accountId: ACCOUNT,
        consentId: CONSENT,
        runId: null,
        now,
        rows: [balance(amount, undefined, now)],
      });
      await store.commitBalances(at('2315.07', '2025-03-05T01:00:00.000Z'));
      await store.commitBalances(at('2400.00', '2025-03-06T01:00:00.000Z'));
      await store.commitBalances(at('2315.07', '2025-03-07T01:00:00.000Z'));
      // The query docs/data-model.md "v_balances" gives for the bank's latest word per instant and type.
      const latest = await queryRows(
        store,
        `SELECT amount_text, fetched_at, last_seen_at FROM (
           SELECT b.*, row_number() OVER (
             PARTITION BY bank, account_id, type, date_time
             ORDER BY last_seen_at DESC, fetched_at DESC) AS n
           FROM v_balances b) latest WHERE n = 1`,
      );
      expect(latest).toEqual([
        { amount_text: '2315.07', fetched_at: '2025-03-05T01:00:00.000Z', last_seen_at: '2025-03-07T01:00:00.000Z' },
      ]);
    });
  });

  describe('commitAccounts', () => {
    const detail = Account.parse({
      AccountId: 'acc-0002',
      Currency: 'NZD',
      AccountType: 'Personal',
      AccountSubType: 'Savings',
      Description: 'Savings account',
      Nickname: 'Rainy day',
      Account: { SchemeName: 'BECSElectronicCredit', Identification: '12-3456-0123457-00', Name: 'J SMITH' },
    });
    const basic = Account.parse({
      AccountId: 'acc-0002',
      Currency: 'NZD',
      AccountType: 'Personal',
      AccountSubType: 'Savings',
      Description: 'Savings account',
      Nickname: 'Rainy day',
    });

    it('never blanks the Detail-only Account fields when a ReadAccountsBasic consent reads the account', async () => {
      const store = await freshStoreOn(d);
      const unit = { bank: BANK, runId: null };
      expect(await store.commitAccounts({ ...unit, consentId: CONSENT, rows: [toAccountRow(detail, ctx)] })).toEqual({
        added: 1,
        updated: 0,
        unchanged: 0,
      });
      const counts = await store.commitAccounts({
        ...unit,
        consentId: OTHER_CONSENT,
        rows: [toAccountRow(basic, { ...ctx, consentId: OTHER_CONSENT })],
      });
      expect(counts).toEqual({ added: 0, updated: 0, unchanged: 1 });
      expect(await queryRow(store, "SELECT * FROM v_accounts WHERE account_id = 'acc-0002'")).toMatchObject({
        consent_id: OTHER_CONSENT,
        scheme_name: 'BECSElectronicCredit',
        identification: '12-3456-0123457-00',
        account_name: 'J SMITH',
      });
    });

    it('counts a changed nickname as updated and moves updated_at', async () => {
      const store = await freshStoreOn(d);
      await store.commitAccounts({ bank: BANK, consentId: CONSENT, rows: [toAccountRow(detail, ctx)], runId: null });
      const renamed = { ...detail, Nickname: 'Holiday' };
      const counts = await store.commitAccounts({
        bank: BANK,
        consentId: CONSENT,
        rows: [toAccountRow(renamed, ctx)],
        runId: null,
        now: '2025-04-01T00:00:00Z',
      });
      expect(counts).toEqual({ added: 0, updated: 1, unchanged: 0 });
      expect(
        await queryRow(store, "SELECT nickname, updated_at FROM v_accounts WHERE account_id = 'acc-0002'"),
      ).toEqual({
        nickname: 'Holiday',
        updated_at: '2025-04-01T00:00:00.000Z',
      });
    });
    it('counts a row this run itself first wrote, written again changed, as unchanged; a later run as updated', async () => {
      const store = await freshStoreOn(d);
      const runId = await store.runs.start({ now: '2025-03-05T00:00:00Z' });
      const unit = { bank: BANK, consentId: CONSENT, runId };
      expect(await store.commitAccounts({ ...unit, rows: [toAccountRow(basic, ctx)] })).toEqual({
        added: 1,
        updated: 0,
        unchanged: 0,
      });
      // The same run reads the account again (a second consent over it) and the copy differs.
      const again = await store.commitAccounts({
        ...unit,
        rows: [toAccountRow(detail, ctx)],
        now: '2025-03-05T00:00:05Z',
      });
      expect(again).toEqual({ added: 0, updated: 0, unchanged: 1 });
      expect(
        await queryRow(store, "SELECT nickname, account_name FROM v_accounts WHERE account_id = 'acc-0002'"),
      ).toEqual({
        nickname: 'Rainy day',
        account_name: 'J SMITH',
      });
      const later = await store.runs.start({ now: '2025-03-06T00:00:00Z' });
      const renamed = toAccountRow({ ...detail, Nickname: 'Holiday' }, ctx);
      expect(
        await store.commitAccounts({ ...unit, runId: later, rows: [renamed], now: '2025-03-06T00:00:05Z' }),
      ).toEqual({ added: 0, updated: 1, unchanged: 0 });
    });
  });

  describe('statements', () => {
    const statement = Statement.parse({
      AccountId: ACCOUNT,
      StatementId: 'stm-2025-02',
      StatementReference: '002',
      Type: 'RegularPeriodic',
      StartDateTime: '2025-02-01T00:00:00+13:00',
      EndDateTime: '2025-02-28T23:59:59+13:00',
      CreationDateTime: '2025-03-01T06:00:00+13:00',
    });
    const unit = { bank: BANK, accountId: ACCOUNT, consentId: CONSENT, runId: null };

    it('stores a statement, then its file metadata once the file is on disk, and keeps it on re-fetch', async () => {
      const store = await freshStoreOn(d);
      expect(await store.commitStatements({ ...unit, rows: [toStatementRow(statement, ctx)] })).toEqual({
        added: 1,
        updated: 0,
        unchanged: 0,
      });
      expect(await store.listStatementsWithoutFile({ bank: BANK, accountId: ACCOUNT })).toEqual(['stm-2025-02']);
      const { localPath, sha256 } = fileOf(1843);
      await store.recordStatementFile(
        {
          bank: BANK,
          accountId: ACCOUNT,
          statementId: 'stm-2025-02' as StatementId,
          filePath: 'statements/PNZ/acc-0001/stm-2025-02.pdf',
          localPath,
          contentType: 'application/pdf',
          sha256,
          bytes: 1843,
        },
        { runId: null, consentId: CONSENT },
      );
      expect(await store.commitStatements({ ...unit, rows: [toStatementRow(statement, ctx)] })).toEqual({
        added: 0,
        updated: 0,
        unchanged: 1,
      });
      expect(await store.listStatementsWithoutFile({ bank: BANK, accountId: ACCOUNT })).toEqual([]);
      expect(await queryRow(store, 'SELECT * FROM v_statements')).toEqual({
        bank: 'PNZ',
        account_id: 'acc-0001',
        statement_id: 'stm-2025-02',
        type: 'RegularPeriodic',
        start_date_time: '2025-01-31T11:00:00.000Z',
        end_date_time: '2025-02-28T10:59:59.000Z',
        creation_date_time: '2025-02-28T17:00:00.000Z',
        reference: '002',
        file_path: 'statements/PNZ/acc-0001/stm-2025-02.pdf',
        file_content_type: 'application/pdf',
        file_sha256: sha256,
        file_bytes: 1843,
        start_date: '2025-02-01',
        end_date: '2025-02-28',
      });
    });

    it('refuses a file path that is absolute or climbs out of the data dir', async () => {
      const store = await freshStoreOn(d);
      await store.commitStatements({ ...unit, rows: [toStatementRow(statement, ctx)] });
      const file = {
        bank: BANK,
        accountId: ACCOUNT,
        statementId: 'stm-2025-02' as StatementId,
        contentType: 'text/csv',
        ...fileOf(1),
        bytes: 1,
      };
      await expect(
        store.recordStatementFile({ ...file, filePath: '/etc/passwd' }, { runId: null, consentId: CONSENT }),
      ).rejects.toThrow(RangeError);
      await expect(
        store.recordStatementFile({ ...file, filePath: 'statements/../../x.csv' }, { runId: null, consentId: CONSENT }),
      ).rejects.toThrow(RangeError);
      await expect(
        store.recordStatementFile(
          { ...file, statementId: 'nope' as StatementId, filePath: 'x.csv' },
          { runId: null, consentId: CONSENT },
        ),
      ).rejects.toThrow(/no stored statement/);
    });
    it('records several files in one call, or none when one statement is not stored', async () => {
      const store = await freshStoreOn(d);
      const march = { ...statement, StatementId: 'stm-2025-03' as StatementId, StatementReference: '003' };
      await store.commitStatements({ ...unit, rows: [toStatementRow(statement, ctx), toStatementRow(march, ctx)] });
      const fileFor = (statementId: string, bytes: number) => ({
        bank: BANK,
        accountId: ACCOUNT,
        statementId: statementId as StatementId,
        filePath: `statements/PNZ/acc-0001/${statementId}.pdf`,
        contentType: 'application/pdf',
        ...fileOf(bytes),
        bytes,
      });
      // The second names a statement never stored: the first is not recorded either.
      await expect(
        store.recordStatementFiles([fileFor('stm-2025-02', 10), fileFor('stm-2099-01', 11)], {
          runId: null,
          consentId: CONSENT,
        }),
      ).rejects.toThrow(/no stored statement/);
      expect(await store.listStatementsWithoutFile({ bank: BANK, accountId: ACCOUNT })).toEqual([
        'stm-2025-02',
        'stm-2025-03',
      ]);
      await store.recordStatementFiles([fileFor('stm-2025-02', 10), fileFor('stm-2025-03', 12)], {
        runId: null,
        consentId: CONSENT,
      });
      expect(await store.listStatementsWithoutFile({ bank: BANK, accountId: ACCOUNT })).toEqual([]);
      expect(
        await queryRows(store, 'SELECT statement_id, file_path, file_bytes FROM v_statements ORDER BY statement_id'),
      ).toEqual([
        { statement_id: 'stm-2025-02', file_path: 'statements/PNZ/acc-0001/stm-2025-02.pdf', file_bytes: 10 },
        { statement_id: 'stm-2025-03', file_path: 'statements/PNZ/acc-0001/stm-2025-03.pdf', file_bytes: 12 },
      ]);
    });
  });

  describe('commitParty', () => {
    const party = Party.parse({
      PartyId: 'pty-5512',
      PartyNumber: '00811234',
      PartyType: 'Sole',
      Name: 'Jane Smith',
      EmailAddress: 'jane@example.nz',
      Mobile: '+64-211234567',
      Address: [
        {
          AddressType: 'Residential',
          AddressLine: ['Flat 2', '10 Queen Street'],
          TownName: 'Auckland',
          PostCode: '1010',
          Country: 'NZ',
        },
      ],
    });

    it('keeps one customer party per consent and one owner per account, replaced by the next answer', async () => {
      const store = await freshStoreOn(d);
      const base = { bank: BANK, consentId: CONSENT, runId: null };
      expect(await store.commitParty({ ...base, accountId: null, row: toPartyRow(party, ctx, null) })).toMatchObject({
        added: 1,
      });
      expect(
        await store.commitParty({ ...base, accountId: ACCOUNT, row: toPartyRow(party, ctx, ACCOUNT) }),
      ).toMatchObject({ added: 1 });
      expect(await store.commitParty({ ...base, accountId: null, row: toPartyRow(party, ctx, null) })).toMatchObject({
        unchanged: 1,
      });
      const moved = {
        ...party,
        PartyId: 'pty-9000' as typeof party.PartyId,
        Address: [{ Country: 'NZ', TownName: 'Wellington' }],
      };
      expect(
        await store.commitParty({ ...base, accountId: ACCOUNT, row: toPartyRow(moved, ctx, ACCOUNT) }),
      ).toMatchObject({ updated: 1 });
      expect(
        await queryRows(store, 'SELECT account_id, party_id, address FROM v_parties ORDER BY account_id NULLS FIRST'),
      ).toEqual([
        { account_id: null, party_id: 'pty-5512', address: 'Flat 2, 10 Queen Street, Auckland, 1010, NZ' },
        { account_id: 'acc-0001', party_id: 'pty-9000', address: 'Wellington, NZ' },
      ]);
    });

    it('keeps an account, its statement and its owner with the consent that first read them while it is live (docs/data-model.md)', async () => {
      const store = await freshStoreOn(d);
      await authorise(store, CONSENT);
      await authorise(store, OTHER_CONSENT);
      const statement = Statement.parse({
        AccountId: ACCOUNT,
        StatementId: 'stm-2025-02',
        StatementReference: '002',
        Type: 'RegularPeriodic',
        StartDateTime: '2025-02-01T00:00:00+13:00',
        EndDateTime: '2025-02-28T23:59:59+13:00',
        CreationDateTime: '2025-03-01T06:00:00+13:00',
      });
      const account = { AccountId: ACCOUNT, Currency: 'NZD', Nickname: 'Bills' };
      const commitAll = async (consentId: typeof CONSENT) => {
        const c = { ...ctx, consentId };
        const unit = { bank: BANK, consentId, runId: null };
        await store.commitAccounts({ ...unit, rows: [toAccountRow(account, c)] });
        await store.commitStatements({ ...unit, accountId: ACCOUNT, rows: [toStatementRow(statement, c)] });
        await store.commitParty({ ...unit, accountId: ACCOUNT, row: toPartyRow(party, c, ACCOUNT) });
      };
      const owners = async () => [
        ...(await queryRows(store, 'SELECT consent_id FROM accounts')),
        ...(await queryRows(store, 'SELECT consent_id FROM statements')),
        ...(await queryRows(store, 'SELECT consent_id FROM parties')),
      ];
      await commitAll(CONSENT);
      await commitAll(OTHER_CONSENT);
      expect(await owners()).toEqual([{ consent_id: CONSENT }, { consent_id: CONSENT }, { consent_id: CONSENT }]);
      await store.consents.markEnded(CONSENT, 'BDT410');
      await commitAll(OTHER_CONSENT);
      expect(await owners()).toEqual([
        { consent_id: OTHER_CONSENT },
        { consent_id: OTHER_CONSENT },
        { consent_id: OTHER_CONSENT },
      ]);
    });

    it('stores only the reject when the party record failed its schema', async () => {
      const store = await freshStoreOn(d);
      const counts = await store.commitParty({
        bank: BANK,
        consentId: CONSENT,
        accountId: 'acc-0001' as AccountId,
        row: null,
        runId: null,
        rejects: [
          {
            resource: 'account_party',
            bank: BANK,
            consentId: CONSENT,
            accountId: ACCOUNT,
            reason: 'PartyId: required',
            rawPayload: '{"Name":"x"}',
          },
        ],
      });
      expect(counts).toEqual({ added: 0, updated: 0, unchanged: 0 });
      expect(await store.rejects.list()).toMatchObject([{ resource: 'account_party', rawPayload: '{"Name":"x"}' }]);
    });
  });
});
