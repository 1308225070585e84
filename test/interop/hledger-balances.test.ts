/**
 * The demo's transactions read by the real hledger with the rules shipped in docs/ (the recipe of
 * docs/ledger-beancount.md "hledger through CSV", run as written): the opening balances of
 * docs/hledger-opening.rules, then the journal of docs/hledger.rules with the bank's running
 * balance as a balance assertion on every row. hledger accepts the journal with its assertions
 * checked, and every account read with both credits and debits and no continuity break ends at
 * the bank's balance. An account read through a credits-only consent fails its assertions, as the
 * docs say ("Accounts that cannot end at the bank's balance").
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkContinuity } from '../../src/check/check-accounts';
import { formatUnits, toUnits } from '@bankdata/core/money';
import { runDemo } from '../../src/cli/demo';
import { openDatabaseStore, openStore, type SqliteStore } from '../../src/store';
import { account, fresh } from '../check/check-sql.cases';
import { DATES_ONLY } from '../export/balance-chain.cases';
import { runCliInProcess } from '../cli/cli-process';
import { SETTINGS } from '../fixtures/sync-harness';
import { missingPrograms, run } from './programs';

const missing = missingPrograms('hledger');
const docs = (name: string) => fileURLToPath(new URL(`../../docs/${name}`, import.meta.url));
/** The recipe's awk line: the first opening candidate per account (docs/hledger-opening.rules). */
const FIRST_PER_ACCOUNT = `awk 'BEGIN { RS = ""; ORS = "\\n\\n" } !seen[$5]++'`;

/** Decimal text without trailing fraction zeros and without hledger's commodity prefix. */
const canonical = (v: string) => {
  const bare = v.replace(/^[A-Z]{3}/, '').trim();
  return (bare.includes('.') ? bare.replace(/0+$/, '').replace(/\.$/, '') : bare).replace(/^-0$/, '0');
};

interface DemoAccount {
  account_id: string;
  currency: string;
  permissions: string;
}

const dir = mkdtempSync(join(tmpdir(), 'bankdata-hledger-'));
let store: SqliteStore;
let accounts: DemoAccount[];
let db: string;
/** The demo's output, shown when an assertion on what it stored fails. */
const demoOutput: string[] = [];

beforeAll(async () => {
  if (missing.length > 0) return;
  await runDemo({ dataDir: dir, settings: SETTINGS, seed: 1, out: (text) => void demoOutput.push(text) });
  db = join(dir, 'demo', 'bankdata.sqlite');
  store = await openStore(db);
  // An account's permissions: those of every consent that read its transactions. Its row belongs
  // to one consent (the first to return it, docs/data-model.md "Which consent a row belongs to"),
  // which, with consents run side by side, may be one that reads only its credits; its rows
  // are the union of what every consent read.
  accounts = store.sqlite
    .prepare(
      `SELECT a.account_id, a.currency, group_concat(c.permissions, ' ') AS permissions
         FROM v_accounts a
         JOIN sync_state s ON s.bank = a.bank AND s.account_id = a.account_id AND s.resource = 'transactions'
         JOIN consents c ON c.consent_id = s.consent_id
        GROUP BY a.account_id, a.currency ORDER BY a.account_id`,
    )
    .all() as DemoAccount[];
  await checkContinuity(store);
}, 120_000);

afterAll(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The recipe: export the accounts, opening balances, the journal; one file, opening first. */
async function journalOf(accountIds: string[], name: string, from = db): Promise<string> {
  const csv = join(dir, `${name}.csv`);
  const args = ['export', 'transactions', '--db', from, '--format', 'csv', '--no-neutralise', '--status', 'booked'];
  const exported = await runCliInProcess([...args, ...accountIds.flatMap((a) => ['--account', a]), '--out', csv]);
  expect(exported.code, exported.stderr).toBe(0);
  const opening = run('sh', [
    '-c',
    `hledger -f "$1" --rules-file "$2" print | ${FIRST_PER_ACCOUNT}`,
    'sh',
    csv,
    docs('hledger-opening.rules'),
  ]);
  expect(opening.status, opening.stderr).toBe(0);
  const rows = run('hledger', ['-f', csv, '--rules-file', docs('hledger.rules'), 'print']);
  expect(rows.status, rows.stderr).toBe(0);
  const journal = join(dir, `${name}.journal`);
  writeFileSync(journal, opening.stdout + rows.stdout);
  return journal;
}

describe.skipIf(missing.length > 0)(
  `the demo's CSV in hledger with docs/hledger.rules and docs/hledger-opening.rules${missing.length ? ' (skipped: hledger missing)' : ''}`,
  () => {
    it("every account read with credits and debits and no break ends at the bank's balance, its assertions checked", async () => {
      const breaks = new Set(
        (store.sqlite.prepare('SELECT DISTINCT account_id FROM v_continuity').all() as { account_id: string }[]).map(
          (r) => r.account_id,
        ),
      );
      const complete = accounts.filter(
        (a) =>
          a.permissions.includes('ReadTransactionsCredits') &&
          a.permissions.includes('ReadTransactionsDebits') &&
          !breaks.has(a.account_id),
      );
      expect(
        complete.length,
        `accounts with breaks: ${[...breaks].join(', ')}\nthe demo said:\n${demoOutput.join('')}`,
      ).toBeGreaterThanOrEqual(5);
      const journal = await journalOf(
        complete.map((a) => a.account_id),
        'complete',
      );
      const text = readFileSync(journal, 'utf8');
      // Every row carries an assertion (the demo's bank gives a running balance on every booked row).
      const booked = store.sqlite
        .prepare(
          `SELECT count(*) AS n FROM v_transactions WHERE status = 'Booked' AND account_id IN (${complete.map(() => '?').join(', ')})`,
        )
        .get(...complete.map((a) => a.account_id)) as { n: number };
      expect(text.match(/^ {4}assets:bank:\S+\s+\S+ = \S+$/gm)).toHaveLength(booked.n);
      expect(text.match(/opening balance of /g)).toHaveLength(complete.length);

      // Assertions are on by default in a journal: a failing one is a non-zero exit.
      const bal = run('hledger', ['-f', journal, 'balance', 'assets', '-N', '--empty', '-O', 'csv']);
      expect(bal.status, bal.stderr).toBe(0);
      const [, ...lines]: string[][] = parse(bal.stdout);
      const ended = new Map(lines.map(([account, amount]) => [account!.split(':').pop()!, canonical(amount!)]));
      for (const a of complete) {
        // The bank's balance: its running balance after the account's last booked row, which is
        // also the latest booked balance it stated whenever that was stated at or after that row.
        const last = store.sqlite
          .prepare(
            `SELECT balance_after, booking_date_time FROM v_transactions WHERE account_id = ? AND status = 'Booked'
             ORDER BY booking_date_time DESC, transaction_id DESC LIMIT 1`,
          )
          .get(a.account_id) as { balance_after: string; booking_date_time: string };
        const stated = store.sqlite
          .prepare(
            `SELECT amount_text, date_time FROM v_balances WHERE account_id = ? AND type IN ('InterimBooked', 'ClosingBooked')
             ORDER BY date_time DESC LIMIT 1`,
          )
          .get(a.account_id) as { amount_text: string; date_time: string } | undefined;
        expect(ended.get(a.account_id), a.account_id).toBe(canonical(String(last.balance_after)));
        if (stated && stated.date_time >= last.booking_date_time)
          expect(ended.get(a.account_id), `${a.account_id} stated`).toBe(canonical(stated.amount_text));
      }
    }, 120_000);

    it("maps each category to expenses:<category> / income:<category>, each total the view's", async () => {
      const csv = join(dir, 'categories.csv');
      const exported = await runCliInProcess([
        ...['export', 'transactions', '--db', db, '--format', 'csv', '--no-neutralise', '--status', 'booked'],
        ...['--out', csv],
      ]);
      expect(exported.code, exported.stderr).toBe(0);
      const bal = run('hledger', [
        ...['-f', csv, '--rules-file', docs('hledger.rules'), '-I'],
        ...['balance', 'expenses', 'income', '-N', '--flat', '-O', 'csv'],
      ]);
      expect(bal.status, bal.stderr).toBe(0);
      const [, ...lines]: string[][] = parse(bal.stdout);
      const got = new Map(lines.map(([account, amount]) => [account!, canonical(amount!)]));
      const want = store.sqlite
        .prepare(
          `SELECT CASE WHEN credit_debit_indicator = 'Credit' THEN 'income:' ELSE 'expenses:' END || category AS account,
                  currency, group_concat(amount_text, ' ') AS amounts
           FROM v_transactions WHERE status = 'Booked' GROUP BY 1, 2 ORDER BY 1, 2`,
        )
        .all() as { account: string; currency: string; amounts: string }[];
      const currencies = new Set(want.map((w) => w.currency));
      expect(want.filter((w) => w.account.startsWith('expenses:')).length).toBeGreaterThanOrEqual(3);
      for (const w of want) {
        if (currencies.size > 1 && want.some((o) => o.account === w.account && o.currency !== w.currency)) continue;
        // The other side's total is minus the bank side's: exact units summed from each row's text.
        const units = w.amounts.split(' ').reduce((a, t) => a + toUnits(t), 0n);
        expect(got.get(w.account), w.account).toBe(canonical(formatUnits(-units, w.currency)));
      }
    });

    it('a bank that sends dates only: a day’s rows at one instant, ids out of their balances’ order, end at its balance', async () => {
      const file = join(dir, 'dates-only', 'bankdata.sqlite');
      const own = await openDatabaseStore(file);
      try {
        await fresh(own);
        await account(own, 'acc-dates', DATES_ONLY);
        await checkContinuity(own);
        expect(await own.continuity.listFindings({})).toEqual([]);
      } finally {
        await own.close();
      }
      const journal = await journalOf(['acc-dates'], 'dates-only', file);
      const bal = run('hledger', ['-f', journal, 'balance', 'assets', '-N', '-O', 'csv']);
      expect(bal.status, bal.stderr).toBe(0);
      const [, line]: string[][] = parse(bal.stdout);
      expect(canonical(line?.[1] ?? '')).toBe('2275.07');
    }, 120_000);

    it("an account read through a credits-only consent fails its assertions (it cannot end at the bank's balance)", async () => {
      const creditsOnly = accounts.find(
        (a) => a.permissions.includes('ReadTransactionsCredits') && !a.permissions.includes('ReadTransactionsDebits'),
      );
      expect(creditsOnly).toBeDefined();
      const journal = await journalOf([creditsOnly!.account_id], 'credits-only');
      const bal = run('hledger', ['-f', journal, 'balance', 'assets']);
      expect(bal.status).not.toBe(0);
      expect(bal.stderr).toContain('balance assertion');
      const ignored = run('hledger', ['-f', journal, 'balance', 'assets', '-I']);
      expect(ignored.status, ignored.stderr).toBe(0);
    }, 120_000);
  },
);
