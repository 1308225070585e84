/**
 * An ended consent is read no more once a complete look-back read of its account has been made
 * at or after its end + `sync.lookbackDays` (src/sync/transactions.ts `endedAndSettled`;
 * docs/configuration.md "Sync windows", ended consents). Before, the rule asked only whether the
 * watermark had reached the end and the bank's now had passed end + look-back: a window that
 * failed in the last run before that instant was never read again (the watermark was already at
 * the end, so the failure held nothing back), and a row the bank posted late in it was lost.
 *
 * The bank is the emulator behind a wrapper over the client: it counts the transactions requests,
 * fails them on demand, and holds back one booked row before the end (a row the bank posts late)
 * until it is revealed.
 *
 * One suite, both dialects (../support/dialects.ts): ended-consent-reread.test.ts runs it on
 * SQLite, ended-consent-reread.pg.test.ts on PostgreSQL.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DateTime } from 'luxon';
import { formatNz } from '@bankdata/core/nz-time';
import type { AccountId, ConsentId, Transaction } from '@bankdata/core/schemas';
import { FULL_PERMISSIONS } from '@bankdata/emulator';
import type { DataApiClient } from '../../src/api';
import type { ListResult } from '../../src/api/paginate';
import type { Store } from '../../src/store';
import { planDryRun } from '../../src/sync/dry-run';
import { queryRows, type DialectSetup } from '../support/dialects';
import { startHarnessOn, SETTINGS, type Harness } from '../fixtures/sync-harness';
import { bankDown, overriding } from '../fixtures/client-overrides';

const DAY = 86_400_000;

/** The bank as the test wants it: counts, fails, and holds back the row `held` until `revealed`. */
interface BankState {
  calls: number;
  fail: boolean;
  held: { accountId: AccountId; transactionId: string } | null;
  revealed: boolean;
}

function wrapped(client: DataApiClient, bank: BankState): DataApiClient {
  return overriding(client, {
    listTransactions:
      (real) =>
      async (...args) => {
        bank.calls += 1;
        if (bank.fail) throw bankDown();
        const result: ListResult<Transaction> = await real(...args);
        const held = bank.held;
        if (held === null || bank.revealed) return result;
        return {
          ...result,
          records: result.records.filter(
            (r) => !(r.AccountId === held.accountId && r.TransactionId === held.transactionId),
          ),
        };
      },
  });
}

export function endedConsentRereadSuite(setup: DialectSetup): void {
  setup.describe('an ended consent read again after a failed window', () => {
    let h: Harness<Store>;
    let consentId: ConsentId;
    let end: DateTime;

    beforeAll(async () => {
      const start = DateTime.now().minus({ days: 40 }).startOf('second').toISO();
      h = await startHarnessOn(await setup.location(), { start, clock: 'frozen' });
      const now = h.emu.now();
      end = now.plus({ days: 2 });
      const { consent_id } = await h.client.createConsent({
        flow: {
          detail: { type: 'redirect', redirect_uri: 'https://app.example.nz/consent/return' },
          flow_hint: { type: 'redirect', bank: 'PNZ' },
        },
        permissions: [...FULL_PERMISSIONS],
        start_date_time: formatNz(now.minus({ days: 30 })),
        end_date_time: formatNz(end),
        expiration_date_time: formatNz(now.plus({ days: 35 })),
      });
      await fetch(`${h.emu.baseUrl}/__emulator/consents/${consent_id}/authorise`, { method: 'POST', body: '{}' });
      consentId = consent_id;
      await h.store.consents.add(consentId);
    });
    afterAll(async () => {
      await h?.close();
    });

    const stored = async (key: { accountId: AccountId; transactionId: string }) =>
      (
        await queryRows<{ n: number }>(
          h.store,
          'SELECT count(*) AS n FROM transactions WHERE account_id = ? AND transaction_id = ? AND removed_at IS NULL',
          key.accountId,
          key.transactionId,
        )
      ).map((r) => Number(r.n))[0];

    it('a failed window of an ended consent is read again by the next run, and then no more', async () => {
      const settings = { ...SETTINGS, lookbackDays: 14 };
      const bank: BankState = { calls: 0, fail: false, held: null, revealed: false };
      const client = wrapped(h.client, bank);
      const run = async (fail: boolean) => {
        bank.fail = fail;
        bank.calls = 0;
        const summary = await h.sync({ settings, consentIds: [consentId], client });
        return { summary, calls: bank.calls };
      };
      // What `sync --dry-run` lists of the same run: the transactions requests (same walk, same rule).
      const dryRunListed = async () => {
        const plan = await planDryRun({ store: h.store, client: h.client, settings, consentIds: [consentId] });
        return plan.consents.flatMap((c) => c.requests).filter((r) => r.includes('/transactions?')).length;
      };

      // The row the bank posts late: the consent's last booked row before its end, of one of its accounts.
      h.emu.advance(3 * DAY); // past the end: backfill to the end
      const consent = h.emu.consent(consentId)!;
      const candidates = consent.accountKeys.flatMap((key) => {
        const account = h.emu.world.accounts.get(key)!;
        return h.emu.world
          .transactionsAt(account.bank, account.account.AccountId, h.emu.now())
          .filter((tx) => tx.Status === 'Booked' && DateTime.fromISO(tx.BookingDateTime) <= end);
      });
      expect(candidates.length).toBeGreaterThan(0);
      const late = candidates.reduce((a, b) =>
        DateTime.fromISO(b.BookingDateTime) > DateTime.fromISO(a.BookingDateTime) ? b : a,
      );
      bank.held = { accountId: late.AccountId, transactionId: late.TransactionId };

      const first = await run(false);
      expect(first.summary.outcome).toBe('ok');
      expect(first.calls).toBeGreaterThan(0);
      h.emu.advance(4 * DAY); // end + 5: pending rows settle
      expect((await run(false)).summary.outcome).toBe('ok');
      expect(await stored(bank.held)).toBe(0);

      // end + 13: the bank now answers with the late row, but the transactions requests fail.
      h.emu.advance(8 * DAY);
      bank.revealed = true;
      const failed = await run(true);
      expect(failed.calls).toBeGreaterThan(0);
      expect(failed.summary.outcome).toBe('partial');
      expect(failed.summary.counters.failedUnits.some((f) => f.unit.startsWith('transactions'))).toBe(true);
      expect(await stored(bank.held)).toBe(0);

      // end + 15: past end + look-back, but the last complete read was before it: read again.
      h.emu.advance(2 * DAY);
      expect(await dryRunListed(), 'the dry run of the run after the failure').toBeGreaterThan(0);
      const next = await run(false);
      expect(next.summary.outcome).toBe('ok');
      expect(next.calls, 'transactions requests in the run after the failure').toBeGreaterThan(0);
      expect(await stored(bank.held), 'the row posted late, after the retry').toBe(1);

      // A complete read at end + 15 ≥ end + look-back: settled, no more transactions requests.
      h.emu.advance(1 * DAY);
      const settled = await run(false);
      expect(settled.summary.outcome).toBe('ok');
      expect(settled.calls, 'transactions requests once settled').toBe(0);
      expect(await dryRunListed(), 'the dry run once settled').toBe(0);
      h.emu.advance(3 * DAY);
      expect((await run(false)).calls).toBe(0);
    }, 120_000);
  });
}
