/**
 * End to end: payments created against the emulator's consents settle as its clock moves, the
 * Data API sync lands the merchant's credits, and every settled payment is matched exactly once
 * (v_payment_matches); rejected ones credit nothing, and duplicates are reported as ambiguous.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPaymentsClient, type PaymentsClient } from '../../src/api/payments';
import { creditTransactionId } from '@bankdata/emulator';
import {
  createPayment,
  listReconciliationIssues,
  reconciliationSummary,
  syncPayments,
  trackPayments,
} from '../../src/payments';
import { startHarness, type Harness } from '../fixtures/sync-harness';
import { consentOf, PaymentsHttp, START } from './helpers';

let h: Harness;
let client: PaymentsClient;
beforeAll(async () => {
  // Sixty days of account history: the payments settle after START, and the sync reads the
  // merchant's credits; a longer history is more rows to sync and nothing more to match.
  h = await startHarness({ seed: 7, start: START, historyDays: 60 });
  client = createPaymentsClient({
    baseUrl: h.emu.paymentsBaseUrl,
    clientId: h.emu.paymentsClientId,
    clientSecret: h.emu.paymentsClientSecret,
    retry: { baseDelayMs: 1, maxDelayMs: 5 },
  });
});
afterAll(() => h.close());

const matches = () =>
  h.store.sqlite
    .prepare(
      'SELECT payment_id, bank, account_id, transaction_id, match_rule FROM v_payment_matches ORDER BY payment_id',
    )
    .all() as {
    payment_id: string;
    bank: string;
    account_id: string;
    transaction_id: string;
    match_rule: string;
  }[];

describe('payments → settlement → sync → reconciliation', () => {
  const made: string[] = [];
  let rejected = '';

  it('creates payments on single and enduring consents and tracks them to a terminal status', async () => {
    const deps = { client, store: h.store, sleep: async () => {} };
    for (const role of ['single-1', 'single-2', 'single-3'] as const) {
      made.push((await createPayment(deps, { consentId: consentOf(h.emu, role) })).payment.payment_id);
    }
    for (const [total, reference] of [
      ['120.00', 'JAN'],
      ['120.00', 'FEB'],
      ['75.5', 'MAR'],
    ] as const) {
      const result = await createPayment(deps, {
        consentId: consentOf(h.emu, 'enduring'),
        amount: { total, currency: 'NZD' },
        pcr: { particulars: 'SUB-0001', code: 'MONTHLY', reference },
      });
      made.push(result.payment.payment_id);
    }
    const toReject = await createPayment(deps, {
      consentId: consentOf(h.emu, 'enduring'),
      amount: { total: '9.99', currency: 'NZD' },
      pcr: { particulars: 'SUB-0001', code: 'MONTHLY', reference: 'REJ' },
    });
    rejected = toReject.payment.payment_id;
    await new PaymentsHttp(h.emu).control('POST', `/payments/${rejected}/reject`);

    // Tracking polls until terminal; each wait moves the emulator's clock instead of sleeping.
    const tracked = await trackPayments(
      { client, store: h.store, sleep: async (ms) => void h.emu.advance(ms) },
      { intervalMs: 20_000 },
    );
    expect(tracked.open).toEqual([]);
    expect(tracked.passes).toBeGreaterThan(1);
    const statuses = Object.fromEntries(
      (
        h.store.sqlite.prepare('SELECT payment_id, status FROM v_payments').all() as {
          payment_id: string;
          status: string;
        }[]
      ).map((r) => [r.payment_id, r.status]),
    );
    for (const id of made) expect(statuses[id]).toBe('AcceptedSettlementCompleted');
    expect(statuses[rejected]).toBe('Rejected');
    const history = h.store.sqlite
      .prepare('SELECT status FROM payment_status_history WHERE payment_id = ? ORDER BY status_updated_at')
      .all(made[0]) as { status: string }[];
    expect(history.map((r) => r.status)).toEqual([
      'Pending',
      'AcceptedSettlementInProcess',
      'AcceptedSettlementCompleted',
    ]);
    // Settled but not synced yet: nothing matches, each is listed as unmatched.
    expect(matches()).toEqual([]);
    expect((await listReconciliationIssues(h.store)).unmatched.map((u) => u.payment_id).sort()).toEqual(
      [...made].sort(),
    );
  });

  it("the sync lands the merchant's credits, and every settled payment is matched exactly once", async () => {
    const summary = await h.sync();
    expect(summary.outcome).toBe('ok');
    const { bank, accountId } = h.emu.merchantAccount;
    expect(matches()).toEqual(
      [...made].sort().map((id) => ({
        payment_id: id,
        bank,
        account_id: accountId,
        transaction_id: creditTransactionId(id),
        match_rule: 'amount_pcr_date',
      })),
    );
    // Exactly once both ways: one row per payment, one payment per transaction.
    expect(new Set(matches().map((m) => m.transaction_id)).size).toBe(made.length);
    expect(await listReconciliationIssues(h.store)).toEqual({ unmatched: [], ambiguous: [] });
    const credit = h.store.sqlite
      .prepare(
        'SELECT amount_text AS amount, creditor_particulars, creditor_reference FROM v_transactions WHERE transaction_id = ?',
      )
      .get(creditTransactionId(made[5]!));
    expect(credit).toEqual({ amount: '75.5', creditor_particulars: 'SUB-0001', creditor_reference: 'MAR' });
    // The rejected payment credited nothing.
    expect(
      h.store.sqlite
        .prepare('SELECT count(*) AS n FROM v_transactions WHERE transaction_id = ?')
        .get(creditTransactionId(rejected)),
    ).toEqual({ n: 0 });
    expect(await reconciliationSummary(h.store)).toMatchObject({ settled: made.length, matched: made.length });
  });

  it('two payments with the same amount and PCR are ambiguous, never matched to one credit twice', async () => {
    const deps = { client, store: h.store, sleep: async () => {} };
    const twins: string[] = [];
    for (let i = 0; i < 2; i++) {
      const result = await createPayment(
        deps,
        {
          consentId: consentOf(h.emu, 'enduring'),
          amount: { total: '33.00', currency: 'NZD' },
          pcr: { particulars: 'SUB-0001', code: 'MONTHLY', reference: 'TWIN' },
        },
        { allowDuplicate: i > 0 },
      );
      twins.push(result.payment.payment_id);
    }
    h.emu.advance(120_000);
    await syncPayments({ client, store: h.store });
    await h.sync();
    const issues = await listReconciliationIssues(h.store);
    expect(issues.unmatched).toEqual([]);
    expect(issues.ambiguous.map((a) => [a.payment_id, a.reason, a.candidates.length]).sort()).toEqual(
      twins.map((id) => [id, 'several_transactions', 2]).sort(),
    );
    expect(matches().filter((m) => twins.includes(m.payment_id))).toEqual([]);
    // The earlier matches stand.
    expect(matches()).toHaveLength(made.length);
  });
});
