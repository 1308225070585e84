/** The demo exports after its last sync (the files hold exactly what the final database holds), then writes the report. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import Database from 'better-sqlite3';
import { parse } from 'csv-parse/sync';
import { afterAll, describe, expect, it } from 'vitest';
import { checkContinuity } from '../../src/check/check-accounts';
import { runDemo } from '../../src/cli/demo';
import { openStore } from '../../src/store';
import { SETTINGS } from '../fixtures/sync-harness';

const dir = mkdtempSync(join(tmpdir(), 'bankdata-demo-'));
let printed = '';
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('bankdata demo', () => {
  it('writes its exports after the incremental sync: file rows = view rows of the final database', async () => {
    await runDemo({ dataDir: dir, settings: SETTINGS, seed: 1, out: (s) => (printed += s) });
    expect(printed.indexOf('Exporting transactions')).toBeGreaterThan(
      printed.indexOf("The bank's clock moves two days"),
    );
    const db = new Database(join(dir, 'demo', 'bankdata.sqlite'), { readonly: true });
    try {
      const view = db
        .prepare(
          'SELECT transaction_id FROM v_transactions ORDER BY bank, account_id, booking_date_time, transaction_id',
        )
        .all() as { transaction_id: string }[];
      const [header, ...rows] = parse(readFileSync(join(dir, 'demo', 'exports', 'transactions.csv'), 'utf8'));
      const id = header!.indexOf('transaction_id');
      expect(rows.map((r) => r[id])).toEqual(view.map((v) => v.transaction_id));
      const json = JSON.parse(readFileSync(join(dir, 'demo', 'exports', 'transactions.json'), 'utf8')) as unknown[];
      expect(json).toHaveLength(view.length);
    } finally {
      db.close();
    }
  }, 120_000);

  it('plants one duplicate the bank serves: flagged with its evidence, kept in the export, left out by --exclude-duplicates', () => {
    const db = new Database(join(dir, 'demo', 'bankdata.sqlite'), { readonly: true });
    try {
      const suspected = db
        .prepare('SELECT transaction_id, twin_transaction_id, evidence, amount_off_text, amount_text FROM v_duplicates')
        .all() as {
        transaction_id: string;
        twin_transaction_id: string;
        amount_off_text: string;
        amount_text: string;
      }[];
      expect(suspected).toHaveLength(1);
      const [d] = suspected;
      // The balance is off by exactly the row's amount, the sign reversed.
      expect(d!.amount_off_text.replace(/^-/, '')).toBe(d!.amount_text.replace(/^-/, ''));
      expect(d!.amount_off_text.startsWith('-')).toBe(!d!.amount_text.startsWith('-'));
      expect(printed).toContain('Suspected duplicates (v_duplicates, v_transactions.suspected_duplicate = 1): 1');
      expect(printed).toContain(`${d!.transaction_id} (twin ${d!.twin_transaction_id})`);
      expect(printed).toContain('--exclude-duplicates left out 1 row(s)');
      const ids = (file: string) => {
        const [header, ...rows] = parse(readFileSync(join(dir, 'demo', 'exports', file), 'utf8'));
        return rows.map((r) => r[header!.indexOf('transaction_id')]);
      };
      expect(ids('transactions.csv')).toContain(d!.transaction_id);
      expect(ids('transactions-without-duplicates.csv')).not.toContain(d!.transaction_id);
      expect(ids('transactions.csv').length - ids('transactions-without-duplicates.csv').length).toBe(1);
    } finally {
      db.close();
    }
  });

  it("the sync summary's 'no break in N account(s)' counts the accounts the check judged, and says how many it did not", async () => {
    // The backfill read every account; its summary speaks for the accounts the check judged.
    const said = /continuity no break in (\d+) account\(s\) \((\d+) not checked\)/.exec(printed);
    expect(said).not.toBeNull();
    const store = await openStore(join(dir, 'demo', 'bankdata.sqlite'));
    try {
      const result = await checkContinuity(store, { save: false });
      // The demo's world has credits-only and debits-only consents: accounts the walk cannot judge.
      expect(result.skipped.length).toBeGreaterThan(0);
      expect(Number(said![1])).toBe(result.accounts - result.skipped.length);
      expect(Number(said![2])).toBe(result.skipped.length);
      expect(result.checked).toBe(result.accounts - result.skipped.length);
      // The incremental sync's check (the planted duplicate is a break) counts the same way.
      expect(printed).toMatch(
        /continuity 1 break\(s\) between balances and transactions in \d+ account\(s\) checked, \d+ not checked/,
      );
    } finally {
      await store.close();
    }
  });

  it('writes the HTML report after the last sync and prints its path', () => {
    const report = join(dir, 'demo', 'report.html');
    expect(printed).toContain(`  report      ${relative(process.cwd(), report)}`);
    const html = readFileSync(report, 'utf8');
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect((html.match(/<svg class="chart" role="img"/g) ?? []).length).toBeGreaterThan(4);
  });

  it("prints the number of own-account transfer pairs and of ambiguous candidates, as the database holds them; the report's money in and out leaves them out", () => {
    const db = new Database(join(dir, 'demo', 'bankdata.sqlite'), { readonly: true });
    try {
      const count = (view: string) => (db.prepare(`SELECT count(*) AS n FROM ${view}`).get() as { n: number }).n;
      const pairs = count('v_transfers');
      // The emulator's world moves money between a customer's own accounts (generator/transfers.ts).
      expect(pairs).toBeGreaterThan(0);
      expect(printed).toContain(
        `Own-account transfers: ${pairs} pair(s) linked (v_transfers), ${count('v_transfer_ambiguities')} ambiguous candidate pair(s)`,
      );
    } finally {
      db.close();
    }
    const html = readFileSync(join(dir, 'demo', 'report.html'), 'utf8');
    expect(html).toContain('own-account transfers left out of money in and out');
  });
});
