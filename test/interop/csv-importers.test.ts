/**
 * The CSV export through hledger with the rules file shipped in docs/hledger.rules (docs/exports.md
 * "hledger, ledger and Beancount"): counts, NZ dates, exact amounts, hostile descriptions and the
 * total per currency compared with the views.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportDataset } from '../../src/export';
import { sumDecimals } from '@bankdata/core/money';
import { createFixtureStore, type FixtureStore } from '../export/fixture-store';
import { missingPrograms, run } from './programs';

const missing = missingPrograms('hledger');
const RULES = fileURLToPath(new URL('../../docs/hledger.rules', import.meta.url));

/** Decimal text without trailing fraction zeros (hledger pads to the commodity's precision). */
const canonical = (v: string) => (v.includes('.') ? v.replace(/0+$/, '').replace(/\.$/, '') : v).replace(/^-0$/, '0');

describe.skipIf(missing.length > 0)(
  `CSV read by hledger with docs/hledger.rules${missing.length ? ' (skipped: hledger missing)' : ''}`,
  () => {
    let fx: FixtureStore;
    beforeAll(async () => {
      fx = await createFixtureStore();
    });
    afterAll(() => fx?.cleanup());

    it('every booked row: date, exact amount, description (hostile text, quotes, macrons, emoji) and the total', async () => {
      const out = join(fx.dir, 'hledger.csv');
      const filters = { accountId: 'acc-0001', bank: 'PNZ', status: 'booked' };
      await exportDataset(fx.store, { dataset: 'transactions', format: 'csv', out, neutralise: false, filters });
      const rows = fx.store.sqlite
        .prepare(
          `SELECT * FROM v_transactions WHERE bank = 'PNZ' AND account_id = 'acc-0001' AND status = 'Booked' ORDER BY booking_date_time, transaction_id`,
        )
        .all() as Record<string, string | null>[];
      const printed = run('hledger', ['-f', out, '--rules-file', RULES, 'print', '-O', 'csv']);
      expect(printed.status, printed.stderr).toBe(0);
      const [, ...postings] = parse(printed.stdout);
      // Two postings per transaction; the bank side first. hledger sorts by date (stable).
      const bankSide = postings.filter((p) => p[7]!.startsWith('assets:bank:'));
      const byCode = new Map(bankSide.map((p) => [p[4]!, p]));
      expect(bankSide).toHaveLength(rows.length);
      for (const row of rows) {
        const p = byCode.get(row.transaction_id!)!;
        expect(p, row.transaction_id!).toBeDefined();
        expect(p[1]).toBe(row.booking_date);
        expect(canonical(p[8]!)).toBe(canonical(row.amount_text!));
        expect(p[9]).toBe(row.currency);
        expect(p[5]).toBe((row.description ?? '').replace(/\s+/g, ' ').trim());
      }
      expect(readFileSync(out, 'utf8')).toContain('"=HYPERLINK(""http://x"",""y"")"'); // exact, not neutralised
      const balance = run('hledger', ['-f', out, '--rules-file', RULES, 'balance', 'assets', '-N', '-O', 'csv']);
      expect(balance.status, balance.stderr).toBe(0);
      const [, total] = parse(balance.stdout);
      expect(canonical(total![1]!.replace(/^NZD/, '').trim())).toBe(
        canonical(sumDecimals(rows.map((r) => r.amount_text!))),
      );
    });
  },
);
