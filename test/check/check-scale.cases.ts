/**
 * `bankdata check` on an account with more than 125,000 findings (issue 31 item 6: it died with
 * "Maximum call stack size exceeded", exit 70): every finding is printed and stored. The rows
 * are written straight into the tables, 126,000 booked transactions 30 minutes apart whose
 * running balance never follows (each one a break of -1.00), so no sync is needed. Run once per
 * dialect by check-scale.test.ts and check-scale.pg.test.ts.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import type { ConsentId } from '@bankdata/core/schemas';
import { openDatabaseStore } from '../../src/store';
import { execute, queryRow, type DialectSetup } from '../support/dialects';
import { runCliInProcess } from '../cli/cli-process';

const ROWS = 126_000;
const SPACING_MS = 30 * 60_000;
/** Rows within SETTLE_DAYS (3) of the latest are not judged: 144 of them at 30 minutes, and the first has no row before. */
const FINDINGS = ROWS - 145;
const CONSENT = '0b7f6c3e-1d2a-4c5b-8e9f-a0b1c2d3e4f5' as ConsentId;
const T0 = Date.parse('2015-01-01T00:00:00.000Z');
const NOW = '2024-01-01T00:00:00.000Z';

export function checkScaleSuite(setup: DialectSetup): void {
  setup.describe('bankdata check with 125,000+ findings in one account', () => {
    it('prints and stores every finding (exit 1), no stack overflow', async () => {
      const location = await setup.location();
      const store = await openDatabaseStore(location);
      try {
        await store.consents.add(CONSENT);
        await execute(
          store,
          'UPDATE consents SET permissions = ?, start_date_time = ? WHERE consent_id = ?',
          'ReadAccountsDetail ReadBalances ReadTransactionsDetail',
          '2014-12-01T00:00:00.000Z',
          CONSENT,
        );
        await execute(
          store,
          `INSERT INTO accounts (bank, account_id, consent_id, currency, raw_json, first_seen_at, last_seen_at, updated_at)
           VALUES ('PNZ', 'acc-big', ?, 'NZD', '{}', ?, ?, ?)`,
          CONSENT,
          NOW,
          NOW,
          NOW,
        );
        await execute(
          store,
          `INSERT INTO sync_state (bank, account_id, consent_id, resource, watermark, updated_at)
           VALUES ('PNZ', 'acc-big', ?, 'transactions', ?, ?)`,
          CONSENT,
          NOW,
          NOW,
        );
        const PER_STATEMENT = 1000;
        for (let start = 0; start < ROWS; start += PER_STATEMENT) {
          const params: unknown[] = [];
          const tuples: string[] = [];
          for (let i = start; i < Math.min(ROWS, start + PER_STATEMENT); i++) {
            const at = new Date(T0 + i * SPACING_MS).toISOString();
            tuples.push(
              "('PNZ', 'acc-big', ?, ?, 'Booked', ?, ?, '1.00', 100, 'NZD', 'Credit', '0.00', '{}', ?, ?, ?)",
            );
            params.push(`txn-${String(i).padStart(6, '0')}`, CONSENT, at, at.slice(0, 10), NOW, NOW, NOW);
          }
          await execute(
            store,
            `INSERT INTO transactions (bank, account_id, transaction_id, consent_id, status, booking_date_time, booking_date,
               amount, amount_minor, currency, credit_debit_indicator, balance_after, raw_json, first_seen_at, last_seen_at, updated_at)
             VALUES ${tuples.join(', ')}`,
            ...params,
          );
        }
      } finally {
        await store.close();
      }

      const dir = mkdtempSync(join(tmpdir(), 'bankdata-check-scale-'));
      const r = await runCliInProcess(['--db', location, 'check'], { cwd: dir });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(1);
      expect(r.stdout.slice(0, 200).split('\n')[0]).toBe(`continuity: ${FINDINGS} break(s) in 1 account(s) checked`);
      expect(
        r.stdout
          .split('\n')
          .filter((l) => l.includes('the running balance jumps') || l.includes('a transaction missing')),
      ).toHaveLength(FINDINGS);

      const reader = await openDatabaseStore(location, { readOnly: true });
      try {
        const stored = await queryRow<{ n: number }>(reader, 'SELECT count(*) AS n FROM continuity_findings');
        expect(Number(stored?.n)).toBe(FINDINGS);
        expect(await reader.continuity.countFindings()).toBe(FINDINGS);
      } finally {
        await reader.close();
      }
    });
  });
}
