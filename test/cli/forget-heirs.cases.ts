/**
 * `bankdata consents forget` hands over only what the receiving consent may read (issue 31, item
 * 4; docs/security.md "Data kept"), on either dialect (forget-heirs.test.ts on SQLite,
 * forget-heirs.pg.test.ts on PostgreSQL), through the real command run in process.
 *
 * The forgotten consent F read two accounts at Detail with every permission. Account A is read by
 * two more consents: H (synced it last: accounts, balances, and credits only, from 1 June 2025) and
 * P (accounts, statements at Basic, account party). Account B only F read. Each row goes where it
 * may be read, or nowhere:
 *
 * | row of F | goes to | why |
 * |---|---|---|
 * | account A | H | H reads the account at Detail and synced it last |
 * | balance A, 10 July 2025 | H | inside H's window |
 * | balance A, 10 March 2025 | deleted | before H's window; P has no ReadBalances |
 * | credit A, 10 July 2025 | H | inside the window, a credit |
 * | debit A, 10 July 2025 | deleted | H reads credits only; P no transactions |
 * | credit A, 10 March 2025 | deleted | before H's window (BDT236) |
 * | statement A | deleted | read at Detail (F's ReadStatementsDetail, without the ReadStatements an earlier version did not ask); P reads at Basic, H none |
 * | account party A | P | P holds ReadParty |
 * | F's customer party, everything of B | deleted | F's alone |
 *
 * The second case: an account row the forgotten consent owns while other consents' rows point to
 * it (the foreign keys of transactions, balances and statements) is never deleted. It goes to one
 * of them that reads the account, at its payload level (a Basic reader gets it without the
 * Detail fields), or, when none of them reads accounts, stays at Basic under one of them
 * (`forgetInTransaction`: the forget failed on the foreign key and rolled back whole).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openDatabaseStore, type Store } from '../../src/store';
import { execute, queryRows, type DialectSetup } from '../support/dialects';
import { runCliInProcess } from './cli-process';

const F = '1f000000-0000-4000-8000-000000000001';
const H = '1f000000-0000-4000-8000-000000000002';
const P = '1f000000-0000-4000-8000-000000000003';
const SEEN = '2025-08-01T00:00:00.000Z';

/** Where each row is after the forget: its consent, or `gone`. */
export const EXPECTED: Record<string, string> = {
  'accounts A': H,
  'accounts B': 'gone',
  'balances A 2025-07-10': H,
  'balances A 2025-03-10': 'gone',
  'balances B 2025-07-10': 'gone',
  'transactions A credit-july': H,
  'transactions A debit-july': 'gone',
  'transactions A credit-march': 'gone',
  'transactions B credit-july': 'gone',
  'statements A st-1': 'gone',
  'statements B st-1': 'gone',
  'parties A': P,
  'parties customer': 'gone',
};

/** Runs `bankdata consents forget` on `db`, in a fresh directory, with `flags`. */
/**
 * A database seeded by `plant`, then `consents forget consentId` run on it twice: with `--dry-run`
 * first, then for real; both must succeed. Gives the database and both runs.
 */
async function seededThenForgotten(
  setup: DialectSetup,
  dirs: string[],
  plant: (store: Store) => Promise<void>,
  consentId: string,
) {
  const db = await setup.location();
  const store = await openDatabaseStore(db);
  try {
    await plant(store);
  } finally {
    await store.close();
  }
  const dir = mkdtempSync(join(tmpdir(), 'bankdata-forget-'));
  dirs.push(dir);
  const forget = (...flags: string[]) =>
    runCliInProcess(['--db', db, 'consents', 'forget', consentId, ...flags], { cwd: dir });
  const dry = await forget('--dry-run');
  expect(dry.code, dry.stderr).toBe(0);
  const real = await forget();
  expect(real.code, real.stderr).toBe(0);
  return { db, dry, real };
}

async function seed(store: Store): Promise<void> {
  const consent = async (id: string, status: string, permissions: string, start: string) =>
    execute(
      store,
      `INSERT INTO consents (consent_id, bank, status, permissions, start_date_time, registered_at)
       VALUES (?, 'PNZ', ?, ?, ?, ?)`,
      id,
      status,
      permissions,
      start,
      SEEN,
    );
  await consent(
    F,
    'Revoked',
    'ReadAccountsDetail ReadBalances ReadTransactionsDetail ReadTransactionsCredits ReadTransactionsDebits ReadStatementsDetail ReadParty ReadPartyAuthUser',
    '2025-01-01T00:00:00.000Z',
  );
  await consent(
    H,
    'Authorised',
    'ReadAccountsDetail ReadBalances ReadTransactionsDetail ReadTransactionsCredits',
    '2025-06-01T00:00:00.000Z',
  );
  await consent(
    P,
    'Authorised',
    'ReadAccountsDetail ReadStatements ReadStatementsBasic ReadParty',
    '2024-01-01T00:00:00.000Z',
  );
  const sync = (account: string, consentId: string, at: string) =>
    execute(
      store,
      `INSERT INTO sync_state (bank, account_id, consent_id, resource, updated_at) VALUES ('PNZ', ?, ?, 'accounts', ?)`,
      account,
      consentId,
      at,
    );
  await sync('A', F, '2025-07-01T00:00:00.000Z');
  await sync('B', F, '2025-07-01T00:00:00.000Z');
  await sync('A', P, '2025-07-20T00:00:00.000Z');
  await sync('A', H, '2025-07-30T00:00:00.000Z');
  for (const account of ['A', 'B']) {
    await execute(
      store,
      `INSERT INTO accounts (bank, account_id, consent_id, currency, identification, raw_json, first_seen_at, last_seen_at, updated_at)
       VALUES ('PNZ', ?, ?, 'NZD', '12-3456-7890123-00', '{}', ?, ?, ?)`,
      account,
      F,
      SEEN,
      SEEN,
      SEEN,
    );
    const balance = (date: string) =>
      execute(
        store,
        `INSERT INTO balances (bank, account_id, consent_id, type, amount, currency, credit_debit_indicator, date_time, raw_json, fetched_at)
         VALUES ('PNZ', ?, ?, 'InterimBooked', '10.00', 'NZD', 'Credit', ?, '{}', ?)`,
        account,
        F,
        `${date}T00:00:00.000Z`,
        SEEN,
      );
    const transaction = (id: string, indicator: string, date: string) =>
      execute(
        store,
        `INSERT INTO transactions (bank, account_id, transaction_id, consent_id, status, booking_date_time, booking_date,
           amount, amount_minor, currency, credit_debit_indicator, counterparty_account, raw_json, first_seen_at, last_seen_at, updated_at)
         VALUES ('PNZ', ?, ?, ?, 'Booked', ?, ?, '5.00', 500, 'NZD', ?, '01-0001-0000001-00', '{}', ?, ?, ?)`,
        account,
        id,
        F,
        `${date}T00:00:00.000Z`,
        date,
        indicator,
        SEEN,
        SEEN,
        SEEN,
      );
    await balance('2025-07-10');
    await transaction('credit-july', 'Credit', '2025-07-10');
    if (account === 'A') {
      await balance('2025-03-10');
      await transaction('debit-july', 'Debit', '2025-07-10');
      await transaction('credit-march', 'Credit', '2025-03-10');
    }
    await execute(
      store,
      `INSERT INTO statements (bank, account_id, statement_id, consent_id, type, start_date_time, end_date_time,
         creation_date_time, raw_json, first_seen_at, last_seen_at, updated_at)
       VALUES ('PNZ', ?, 'st-1', ?, 'RegularPeriodic', '2025-06-01T00:00:00.000Z', '2025-06-30T00:00:00.000Z', ?, '{}', ?, ?, ?)`,
      account,
      F,
      SEEN,
      SEEN,
      SEEN,
      SEEN,
    );
  }
  const party = (account: string | null, partyId: string) =>
    execute(
      store,
      `INSERT INTO parties (bank, consent_id, account_id, party_id, name, raw_json, first_seen_at, last_seen_at, updated_at)
       VALUES ('PNZ', ?, ?, ?, 'A. Customer', '{}', ?, ?, ?)`,
      F,
      account,
      partyId,
      SEEN,
      SEEN,
      SEEN,
    );
  await party('A', 'party-a');
  await party(null, 'party-customer');
}

/** Every row of the seeded tables, keyed as EXPECTED is: its consent now. */
async function whereRowsAre(store: Store): Promise<Record<string, string>> {
  const found: Record<string, string> = {};
  const read = async (key: string, sql: string) => {
    for (const r of await queryRows(store, sql)) found[`${key} ${String(r.k)}`] = String(r.consent_id);
  };
  await read('accounts', 'SELECT account_id AS k, consent_id FROM accounts');
  await read('balances', `SELECT account_id || ' ' || substr(date_time, 1, 10) AS k, consent_id FROM balances`);
  await read('transactions', `SELECT account_id || ' ' || transaction_id AS k, consent_id FROM transactions`);
  await read('statements', `SELECT account_id || ' ' || statement_id AS k, consent_id FROM statements`);
  await read('parties', `SELECT coalesce(account_id, 'customer') AS k, consent_id FROM parties`);
  return found;
}

export function forgetHeirsSuite(setup: DialectSetup): void {
  setup.describe('consents forget hands over only what the other consent may read', () => {
    const dirs: string[] = [];
    afterAll(() => {
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    });

    it('by permissions, accounts and window; the rest deleted; the output (and the dry run) says which', async () => {
      const { db, dry, real } = await seededThenForgotten(setup, dirs, seed, F);

      const after = await openDatabaseStore(db);
      try {
        const expected = Object.fromEntries(Object.entries(EXPECTED).filter(([, to]) => to !== 'gone'));
        expect(await whereRowsAre(after)).toEqual(expected);
        expect(await queryRows(after, 'SELECT consent_id FROM sync_state WHERE consent_id = ?', F)).toEqual([]);
      } finally {
        await after.close();
      }
      const lines = [
        `removed for consent ${F}: 3 transactions, 2 balances, 2 statements, 1 parties, 1 accounts, 2 sync_state, 1 consents; 0 statement file(s)`,
        `handed over to consent ${H} (its permissions, accounts and window cover them): 1 transactions, 1 balances, 1 accounts`,
        `handed over to consent ${P} (its permissions, accounts and window cover them): 1 parties`,
      ];
      expect(real.stdout).toBe(lines.join('\n') + '\n');
      expect(dry.stdout).toBe(
        lines.map((l) => l.replace(/^removed/, 'would remove').replace(/^handed over/, 'would hand over')).join('\n') +
          '\n',
      );
    });

    it('keeps an account row other consents’ rows point to: at the reader’s level, or at Basic under them', async () => {
      const { db, dry, real } = await seededThenForgotten(setup, dirs, seedPointedTo, F2);

      const after = await openDatabaseStore(db);
      try {
        expect(await whereRowsAre(after)).toEqual({
          'accounts A': G,
          'accounts B': K,
          'balances A 2025-07-05': G,
          'balances A 2025-07-10': G,
          'balances B 2025-07-10': K,
          'transactions A g-1': G,
          'statements A g-st': G,
        });
        // Reduced to Basic: the Detail columns blanked, `Account` and `Servicer` gone from the payload.
        expect(
          await queryRows(
            after,
            `SELECT account_id, nickname, scheme_name, identification, account_name, secondary_identification,
               servicer_identification, raw_json FROM accounts ORDER BY account_id`,
          ),
        ).toEqual(
          ['A', 'B'].map((account) => ({
            account_id: account,
            nickname: 'Joint',
            scheme_name: null,
            identification: null,
            account_name: null,
            secondary_identification: null,
            servicer_identification: null,
            raw_json: JSON.stringify({ AccountId: account, Currency: 'NZD', Nickname: 'Joint' }),
          })),
        );
        expect(await queryRows(after, 'SELECT consent_id FROM consents WHERE consent_id = ?', F2)).toEqual([]);
      } finally {
        await after.close();
      }
      const lines = [
        `removed for consent ${F2}: 2 transactions, 2 sync_state, 1 consents; 0 statement file(s)`,
        `handed over to consent ${G} (its permissions, accounts and window cover them): 1 balances, 1 accounts (1 at Basic: the Detail fields blanked)`,
        `kept under consent ${K} at Basic (its rows point to them; it reads no accounts): 1 accounts`,
      ];
      expect(real.stdout).toBe(lines.join('\n') + '\n');
      expect(dry.stdout).toBe(
        lines
          .map((l) =>
            l
              .replace(/^removed/, 'would remove')
              .replace(/^handed over/, 'would hand over')
              .replace(/^kept/, 'would keep'),
          )
          .join('\n') + '\n',
      );
    });
  });
}

const F2 = '2f000000-0000-4000-8000-000000000001';
const G = '2f000000-0000-4000-8000-000000000002';
const K = '2f000000-0000-4000-8000-000000000003';

/**
 * F2 (ended) read accounts A and B at Detail and owns both rows, a balance of A and a Detail
 * transaction in each. G reads A at Basic (accounts, transactions, statements) with balances,
 * and holds a transaction, a balance and a statement of its own there. K reads balances only
 * (no accounts, no sync state) and holds a balance of B.
 */
async function seedPointedTo(store: Store): Promise<void> {
  const consent = (id: string, status: string, permissions: string) =>
    execute(
      store,
      `INSERT INTO consents (consent_id, bank, status, permissions, start_date_time, registered_at)
       VALUES (?, 'PNZ', ?, ?, '2025-01-01T00:00:00.000Z', ?)`,
      id,
      status,
      permissions,
      SEEN,
    );
  await consent(
    F2,
    'Revoked',
    'ReadAccountsDetail ReadBalances ReadTransactionsDetail ReadTransactionsCredits ReadTransactionsDebits ReadStatements ReadStatementsDetail',
  );
  await consent(
    G,
    'Authorised',
    'ReadAccountsBasic ReadBalances ReadTransactionsBasic ReadTransactionsCredits ReadTransactionsDebits ReadStatements ReadStatementsBasic',
  );
  await consent(K, 'Authorised', 'ReadBalances');
  for (const [account, consentId, at] of [
    ['A', F2, '2025-07-01T00:00:00.000Z'],
    ['B', F2, '2025-07-01T00:00:00.000Z'],
    ['A', G, '2025-07-02T00:00:00.000Z'],
  ])
    await execute(
      store,
      `INSERT INTO sync_state (bank, account_id, consent_id, resource, watermark, updated_at)
       VALUES ('PNZ', ?, ?, 'transactions', ?, ?)`,
      account,
      consentId,
      at,
      at,
    );
  for (const account of ['A', 'B']) {
    const raw = {
      AccountId: account,
      Currency: 'NZD',
      Nickname: 'Joint',
      Account: { SchemeName: 'BECSElectronicCredit', Identification: '12-3456-7890123-00', Name: 'A. Customer' },
      Servicer: { SchemeName: 'BECSElectronicCredit', Identification: '123456' },
    };
    await execute(
      store,
      `INSERT INTO accounts (bank, account_id, consent_id, currency, nickname, scheme_name, identification, account_name,
         secondary_identification, servicer_identification, raw_json, first_seen_at, last_seen_at, updated_at)
       VALUES ('PNZ', ?, ?, 'NZD', 'Joint', 'BECSElectronicCredit', '12-3456-7890123-00', 'A. Customer', 'ref', '123456', ?, ?, ?, ?)`,
      account,
      F2,
      JSON.stringify(raw),
      SEEN,
      SEEN,
      SEEN,
    );
  }
  const balance = (account: string, consentId: string, date: string) =>
    execute(
      store,
      `INSERT INTO balances (bank, account_id, consent_id, type, amount, currency, credit_debit_indicator, date_time, raw_json, fetched_at)
       VALUES ('PNZ', ?, ?, 'InterimBooked', '10.00', 'NZD', 'Credit', ?, '{}', ?)`,
      account,
      consentId,
      `${date}T00:00:00.000Z`,
      SEEN,
    );
  const transaction = (account: string, id: string, consentId: string) =>
    execute(
      store,
      `INSERT INTO transactions (bank, account_id, transaction_id, consent_id, status, booking_date_time, booking_date,
         amount, amount_minor, currency, credit_debit_indicator, counterparty_account, raw_json, first_seen_at, last_seen_at, updated_at)
       VALUES ('PNZ', ?, ?, ?, 'Booked', '2025-07-02T00:00:00.000Z', '2025-07-02', '5.00', 500, 'NZD', 'Credit', NULL, '{}', ?, ?, ?)`,
      account,
      id,
      consentId,
      SEEN,
      SEEN,
      SEEN,
    );
  await balance('A', F2, '2025-07-10'); // G reads balances from 1 January: handed over
  await balance('A', G, '2025-07-05');
  await balance('B', K, '2025-07-10');
  await transaction('A', 'f-1', F2); // read at Detail, G reads Basic: deleted
  await transaction('B', 'f-2', F2);
  await transaction('A', 'g-1', G);
  await execute(
    store,
    `INSERT INTO statements (bank, account_id, statement_id, consent_id, type, start_date_time, end_date_time,
       creation_date_time, raw_json, first_seen_at, last_seen_at, updated_at)
     VALUES ('PNZ', 'A', 'g-st', ?, 'RegularPeriodic', '2025-06-01T00:00:00.000Z', '2025-06-30T00:00:00.000Z', ?, '{}', ?, ?, ?)`,
    G,
    SEEN,
    SEEN,
    SEEN,
    SEEN,
  );
}
